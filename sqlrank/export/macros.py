"""Macros: sqlrank's measures as DuckDB table macros, callable from plain SQL.

``sqlrank install DB_FILE`` (``sqlrank.install(connection)``) creates, in a schema ``sqlrank``:

- ``sqlrank.evaluate(qrels, run, measures)``: the mean of each measure (``measure, value``), and
  ``sqlrank.evaluate_per_query(qrels, run, measures)`` (``query_id, measure, value``), for the
  installed catalogue of measures (trec_eval's usual cutoffs, plus any given with -m);
- one macro per family with the cutoff as a parameter, per query (``query_id, measure, value``):
  ``sqlrank.ndcg(qrels, run, k)``, ``sqlrank.p(qrels, run, k)``, ``sqlrank.ap(qrels, run)``, ...

``qrels`` and ``run`` are names of tables or views (a view over Parquet files works), read with
DuckDB's ``query_table``; their columns are query_id, doc_id, relevance and query_id, doc_id,
score, or others named by the parameters query_column, doc_column, relevance_column and
score_column (DuckDB's COLUMNS(name)). Measures may be named as the command line names them
(recip_rank, P_10). Every macro body is the statement ``sqlrank sql`` prints for that measure, with the
installing conventions; a family macro is rendered once with a placeholder cutoff that becomes
the parameter ``k``.
"""
from __future__ import annotations

import os
import re
import warnings
from typing import Any

import duckdb

from ..engines.duckdb import OFFLINE
from ..errors import InputError, OptionError, SqlrankWarning, duckdb_reason
from ..measures.conventions import resolve_conventions
from ..measures.measure import Measure
from ..measures.names import trec_name
from ..measures.registry import REGISTRY
from ..measures.resolve import resolve_measures
from ..rendering.dialects import DUCKDB
from ..rendering.sqltext import call_macro, environment
from ..rendering.statement import render_evaluation
from ..version import __version__

SCHEMA = "sqlrank"
_PLACEHOLDER = 987654321  # a cutoff no one asks for, replaced by the macro parameter k
# macro name -> (family, has a cutoff parameter), from the registry
FAMILY_MACROS = {name: (family.name, cutoff) for family in REGISTRY for name, cutoff in family.macros}
CUTOFFS = (1, 3, 5, 10, 15, 20, 30, 100, 200, 500, 1000)
CATALOGUE = ([f"{family}@{k}" for family in ("P", "R", "nDCG", "Success") for k in CUTOFFS]
             + [f"AP@{k}" for k in (10, 100, 1000)] + [f"RR@{k}" for k in (10, 100)] + ["Unj@10"]
             + ["AP", "GMAP", "RR", "nDCG", "Rprec", "Bpref", "infAP", "NumQ", "NumRel", "NumRet", "NumRelRet"])


# The macros' optional parameters naming the inputs' columns: the same names in both tables, or a table's own.
COLUMN_PARAMETERS = ("query_column := 'query_id', doc_column := 'doc_id', relevance_column := 'relevance', "
                     "score_column := 'score', qrels_query_column := NULL, qrels_doc_column := NULL, "
                     "run_query_column := NULL, run_doc_column := NULL")
# evaluate's macros: one per installed measure, named by the evaluate macro and the measure ("evaluate:nDCG@10")
OUTPUTS = (("evaluate", "summary"), ("evaluate_per_query", "per_query"))


def _statement(measures: list[Measure], conventions, output: str) -> str:
    """The statement of MEASURES on the macro's two inputs (sql/macro_inputs.sql), without its comment lines."""
    qrels, run = call_macro(DUCKDB, "macro_inputs.sql", "qrels"), call_macro(DUCKDB, "macro_inputs.sql", "run")
    body = render_evaluation(qrels, run, measures, conventions, output, dialect=DUCKDB).strip()
    return "\n".join(line for line in body.splitlines() if not line.startswith("-- "))


def _with_cutoff_parameter(sql: str) -> str:
    """The placeholder cutoff becomes the parameter k: in names ('P@' || k) and in numbers. The statement is
    cut into its string literals and the code between them first, so that a quote is never paired with the
    wrong one."""
    placeholder = str(_PLACEHOLDER)
    parts = re.split(r"('(?:[^']|'')*')", sql)  # odd positions: the string literals
    for at, part in enumerate(parts):
        if at % 2:
            if placeholder in part:
                parts[at] = part.replace(placeholder, "' || CAST(k AS VARCHAR) || '")
        else:
            part = re.sub(r"(?<![0-9A-Za-z_])" + placeholder + r"(?![0-9])", "k", part)
            parts[at] = part.replace(f"_{placeholder}", "_k")
    return "".join(parts)


