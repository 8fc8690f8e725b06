"""sqlrank: ranking evaluation as readable SQL, run in DuckDB where the data lives.

>>> import sqlrank
>>> sqlrank.evaluate("qrels.txt", "run.parquet", "nDCG@10 AP P@10")   # doctest: +SKIP

The public names, each from the module of its concept; the functions are imported when first used, so that
importing sqlrank stays light (no pandas, numpy or DuckDB until an evaluation needs them).
"""
from __future__ import annotations

from importlib import import_module as _import_module

from .errors import ConventionError, InputError, MeasureError, OptionError, SqlrankError, SqlrankWarning
from .measures.conventions import Conventions
from .measures.measure import Measure
from .measures.names import parse_measures
from .version import __version__  # noqa: F401  (sqlrank.__version__)

_HOMES = {  # a public function or class -> the module that owns it
    "evaluate": "evaluating", "render": "evaluating", "Evaluator": "evaluation",
    "compare": "comparing.api", "gsb": "comparing.api", "report": "comparing.api", "overlap": "comparing.api",
    "neighbours": "comparing.api",
    "agree": "judging.api", "pool": "judging.api", "meta": "judging.api",
    "history": "tracking.api", "check": "diagnosing.api", "explain": "diagnosing.api", "trec_eval": "trec.api",
    "install": "export.installing", "fuse": "fusing.api", "render_fusion": "fusing.api",
    "clicks": "logs.clicks", "render_clicks": "logs.clicks",
    "counterfactual": "logs.counterfactual", "render_counterfactual": "logs.counterfactual",
}

__all__ = [
    "evaluate", "Evaluator", "render", "compare", "gsb", "report", "install", "agree", "overlap", "neighbours", "pool",
    "meta", "history", "check", "explain", "trec_eval", "fuse", "render_fusion", "clicks", "render_clicks",
    "counterfactual", "render_counterfactual",
    "parse_measures", "Measure", "Conventions",
    "SqlrankError", "InputError", "MeasureError", "ConventionError", "OptionError", "SqlrankWarning",
]


def __getattr__(name: str):
    """A public function or class, imported from its module when first asked for."""
    if name not in _HOMES:
        raise AttributeError(f"module 'sqlrank' has no attribute {name!r}")
    found = getattr(_import_module(f".{_HOMES[name]}", __name__), name)
    globals()[name] = found
    return found


def __dir__() -> list[str]:
    """What the package offers (not the names its own code imports)."""
    return sorted(__all__ + ["__version__"])
