"""A comparison computed in the warehouse, completed here: the table of dbt's NAME_comparison model (per run and
measure, the paired per-query differences from the baseline run: their number, mean, standard deviation, t
statistic and degrees of freedom) read where it is, and what compare's paired t-test adds to those: the two-sided
p-value of Student's t (statistics/student.py), the p-value adjusted over all comparisons, the 95% confidence interval
of the mean difference and the effect size d_z (mean over standard deviation). ``sqlrank compare --paired-t TABLE``.
"""
from __future__ import annotations

import math
from typing import Any

from ..errors import InputError
from ..results.formats import aligned_lines
from ..statistics import student
from ..statistics.significance import adjust

COLUMNS = ("run_id", "baseline", "measure", "queries", "mean_difference", "sd_difference", "t_statistic",
           "degrees_of_freedom")


def read(table: str, engine: str = "duckdb", dsn: str | None = None) -> list[dict]:
    """The rows of TABLE ([schema.]table, or on DuckDB a Parquet or CSV file) in the database ``dsn`` of ``engine``
    (DuckDB: a database file, opened read-only; PostgreSQL: its URL; SQLite: its file)."""
    from ..rendering.dialects import DIALECTS
    from ..inputs.locate import table_parts

    dialect = DIALECTS[engine]
    if engine == "duckdb" and dsn is None:  # a file
        source = "read_parquet(?)" if table.endswith(".parquet") else "read_csv(?)"
        return _duckdb_rows(None, f"SELECT {', '.join(COLUMNS)} FROM {source}", [table], table)
    name = ".".join(dialect.ident(part) for part in table_parts(table))
    sql = f"SELECT {', '.join(dialect.ident(column) for column in COLUMNS)} FROM {name}"
    if engine == "duckdb":
        return _duckdb_rows(dsn, sql, [], table)
    if engine == "postgres":
        from ..engines.postgres import PostgresEngine, connect
        found = PostgresEngine(connect(dsn))
    elif engine == "sqlite":
        from ..engines.sqlite import SqliteEngine, connect
        found = SqliteEngine(connect(dsn), owned=True)
    else:
        raise InputError(f"--paired-t reads a table of a database: --engine duckdb (--dsn FILE.duckdb, or a Parquet "
                         f"or CSV file), postgres or sqlite (--dsn), not {engine}, whose tables live in this process")
    try:
        rows = found.rows(sql)
    finally:
        found.close()
    return [dict(zip(COLUMNS, row)) for row in rows.rows]


def _duckdb_rows(database: str | None, sql: str, parameters: list, table: str) -> list[dict]:
    import duckdb

    from ..engines.duckdb import OFFLINE
    from ..errors import duckdb_reason

    try:
        with duckdb.connect(database or ":memory:", read_only=database is not None, config=OFFLINE) as con:
            return [dict(zip(COLUMNS, row)) for row in con.execute(sql, parameters).fetchall()]
    except duckdb.Error as exc:
        where = f" in {database}" if database else ""
        raise InputError(f"{table}{where}: cannot read the comparison ({', '.join(COLUMNS)}): "
                         f"{duckdb_reason(exc)}") from None


def completed(rows: list[dict], measures: list[str] | None = None, correction: str = "none") -> list[dict]:
    """ROWS (of MEASURES, in their order, where given) with p, p adj., the 95% interval of the mean difference and
    d_z; a row whose standard deviation is 0 (every difference the same) has no t, and no p."""
    if measures is not None:  # named as the evaluation asked them, in any case
        wanted = [m.lower() for m in measures]
        missing = [m for m in measures if m.lower() not in {str(row["measure"]).lower() for row in rows}]
        if missing:
            raise InputError(f"the comparison table has no rows of {', '.join(missing)} (it has "
                             f"{', '.join(sorted({str(row['measure']) for row in rows}))})")
        rows = sorted((row for row in rows if str(row["measure"]).lower() in wanted),
                      key=lambda row: (wanted.index(str(row["measure"]).lower()), str(row["run_id"])))
    out = []
    for row in rows:
        n, mean, sd = int(row["queries"]), _number(row["mean_difference"]), _number(row["sd_difference"])
        t, df = _number(row["t_statistic"]), _number(row["degrees_of_freedom"])
        half = student.quantile(0.975, df) * sd / math.sqrt(n) if n > 1 else math.nan
        out.append({**row, "p": student.two_sided(t, df), "ci_low": mean - half, "ci_high": mean + half,
                    "effect": mean / sd if sd else math.nan})
    valued = [i for i, row in enumerate(out) if not math.isnan(row["p"])]
    for i, p in zip(valued, adjust([out[i]["p"] for i in valued], correction)):
        out[i]["p_adjusted"] = p
    return [row | {"p_adjusted": row.get("p_adjusted", math.nan)} for row in out]


def _number(value: Any) -> float:
    return math.nan if value is None else float(value)


def text(rows: list[dict], correction: str) -> str:
    """The completed rows as compare prints its table (runs against the baseline, per measure)."""
    header = ("measure", "run", "delta", "queries", "t", "df", "p", "p adj.", "95% CI of delta", "effect")
    lines = []
    for row in rows:
        stars = "**" if row["p_adjusted"] < 0.01 else "*" if row["p_adjusted"] < 0.05 else ""
        lines.append((str(row["measure"]), str(row["run_id"]), f"{row['mean_difference']:+.4f}", str(row["queries"]),
                      _fixed(row["t_statistic"], 3), str(row["degrees_of_freedom"]), _fixed(row["p"], 4),
                      _fixed(row["p_adjusted"], 4) + stars, f"[{row['ci_low']:+.4f}, {row['ci_high']:+.4f}]",
                      _fixed(row["effect"], 2)))
    body = "\n".join(aligned_lines(list(header), [list(cells) for cells in lines], left=2))
    from .comparison_text import CORRECTION_NAMES

    baseline = ", ".join(sorted({str(row["baseline"]) for row in rows}))
    return (f"{body}\n\nbaseline: {baseline}; the per-query differences computed in the warehouse\n"
            f"test: paired t-test, two-sided; p adj.: {CORRECTION_NAMES[correction]} over {len(rows)} comparisons; "
            f"* p adj. < 0.05, ** p adj. < 0.01\n")


def _fixed(value: Any, digits: int) -> str:
    return "-" if value is None or math.isnan(float(value)) else f"{float(value):.{digits}f}"
