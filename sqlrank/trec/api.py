"""sqlrank.trec_eval: what trec_eval prints for these files."""
from __future__ import annotations

from typing import Any


def trec_eval(qrels: Any, run: Any, measures: Any = ("official",), per_query: bool = False, complete: bool = False,
              rel: int = 1, judged_only: bool = False, depth: int | None = None, version: int = 10) -> str:
    """What trec_eval 10 prints for these files (``sqlrank trec_eval``): ``measures`` as trec_eval names
    them ("map", "P.5,10", "ndcg_cut.10", nicknames such as "all_trec"), ``per_query`` (-q), ``complete``
    (-c), ``rel`` (-l), ``judged_only`` (-J), ``depth`` (-M); ``version=9`` as trec_eval 9 and pytrec_eval.

    >>> print(sqlrank.trec_eval("qrels.txt", "run.txt", ["map", "P.10"]))   # doctest: +SKIP
    """
    import io
    import os

    from .trec_eval import Options, request_measure
    from .trec_eval import run as run_trec_eval

    options = Options(os.fspath(qrels), os.fspath(run), per_query, complete, False, judged_only, depth, rel,
                      version=version)
    for spec in [measures] if isinstance(measures, str) else measures:
        request_measure(options.measures, spec)
    out = io.StringIO()
    run_trec_eval(options, out)
    return out.getvalue()
