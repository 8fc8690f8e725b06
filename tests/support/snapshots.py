"""Rendered-SQL snapshots: the statement of each measure family under the default conventions and
two presets, kept in tests/snapshots/<preset>/<family>.sql, so that a template change shows as a
reviewable diff of the SQL it renders (tests/rendering/test_snapshots.py compares them).

    python tests/support/snapshots.py      # write them anew after a deliberate change, then review git diff
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent), str(HERE.parent)]  # sqlrank, and the tests' conftest

from sqlrank.measures.conventions import resolve_conventions  # noqa: E402
from sqlrank.measures.measure import Measure  # noqa: E402
from sqlrank.measures.resolve import resolve_measures  # noqa: E402
from sqlrank.measures.registry import REGISTRY  # noqa: E402
from sqlrank.rendering.dialects import DUCKDB  # noqa: E402
from sqlrank.rendering.statement import render_evaluation  # noqa: E402

FOLDER = HERE.parent / "snapshots"
# trec_eval's conventions; Spark MLlib's (exponential gain, AP over min(R, k), rel=0, missing queries
# 0); TorchMetrics' (ideal of the retrieved documents, AP over the retrieved relevant, nDCG averaged
# over tie orders).
PRESETS = ("trec_eval", "spark_mllib", "torchmetrics")
QRELS = "SELECT query_id, doc_id, relevance FROM qrels"
RUN = "SELECT query_id, doc_id, score FROM run"
# The judgments per subtopic of the diversity measures.
INTENTS = "SELECT query_id, subtopic, doc_id, relevance FROM intents"
SAMPLES = "SELECT query_id, sample, doc_id, score FROM samples"  # the sampled rankings of the expected exposure
# The extra inputs of the recommender measures beyond accuracy.
RECOMMENDER = {"history": "SELECT query_id, doc_id FROM history", "items": "SELECT doc_id FROM items",
               "features": "SELECT doc_id, feature, weight FROM item_features",
               "groups": "SELECT doc_id, feature, weight FROM item_features"}


def family_measures(family) -> list[Measure]:
    k = {"rank": 10, "fraction": 0.5, "multiple": 1.2}[family.cutoff_kind]
    cutoffs = {"none": [None], "optional": [None, k], "required": [k]}[family.cutoff]
    params = {"group": "g1"} if "group" in family.params else {}  # Exposure names one group
    if family.name == "NERR":  # equations 8 and 9 stop at rank k, 10 and 11 read to rank 1000
        return [Measure(family.name, 10 if eq < 10 else None, {"eq": eq}) for eq in (8, 9, 10, 11)]
    return [Measure(family.name, cutoff, params) for cutoff in cutoffs]


def render(family, preset: str) -> str:
    conventions = resolve_conventions(preset)
    measures = resolve_measures(family_measures(family), conventions, preset)
    return render_evaluation(QRELS, RUN, measures, conventions, "summary",
                             recommender=RECOMMENDER if family.beyond_accuracy else None,
                             intents_sql=INTENTS if family.intent_aware else None,
                             samples_sql=SAMPLES if family.sampled else None, dialect=DUCKDB)


def snapshots() -> dict[Path, str]:
    return {FOLDER / preset / f"{family.name}.sql": render(family, preset) for preset in PRESETS for family in REGISTRY}


def main() -> None:
    written = 0
    for path, text in snapshots().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written += 1
    print(f"{written} snapshots written in {FOLDER}")


if __name__ == "__main__":
    main()
