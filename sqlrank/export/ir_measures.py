"""sqlrank as an ir_measures provider: ``ir_measures.iter_calc``, ``calc_aggregate``, ``evaluator``
and what is built on them (PyTerrier's ``pt.Experiment``) compute the measures below in sqlrank.

    import ir_measures, sqlrank.ir_measures
    sqlrank.ir_measures.register()          # ir_measures' default pipeline asks sqlrank first
    ir_measures.calc_aggregate([nDCG@10, AP, P@10], qrels, run)

The measures and parameters are those ir_measures' default provider for them (pytrec_eval) takes,
with its conventions (sqlrank's ``pytrec_eval`` preset: trec_eval 9; a query of the qrels missing
from the run gets ir_measures' own default, 0, as with every provider), so that the values are the
same; measures sqlrank does not take here fall back to ir_measures' other providers. The diversity
measures are pyndeval's there (qrels with an ``iteration`` column: the subtopic; tied scores by document id
ascending), INST, INSQ and BPM cwl_eval's (labels clipped to [min_rel, max_rel] and rescaled to [0, 1], so
sqlrank reads them with max_rel=1; ir_measures' BPM@k is BPM(K=k)). Needs ir_measures (pip install
ir-measures).
"""
from __future__ import annotations

import warnings
from typing import Any, Iterable, Iterator

import ir_measures
from ir_measures import Metric
from ir_measures import measures as irm
from ir_measures.providers.base import NOT_PROVIDED, Choices
from ir_measures.providers.base import Any as AnyValue

from ..errors import MeasureError, SqlrankWarning
from ..evaluation import Evaluator
from ..measures.conventions import resolve_conventions
from ..measures.resolve import resolve_measures

NAME = "sqlrank"
PRESET = "pytrec_eval"


