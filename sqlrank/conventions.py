"""Conventions: every choice that changes a number, named, validated and printed.

The defaults are trec_eval's (version 10), except that queries missing from the run are
skipped, as trec_eval 9, pytrec_eval and most libraries do (trec_eval 10 stops instead).
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

from .errors import ConventionError

MISSING_QUERIES = ("skip", "zero")
TREC_EVAL_VERSIONS = (9, 10)


@dataclass(frozen=True)
class Conventions:
    """The resolved conventions of one evaluation.

    rel: minimum label that counts as relevant (trec_eval -l); nDCG, DCG and CG ignore it.
    missing_queries: "skip" evaluates the queries in both qrels and run; "zero" also scores
        qrels queries absent from the run as 0 (trec_eval -c).
    judged_only: drop retrieved documents without a judgment >= 0 and re-rank (trec_eval -J).
    depth: keep only the top N documents of each query after sorting (trec_eval -M).
    trec_eval_version: 10 (default) or 9. Version 9, like pytrec_eval, compares scores as
        32-bit floats and turns a recall level x into floor(x * R + 0.9) relevant documents
        in IPrec and IPrecAvg; version 10 compares doubles and rounds x * R.
    """

    rel: int = 1
    missing_queries: str = "skip"
    judged_only: bool = False
    depth: int | None = None
    trec_eval_version: int = 10

    def __post_init__(self) -> None:
        if isinstance(self.rel, bool) or not isinstance(self.rel, int) or self.rel < 0:
            raise ConventionError(f"rel must be an integer >= 0, not {self.rel!r}")
        if self.missing_queries not in MISSING_QUERIES:
            raise ConventionError(
                f"missing_queries must be one of {', '.join(MISSING_QUERIES)}, not {self.missing_queries!r}")
        if not isinstance(self.judged_only, bool):
            raise ConventionError(f"judged_only must be true or false, not {self.judged_only!r}")
        if self.depth is not None and (
                isinstance(self.depth, bool) or not isinstance(self.depth, int) or self.depth < 1):
            raise ConventionError(f"depth must be a positive integer or None, not {self.depth!r}")
        if self.trec_eval_version not in TREC_EVAL_VERSIONS:
            raise ConventionError(f"trec_eval_version must be 9 or 10, not {self.trec_eval_version!r}")

    def describe(self) -> str:
        """``rel=1, missing_queries=skip, judged_only=false, depth=none`` (every field, always)."""
        parts = []
        for f in fields(self):
            value = getattr(self, f.name)
            text = "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
            parts.append(f"{f.name}={text}")
        return ", ".join(parts)


FIELD_NAMES = tuple(f.name for f in fields(Conventions))


def resolve_conventions(**overrides: object) -> Conventions:
    """Defaults plus the caller's overrides; None means "keep the default"."""
    unknown = [k for k in overrides if k not in FIELD_NAMES]
    if unknown:
        raise ConventionError(
            f"unknown convention {unknown[0]!r}; the conventions are: {', '.join(FIELD_NAMES)}")
    given = {k: v for k, v in overrides.items() if v is not None}
    return replace(Conventions(), **given)