def catalogue(measures: Any = None, **conventions: Any) -> list[Measure]:
    """The measures the evaluate macros take: trec_eval's usual ones and MEASURES, resolved under CONVENTIONS."""
    return resolve_measures(CATALOGUE + list(_names(measures)), resolve_conventions(**conventions))


def install_statements(measures: Any = None, schema: str = SCHEMA, **conventions: Any) -> list[str]:
    """The CREATE statements of ``install``: readable SQL that can also be run by hand."""
    resolved = resolve_conventions(**conventions)
    name = DUCKDB.ident(schema)
    statements = [f"CREATE SCHEMA IF NOT EXISTS {name}"]
    for macro, (family, has_cutoff) in FAMILY_MACROS.items():
        measure = Measure(family, _PLACEHOLDER if has_cutoff else None, {})
        body = _statement(resolve_measures([measure], resolved), resolved, "per_query")
        params = ("qrels, run, k" if has_cutoff else "qrels, run") + ", " + COLUMN_PARAMETERS
        statements.append(f"CREATE OR REPLACE MACRO {name}.{DUCKDB.ident(macro)}({params}) AS TABLE\n"
                          f"{_with_cutoff_parameter(body) if has_cutoff else body}")
    measured = catalogue(measures, **conventions)
    spellings = [(spelling, str(measure)) for measure in measured for spelling in _spellings(measure)]
    template = environment(DUCKDB).get_template("macro_evaluate.sql").module
    for macro, output in OUTPUTS:
        for measure in measured:
            statements.append(f"CREATE OR REPLACE MACRO {name}.{DUCKDB.ident(f'{macro}:{measure}')}(qrels, run, "
                              f"{COLUMN_PARAMETERS}) AS TABLE\n{_statement([measure], resolved, output)}")
        macros = [f"{name}.{DUCKDB.ident(f'{macro}:{of}')}" for _, of in spellings]
        body = template.body(schema, [spelling for spelling, _ in spellings], macros, output == "per_query")
        statements.append(f"CREATE OR REPLACE MACRO {name}.{DUCKDB.ident(macro)}(qrels, run, measures, "
                          f"{COLUMN_PARAMETERS}) AS TABLE\n{body}")
    known = "[" + ", ".join(DUCKDB.literal(str(m)) for m in measured) + "]"
    statements.append(f"CREATE OR REPLACE MACRO {name}.measures() AS TABLE\n"
                      f"SELECT unnest({known}) AS measure")
    mark = DUCKDB.literal(f"{MARKER} {__version__}")
    return statements + [f"COMMENT ON MACRO TABLE {name}.{DUCKDB.ident(macro)} IS {mark}"
                         for macro in macro_names(measured)]


def _spellings(measure: Measure) -> list[str]:
    """The names the macros accept for an installed measure, in lower case (matched in any case, as the command
    line matches them): sqlrank's, its family's other spellings (MRR, hit_rate@10) and trec_eval's (recip_rank, map,
    ndcg_cut.10, P_10)."""
    names = [str(measure)]
    if measure.params == ():
        cut = f"@{measure.cutoff}" if measure.cutoff is not None else ""
        names += [alias + cut for alias in measure.spec.aliases]
        trec = trec_name(measure)
        if trec is not None:
            dotted = [trec.rsplit("_", 1)[0] + "." + trec.rsplit("_", 1)[1]] if measure.cutoff is not None else []
            names += [trec, *dotted]
    return list(dict.fromkeys(name.lower() for name in names))


def column_alias(measure: Measure) -> str:
    return "m_" + re.sub(r"[^A-Za-z0-9]+", "_", str(measure)).strip("_")


def _names(measures: Any) -> list:
    if measures is None:
        return []
    from ..measures.names import parse_measures
    return parse_measures(measures)


MARKER = "created by sqlrank install"  # each macro's comment: a macro without it is the user's


def macro_names(measured: list[Measure] = ()) -> list[str]:
    """The macros install creates: the families', evaluate's, and one per measure of MEASURED for each evaluate."""
    return (list(FAMILY_MACROS) + ["evaluate", "evaluate_per_query", "measures"]
            + [f"{macro}:{measure}" for macro, _ in OUTPUTS for measure in measured])