DIVERSITY = ("alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "P_IA", "AP_IA", "StRecall")
CWL = ("INST", "INSQ", "BPM")


def _name(measure) -> str:
    """The sqlrank name of an ir_measures measure (its parameters translated, then parsed by sqlrank)."""
    params = {k: v for k, v in measure.params.items() if v is not NOT_PROVIDED}
    cutoff = params.pop("recall" if measure.NAME == "IPrec" else "cutoff", None)
    if measure.NAME in DIVERSITY:
        params["tie_break"] = "doc_id_asc"  # pyndeval's order of tied scores
    if measure.NAME in CWL:  # the labels rescaled to [0, 1] (_judgments); ties in the order of the run (_ranked)
        params.pop("min_rel", None)
        params["tie_break"] = "input_rank"
        params["max_rel"] = 1
        if measure.NAME == "BPM":
            params["K"], cutoff = cutoff, None
    if params.pop("dcg", "log2") != "log2":
        raise MeasureError(f"{measure}: sqlrank takes dcg='log2' here (the default provider's formulation)")
    if "gains" in params:
        params["gain"] = params.pop("gains")
    args = ", ".join(f"{k}={v!r}" for k, v in sorted(params.items()))
    return f"{measure.NAME}{f'({args})' if args else ''}{'' if cutoff is None else f'@{cutoff}'}"


def _judgments(frame, measure):
    """The judgments a measure reads (and what keeps them apart from another's): per subtopic for the diversity
    measures, rescaled to [0, 1] as cwl_eval's provider does for INST, INSQ and BPM, else as given."""
    if measure.NAME in DIVERSITY:
        if "iteration" not in frame.columns:
            raise MeasureError(f"{measure}: the diversity measures read qrels per subtopic (an iteration column)")
        return ("subtopics",), frame[["query_id", "iteration", "doc_id", "relevance"]]
    # a document judged again (per subtopic) keeps its last label, as ir_measures' dicts of qrels keep it
    plain = frame[["query_id", "doc_id", "relevance"]].drop_duplicates(["query_id", "doc_id"], keep="last")
    if measure.NAME not in CWL:
        return (), plain
    low, high = measure["min_rel"], measure["max_rel"]
    if high is NOT_PROVIDED or not high > low:
        raise MeasureError(f"{measure}: cwl_eval's measures need max_rel > min_rel")
    scaled = (plain.relevance.clip(lower=0).clip(low, high) - low) / (high - low)
    return ("scaled", low, high), plain.assign(relevance=scaled)


def _ranked(run):
    """The run with each document's rank as ir_measures' cwl_eval provider ranks it: by score, ties in the order
    of the run (a stable sort); tie_break=input_rank reads it."""
    ordered = run.sort_values(["query_id", "score"], ascending=[True, False], kind="stable")
    return ordered.assign(rank=ordered.groupby("query_id", sort=False).cumcount() + 1)


class SqlrankEvaluator(ir_measures.providers.Evaluator):
    def __init__(self, measures: Iterable, qrels):
        measures = list(measures)
        frame = ir_measures.util.QrelsConverter(qrels).as_pd_dataframe()
        super().__init__(measures, set(frame["query_id"].unique()))
        # the judgments each group of measures reads: {key: (judgments, {sqlrank's name: the measures it answers})}
        self.groups: dict[tuple, tuple[Any, dict[str, list]]] = {}
        conventions = resolve_conventions(PRESET)
        for measure in measures:
            key, judged = _judgments(frame, measure)
            names = self.groups.setdefault(key, (judged, {}))[1]
            for resolved in resolve_measures(_name(measure), conventions, PRESET):
                names.setdefault(str(resolved), []).append(measure)
        # each group's judgments read and checked once, for every run this evaluator is given
        self.evaluators = {key: Evaluator(judged, list(names), preset=PRESET)
                           for key, (judged, names) in self.groups.items()}

    def _iter_calc(self, run) -> Iterator[Metric]:
        frame = ir_measures.util.RunConverter(run).as_pd_dataframe()[["query_id", "doc_id", "score"]]
        if frame.empty:
            return
        ranked = _ranked(frame) if any(key[:1] == ("scaled",) for key in self.groups) else None  # cwl_eval's order
        for key, (_, names) in self.groups.items():
            given = ranked if key[:1] == ("scaled",) else frame
            with warnings.catch_warnings():  # ir_measures' providers say nothing of ties or unjudged queries
                warnings.simplefilter("ignore", SqlrankWarning)
                values = self.evaluators[key].evaluate(given, per_query=True)
            values = values[values["query_id"].notna()]
            for query_id, name, value in values[["query_id", "measure", "value"]].itertuples(index=False):
                for measure in names[name]:
                    yield Metric(query_id=str(query_id), measure=measure, value=value)


class SqlrankProvider(ir_measures.providers.Provider):
    """sqlrank: ranking evaluation as SQL in DuckDB (trec_eval 9's conventions here, as pytrec_eval's)."""

    NAME = NAME
    SUPPORTED_MEASURES = [
        irm._P(cutoff=AnyValue(), rel=AnyValue(), judged_only=AnyValue()),
        irm._RR(cutoff=Choices(NOT_PROVIDED), rel=AnyValue(), judged_only=AnyValue()),
        irm._Rprec(rel=AnyValue(), judged_only=AnyValue()),
        irm._AP(cutoff=AnyValue(), rel=AnyValue(), judged_only=AnyValue()),
        irm._nDCG(cutoff=AnyValue(), dcg=Choices("log2"), gains=AnyValue(), judged_only=AnyValue()),
        irm._R(cutoff=AnyValue(), judged_only=AnyValue()),
        irm._Bpref(rel=AnyValue()),
        irm._NumRet(rel=AnyValue()),
        irm._NumQ(),
        irm._NumRel(rel=Choices(1)),
        irm._SetAP(rel=AnyValue(), judged_only=AnyValue()),
        irm._SetF(rel=AnyValue(), beta=AnyValue(), judged_only=AnyValue()),
        irm._SetP(rel=AnyValue(), relative=AnyValue(), judged_only=AnyValue()),
        irm._SetR(rel=AnyValue()),
        irm._Success(rel=AnyValue(), cutoff=AnyValue(), judged_only=AnyValue()),
        irm._IPrec(recall=AnyValue(), judged_only=AnyValue()),
        irm._infAP(rel=AnyValue()),
        irm._alpha_nDCG(cutoff=AnyValue(), alpha=AnyValue(), rel=AnyValue(), judged_only=AnyValue()),
        irm._alpha_DCG(cutoff=AnyValue(), alpha=AnyValue(), rel=AnyValue(), judged_only=AnyValue()),
        irm._ERR_IA(cutoff=AnyValue(), rel=AnyValue(), judged_only=AnyValue()),
        irm._nERR_IA(cutoff=AnyValue(), rel=AnyValue(), judged_only=AnyValue()),
        irm._NRBP(alpha=AnyValue(), beta=AnyValue(), rel=AnyValue()),
        irm._nNRBP(alpha=AnyValue(), beta=AnyValue(), rel=AnyValue()),
        irm._P_IA(cutoff=AnyValue(), rel=AnyValue(), judged_only=AnyValue()),
        irm._AP_IA(rel=AnyValue(), judged_only=AnyValue()),
        irm._StRecall(cutoff=AnyValue(), rel=AnyValue()),
        irm._INST(T=AnyValue(), min_rel=AnyValue(), max_rel=AnyValue(required=True)),
        irm._INSQ(T=AnyValue(), min_rel=AnyValue(), max_rel=AnyValue(required=True)),
        irm._BPM(cutoff=AnyValue(), T=AnyValue(), min_rel=AnyValue(), max_rel=AnyValue(required=True)),
    ]

    def _evaluator(self, measures, qrels) -> SqlrankEvaluator:
        return SqlrankEvaluator(measures, qrels)


PROVIDER = SqlrankProvider()


def register(first: bool = True) -> SqlrankProvider:
    """Add sqlrank to ir_measures' provider registry (``ir_measures.providers.registry['sqlrank']``)
    and, with ``first``, to the head of its default pipeline (after user-defined measures), so that
    ``ir_measures.iter_calc`` and the rest compute the measures sqlrank supports in sqlrank."""
    ir_measures.providers.register(PROVIDER)
    pipeline: list[Any] = ir_measures.DefaultPipeline.providers
    if first and PROVIDER not in pipeline:
        runtime = [i for i, p in enumerate(pipeline) if getattr(p, "NAME", None) == "runtime"]
        pipeline.insert(runtime[0] + 1 if runtime else 0, PROVIDER)
    return PROVIDER


def unregister() -> None:
    """Take sqlrank out of ir_measures' default pipeline and registry again."""
    pipeline = ir_measures.DefaultPipeline.providers
    if PROVIDER in pipeline:
        pipeline.remove(PROVIDER)
    ir_measures.providers.registry.pop(NAME, None)
