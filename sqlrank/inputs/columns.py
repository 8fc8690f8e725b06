"""Input columns: mappings (query_id=user_id), the usual names of each column, exact id types,
and the message that says which column is missing and what was found instead."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping

from ..errors import InputError
from ..rendering.dialects import Dialect
from ..rendering.sqltext import call_macro
from .source import FLOAT_TYPES, IMPLICIT, KINDS, Source


def column_map(columns: Mapping[str, str] | str | None, option: str = "columns") -> dict[str, str | None]:
    """A column mapping as given: a mapping ({"query_id": "topic"}), or the command line's text
    ("query_id=topic,doc_id=docno"; "relevance=" maps the label to None: implicit feedback). Anything
    else is an error naming the option."""
    if columns is None:
        return {}
    if isinstance(columns, Mapping):
        return dict(columns)
    if not isinstance(columns, str):
        raise InputError(f"{option} must be a mapping such as {{'query_id': 'topic'}} or text such as "
                         f"'query_id=topic,doc_id=docno', not {type(columns).__name__}")
    mapping: dict[str, str | None] = {}
    for part in columns.split(","):
        key, sep, value = (text.strip() for text in part.partition("="))
        if key == "relevance" and sep and not value:
            mapping[key] = None  # implicit feedback: every listed pair is relevant
        elif not sep or not key or not value:
            raise InputError(f"{option}: expected NAME=COLUMN pairs separated by commas (query_id=topic,doc_id=docno), "
                             f"got {columns!r}")
        else:
            mapping[key] = value
    return mapping


def column_mapping(kind: str, columns: Mapping[str, str] | str | None) -> dict[str, str]:
    canonical = ("query_id", "doc_id", KINDS[kind]) + (("rank", "run_id") if kind == "run" else ())
    mapping = {c: c for c in canonical if c not in ("rank", "run_id")}
    for key, value in column_map(columns, f"{kind}_columns").items():
        if key not in canonical:
            raise InputError(f"cannot map {kind} column {key!r}: the {kind} columns are {', '.join(canonical)} "
                             f"(write for example query_id=user_id)")
        if kind == "qrels" and key == "relevance" and value is None:
            mapping[key] = IMPLICIT  # implicit feedback: no label column, every listed pair is relevant
            continue
        if not isinstance(value, str) or not value or "\x00" in value:
            implicit = (" (for implicit feedback, no label column and every listed pair relevant, map it to None: "
                        "relevance= on the command line)") if kind == "qrels" and key == "relevance" else ""
            raise InputError(f"the {kind} column mapped to {key} must be a non-empty name, not {value!r}{implicit}")
        mapping[key] = value
    return mapping


# Column names recommender data uses, read as query_id and doc_id when those are absent and not mapped.
RECOMMENDER_NAMES = {"query_id": "user_id", "doc_id": "item_id"}


def implicit_feedback(mapping: dict[str, str], types: Mapping[str, str]) -> bool:
    """Judgments without a label column, every listed (query, document) pair relevant: asked for
    (relevance mapped to None), or a table of exactly the two id columns and nothing else."""
    if mapping.get("relevance") == IMPLICIT:
        return True
    return mapping.get("relevance") not in types and set(types) == {mapping["query_id"], mapping["doc_id"]}


def require_distinct_names(label: str, names: list[str]) -> None:
    seen: dict[str, int] = {}
    for number, name in enumerate(names, 1):
        if name in seen:
            raise InputError(f"{label}: names column {name!r} twice (columns {seen[name]} and {number}); rename one of "
                             f"them so that sqlrank reads the one you mean")
        seen[name] = number


RANK_NAMES = ("rank", "rnk", "ranking", "position", "pos")


def map_usual_columns(source: Source, mapping: Mapping[str, str], types: dict[str, Any]) -> Source:
    """The source with the columns ``mapping`` names, read as an input means them without a mapping
    saying so: recommender data's user_id and item_id for query_id and doc_id, a run ranked by its
    rank column, judgments without a label column as implicit feedback (a label column IMPLICIT is then
    added to ``types``)."""
    mapping = dict(mapping)
    for canonical, usual in RECOMMENDER_NAMES.items():
        if mapping[canonical] == canonical and canonical not in types and usual in types:
            mapping[canonical] = usual
    if source.kind == "run":
        source = read_rank_only(source, mapping, types)
    elif implicit_feedback(mapping, types):
        source = replace(source, implicit=True)
        mapping["relevance"] = IMPLICIT
        types[IMPLICIT] = "INTEGER"
    return replace(source, columns=mapping)


def read_rank_only(source: Source, mapping: dict[str, str], types: Mapping[str, Any]) -> Source:
    """A run with a rank column (1 = best) and no score, as most recommenders' top-k output is,
    ranks by the rank (``mapping``'s score becomes the rank column); a score mapped to a column named
    like a rank is warned about."""
    rank = mapping.get("rank", "rank")
    if mapping["score"] == "score" and "score" not in types and rank in types:
        mapping["score"] = rank
        return replace(source, score_from_rank=True)
    if mapping["score"] != "score" and mapping["score"].lower().strip("_ ").rsplit("_", 1)[-1] in RANK_NAMES:
        return source.warned(
            f"{source.label}: the score is column {mapping['score']!r}, named like a rank; higher scores rank first, "
            f"so a rank (1 = best) ranks backwards: map it with rank={mapping['score']} instead of score= (a run "
            f"with a rank column and no score ranks by the rank)")
    return source


def map_table_columns(source: Source, column_types: Mapping[str, str], per_run: bool = False) -> Source:
    """A table another engine reads in place (PostgreSQL, ClickHouse, DataFusion, Spark), its columns
    (with their types, in the engine's or Arrow's names) found as in a file (map_usual_columns), every
    mapped column there, ids of exact types, and a run's column named rank (with per_run, run_id too)
    used without being mapped."""
    available = list(column_types)
    types = dict(column_types)
    source = map_usual_columns(source, source.columns, types)
    missing = [(canonical, actual) for canonical, actual in source.columns.items() if actual not in types]
    if missing:
        raise InputError(missing_columns_message(source.label, source.kind, missing, available))
    require_exact_ids(source, types)
    defaults = ("rank", "run_id") if per_run else ("rank",)
    used = {name: name for name in (defaults if source.kind == "run" else ())
            if name not in source.columns and name in available}
    return replace(source, columns={**source.columns, **used})


def read_boolean_labels(source: Source, dialect: Dialect, count: Callable[[str], int]) -> Source:
    """Judgments in a table another engine reads in place whose labels are written true or false
    (a recommender's clicked column, as text or booleans) are 1 and 0, as in a file DuckDB reads:
    ``count`` runs the query that tells, in ``dialect``."""
    if source.kind != "qrels" or source.implicit:
        return source
    table = call_macro(dialect, "_macros/inputs.sql", "table", source.parts).strip()
    return replace(source, boolean_labels=count(call_macro(dialect, "checks.sql", "boolean_labels", table,
                                                           source.columns["relevance"])) > 0)


def positional_mapping(kind: str, mapping: dict[str, str]) -> dict[str, str]:
    """A headerless file's columns are column0, column1, ...: unless mapped otherwise, they hold
    query_id, doc_id and the relevance (qrels) or score (run), in that order."""
    order = ("query_id", "doc_id", KINDS[kind])
    return {c: f"column{order.index(c)}" if c in order and a == c else a for c, a in mapping.items()}


# Number types whose values are not exact as text (DuckDB's, Arrow's and Spark's names, upper case).
_INEXACT_TYPES = FLOAT_TYPES + ("DECIMAL", "DECIMAL128", "DECIMAL256", "HALFFLOAT", "NUMERIC")


# Types that hold several values (DuckDB's, Arrow's and Spark's spellings, upper case): an id of one
# would be compared as its text ('[d1]'), matching nothing.
_NESTED_PREFIXES = ("STRUCT", "MAP", "UNION", "LIST", "LARGE_LIST", "FIXED_SIZE_LIST", "ARRAY", "MAP<", "ROW(")


def require_exact_id(label: str, column: str, role: str, type_name: str | None) -> None:
    """Ids are compared as text: a float id (1.0 or 1, 0.30000000000000004) has no one spelling, and a
    list, struct or map is no one id."""
    upper = (type_name or "").strip().upper()
    if upper.endswith("]") or upper.startswith(_NESTED_PREFIXES):
        raise InputError(f"{label}: column {column!r} ({role}) is {type_name}, which holds several values; an id must "
                         f"be one text or integer value per row: unnest or pick the element you mean first")
    if upper.split("(")[0] in _INEXACT_TYPES:
        raise InputError(f"{label}: column {column!r} ({role}) is {type_name}; ids must be text or integers so that "
                         f"they compare exactly; store them as strings")


def require_exact_ids(source: Source, types: Mapping[str, str | None]) -> None:
    for canonical in ("query_id", "doc_id"):
        require_exact_id(source.label, source.columns[canonical], canonical, types.get(source.columns[canonical]))


# Column names that usually mean a canonical column, compared without case, spaces, '-' or '_' (a
# suggestion in the error; a column is only ever read under a name the user gives or the canonical one).
LIKELY_NAMES = {
    "query_id": ("query_id", "qid", "query", "queryid", "topic", "topic_id", "user_id", "user", "uid"),
    "doc_id": ("doc_id", "docno", "docid", "doc", "document", "document_id", "pid", "passage_id", "item_id",
               "item", "iid"),
    "relevance": ("relevance", "rel", "label", "grade", "judgment", "judgement", "qrel", "relevance_label",
                  "rating", "clicked", "click"),
    "score": ("score", "sim", "similarity", "prediction", "pred", "rating", "probability"),
    "run_id": ("run_id", "run", "runid", "system", "tag", "model"),
}


def _likely_column(canonical: str, columns: list[str], taken: set[str]) -> str | None:
    """The input's column that a usual name for ``canonical`` matches (case, spaces, '-', '_' aside)."""
    def plain(name: str) -> str:
        return "".join(ch for ch in name.lower() if ch not in " -_")
    by_plain = {plain(c): c for c in reversed(columns)}  # the first of columns that read alike
    for name in LIKELY_NAMES.get(canonical, (canonical,)):
        found = by_plain.get(plain(name))
        if found is not None and found not in taken:
            return found
    return None


def missing_columns_message(label: str, kind: str, missing: list[tuple[str, str]], columns: list[str]) -> str:
    """Every column a mapping names that the input lacks, the columns it has, and how to map them:
    one mapping to paste, with the input's columns that look meant (NAME where none does)."""
    names = ", ".join(repr(actual) if actual == canonical else f"{actual!r} (for {canonical})"
                      for canonical, actual in missing)
    hints = []
    unmapped = [canonical for canonical, actual in missing if actual == canonical]
    if len(columns) == 1 and any(sep in columns[0] for sep in ";|\t"):
        sep = next(sep for sep in ";\t|" if sep in columns[0])
        shown = "tabs" if sep == "\t" else repr(sep)
        fix = (f"name the format with --{kind}-format tsv ({kind}_format='tsv' in Python)" if sep == "\t" else
               "save it with commas, or as Parquet")
        hints.append(f"its header reads as one column: the file looks separated by {shown}, and CSV files are read "
                     f"with commas (TSV with tabs); {fix}")
    elif unmapped:
        taken = {actual for canonical, actual in missing if actual != canonical}
        guesses = {}
        for canonical in unmapped:
            guesses[canonical] = _likely_column(canonical, columns, taken) or "NAME"
            taken.add(guesses[canonical])
        pairs = ",".join(f"{canonical}={guess}" for canonical, guess in guesses.items())
        python = ", ".join(f"{canonical!r}: {guess!r}" for canonical, guess in guesses.items())
        case = any(guess != "NAME" and guess.lower() == canonical.lower() for canonical, guess in guesses.items())
        hints.append(("column names are case-sensitive: " if case else "")
                     + f"map {'it' if len(unmapped) == 1 else 'them'} with --{kind}-columns {pairs} "
                     f"({kind}_columns={{{python}}} in Python)")
    for canonical, actual in missing:
        if actual == canonical:
            continue
        close = [c for c in columns if c.lower() == actual.lower()]
        hint = f"; did you mean {close[0]!r}? Column names are case-sensitive" if close else ""
        hints.append(f"check the mapping {canonical}={actual}{hint}")
    if kind == "qrels" and "relevance" in dict(missing) and len(columns) > 1:
        hints.append("or relevance= for implicit feedback: every listed pair is relevant")
    return (f"{label}: no column{'s' if len(missing) > 1 else ''} {names} (columns: {', '.join(columns) or 'none'}); "
            + "; ".join(hints))
