"""Every measure renders and binds (EXPLAIN) in DuckDB under every convention, and the
rendered SQL keeps to the portable subset."""
from __future__ import annotations

import pathlib
import re

import duckdb
import pytest

from sqlrank.measures.conventions import resolve_conventions
from sqlrank.measures.resolve import resolve_measures
from support.cases import all_measures
from support.tiers import covering, pairwise_first, tiered
from sqlrank.rendering.dialects import DUCKDB
from sqlrank.rendering.statement import render_evaluation

QRELS = "SELECT query_id, doc_id, relevance FROM qrels_table"
RUN = "SELECT query_id, doc_id, score FROM run_table"


# Every combination of five conventions; the default tier binds those that hold every pair of their values.
LEVELS = (["skip", "zero"], [False, True], [None, 5], [1, 0], [10, 9])
CONVENTIONS = tiered([dict(zip(("missing_queries", "judged_only", "depth", "rel", "trec_eval_version"), combo))
                      for combo in pairwise_first(LEVELS)], covering(LEVELS))


@pytest.fixture(scope="module")
def con():
    con = duckdb.connect()
    con.execute("CREATE TABLE qrels_table (query_id VARCHAR, doc_id VARCHAR, relevance INTEGER)")
    con.execute("CREATE TABLE run_table (query_id VARCHAR, doc_id VARCHAR, score DOUBLE)")
    return con


@pytest.mark.parametrize("conventions", CONVENTIONS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
@pytest.mark.parametrize("output", ["summary", "per_query", "both"])
def test_every_measure_binds(con, conventions, output):
    resolved = resolve_conventions(**conventions)
    measures = resolve_measures(all_measures(conventions["depth"]), resolved)
    sql = render_evaluation(QRELS, RUN, measures, resolved, output, dialect=DUCKDB)
    con.execute(f"EXPLAIN {sql}")


@pytest.mark.parametrize("output", ["summary", "per_query", "both"])
def test_each_measure_binds_alone(con, output):
    resolved = resolve_conventions(depth=5)
    for m in resolve_measures(all_measures(depth=5), resolved):
        con.execute(f"EXPLAIN {render_evaluation(QRELS, RUN, [m], resolved, output, dialect=DUCKDB)}")


def test_portable_subset(con):
    resolved = resolve_conventions()
    sql = render_evaluation(QRELS, RUN, resolve_measures(all_measures(), resolved), resolved, "summary", dialect=DUCKDB)
    body = sql.split("evaluated_queries AS", 1)[1]  # after the (DuckDB-specific) input readers
    body = re.sub(r"'[^']*'", "'text'", body)
    body = re.sub(r"CAST\(-?\d+(\.\d+)?(e-?\d+)? AS DOUBLE\)", "CAST(number AS DOUBLE)", body)
    # dialect.sum_in_rank_order's DuckDB form (a sorted list of the rows' terms) is DuckDB's own; others get a SUM
    body = re.sub(r"list\(\{'text': (ranked\.)?rank,\s+'text': [^}]*\}\) FILTER \(", "list(", body)
    # and precision_sum_in_rank_order's (a sorted list of the ranks): others get a SUM of a running count
    body = re.sub(r"list\(rank\) FILTER \(", "list(", body)
    for pattern in (r"::", r"\bFILTER\s*\(", r"\bQUALIFY\b", r"//", r"\bLOG\(", r"\d+\.\d+"):
        assert not re.search(pattern, body), pattern
    for order_by in re.findall(r"ORDER BY [^)]*", body):
        # rank, position, distinct query ids, depths (Compat's, one row per query and depth), samples (expected
        # exposure's, one row per query, document and sample), the intents' ranks and their subtopics are unique keys
        # already; in an ideal ranking, documents of equal gain are interchangeable (only the gains at each position
        # are read)
        unique = (r"ORDER BY (rank( DESC)?\b|depth( ROWS\b|$)|(per_query\.)?query_id$|gain DESC$"
                  r"|sample_id$|ideal, rank$|subtopic$)")
        if "measures.position" not in order_by and not re.match(unique, order_by):
            assert "doc_id" in order_by, order_by


@pytest.mark.parametrize("name", ["duckdb", "postgres", "spark", "bigquery", "snowflake", "trino", "clickhouse",
                                  "datafusion"])
def test_quoted_names_and_strings_read_back_as_themselves_in_every_dialect(name):
    """sqlglot, reading each dialect as that engine does (backslash escapes or not), gets back the
    exact name and string that were quoted, whatever quotes and backslashes they hold."""
    sqlglot = pytest.importorskip("sqlglot")
    from sqlrank.rendering.dialects import DIALECTS

    read = {"datafusion": "duckdb"}.get(name, name)
    for text in ['plain', 'a"b', "a'b", "a`b", "a\\b", "end\\", "\\'", 'x\\"; DROP TABLE t; --', "new\\nline"]:
        statement = f"SELECT {DIALECTS[name].literal(text)} AS {DIALECTS[name].ident(text)}"
        parsed = sqlglot.parse_one(statement, read=read)
        # Snowflake's plain lower-case name is quoted as the upper-case name it stands for unquoted
        named = text.upper() if DIALECTS[name].upper_case and text == "plain" else text
        assert parsed.expressions[0].alias == named, (name, text, statement)
        assert parsed.expressions[0].this.this == text, (name, text, statement)


def test_contributing_shows_the_err_template_as_it_is():
    """CONTRIBUTING.md walks through sql/measures/ERR.sql: its listing is the file after the opening comment."""
    root = pathlib.Path(__file__).resolve().parents[2]
    guide = (root / "CONTRIBUTING.md").read_text(encoding="utf-8")
    listing = guide.split("**2. The template** (`sql/measures/ERR.sql`", 1)[1].split("```sql\n", 1)[1].split("```", 1)[0]
    template = (root / "sql" / "measures" / "ERR.sql").read_text(encoding="utf-8").split("-#}\n", 1)[1]
    assert listing == template


def test_a_filter_on_a_constant_follows_each_dialect():
    """Compiled code is shared by the dialects' environments (and cached on disk): a filter on a constant ('sample' |
    ident) is applied when the template renders, in its dialect, not folded once when it is compiled."""
    from sqlrank.rendering.dialects import DIALECTS
    from sqlrank.rendering.sqltext import call_macro

    for name, quoted in [("duckdb", '"sample"'), ("spark", "`sample`"), ("snowflake", '"SAMPLE"'), ("postgres", '"sample"'),
                         ("bigquery", "`sample`")]:
        text = call_macro(DIALECTS[name], "_macros/inputs.sql", "first_sample", "SELECT 1")
        assert f"MIN({quoted}" in text.replace(' COLLATE "C"', "") and f"first_samples.{quoted}" in text, name