def foreign_macros(connection: duckdb.DuckDBPyConnection, schema: str, names: list[str]) -> list[tuple[str, str]]:
    """The macros of SCHEMA with the NAMES of sqlrank's that sqlrank did not create: (name, MACRO or MACRO TABLE)."""
    rows = connection.execute("SELECT DISTINCT function_name, function_type FROM duckdb_functions() "
                              "WHERE schema_name = ? AND list_contains(?, function_name) "
                              "AND coalesce(comment, '') NOT LIKE ? ORDER BY ALL",
                              [schema, names, MARKER + "%"]).fetchall()
    return [(name, "MACRO TABLE" if kind == "table_macro" else "MACRO") for name, kind in rows]


def install(connection: duckdb.DuckDBPyConnection, measures: Any = None, schema: str = SCHEMA, force: bool = False,
            **conventions: Any) -> list[str]:
    """Create the macros in ``connection`` (a database file keeps them); returns their names. A function
    of the same name that sqlrank did not create is refused, named, unless ``force`` (then replaced)."""
    if not isinstance(schema, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", schema):
        raise OptionError(f"schema {schema!r} must be a plain name (letters, digits, _)")
    names = macro_names(catalogue(measures, **conventions))
    try:
        found = foreign_macros(connection, schema, names)
        foreign = list(dict.fromkeys(f"{schema}.{name}" for name, _ in found))
        if foreign and not force:
            exists, was, it = ("exists", "was", "it") if len(foreign) == 1 else ("exist", "were", "them")
            raise InputError(f"{', '.join(foreign)} {exists} and {was} not created by sqlrank install; nothing was "
                             f"changed (use another schema, or --force (force=True) to replace {it})")
        for name, kind in found:  # a scalar macro of the same name would stay beside the table macro
            connection.execute(f"DROP {kind} {DUCKDB.ident(schema)}.{DUCKDB.ident(name)}")
        _drop_measures_not_kept(connection, schema, names)
        for statement in install_statements(measures, schema, **conventions):
            connection.execute(statement)
        if foreign:
            warnings.warn(f"replaced {', '.join(foreign)}, which sqlrank install had not created (--force)",
                          SqlrankWarning, stacklevel=2)
    except duckdb.Error as exc:
        raise InputError(f"cannot create the macros: {duckdb_reason(exc, spill=False)}") from None
    return [f"{schema}.{m}" for m in macro_names()]


def _drop_measures_not_kept(connection: duckdb.DuckDBPyConnection, schema: str, names: list[str]) -> None:
    """An earlier install's macros of measures this one does not install (its -m measures), dropped: evaluate would
    not name them."""
    rows = connection.execute("SELECT DISTINCT function_name FROM duckdb_functions() WHERE schema_name = ? "
                              "AND (function_name LIKE 'evaluate:%' OR function_name LIKE 'evaluate_per_query:%') "
                              "AND NOT list_contains(?, function_name) AND coalesce(comment, '') LIKE ?",
                              [schema, names, MARKER + "%"]).fetchall()
    for (name,) in rows:
        connection.execute(f"DROP MACRO TABLE {DUCKDB.ident(schema)}.{DUCKDB.ident(name)}")


def install_file(path: str, measures: Any = None, schema: str = SCHEMA, force: bool = False,
                 **conventions: Any) -> list[str]:
    """Install into a DuckDB database file (made if absent, in DuckDB 1.0's storage format so that
    any DuckDB shell from 1.0 on opens it). A file that is not a DuckDB database (CSV, Parquet, ...)
    is refused: DuckDB would open it read-only and the macros would vanish with the connection."""
    if os.path.isdir(path):
        raise InputError(f"{path}: is a folder; give a DuckDB database file (made if absent)")
    if os.path.exists(path):
        with open(path, "rb") as handle:
            head = handle.read(12)
        if os.path.getsize(path) and head[8:12] != b"DUCK":
            raise InputError(f"{path}: is not a DuckDB database file (a data file?); give a .duckdb file to store the "
                             f"macros in (made if absent)")
    try:
        con = duckdb.connect(path, config={"storage_compatibility_version": "v1.0.0", **OFFLINE})
    except duckdb.Error as exc:
        raise InputError(f"{path}: cannot open it as a DuckDB database: {duckdb_reason(exc)}") from None
    try:
        return install(con, measures, schema, force, **conventions)
    finally:
        con.close()
