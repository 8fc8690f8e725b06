"""The registry is the one place a measure family is described: its template is found from its
name, declares the steps the registry says it reads, and docs/measures.md's table and `sqlrank measures`
are printed from it."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

import sqlrank
from conftest import ROOT
from sqlrank.measures.listing import listing, markdown_table
from sqlrank.measures.registry import FAMILIES, REGISTRY
from sqlrank.measures.family import FAMILY_STEPS, STEPS
from sqlrank.rendering.dialects import DUCKDB
from sqlrank.rendering.sqltext import environment

SQL = ROOT / "sql"


def macros(family) -> set[str]:
    """The step macros a family's template defines (sql/measures/<name>.sql)."""
    module = environment(DUCKDB).get_template(family.template).module
    return {name for name in ("judgments", "judged", "ranked", "tie", "running", "retrieved", "ideal", "perfect",
                              "value", *FAMILY_STEPS) if callable(getattr(module, name, None))}


def test_every_family_has_its_template_and_every_template_a_family():
    files = {path.stem for path in (SQL / "measures").glob("*.sql")}
    assert files == set(FAMILIES)
    assert len(REGISTRY) == len(FAMILIES)  # no name twice


@pytest.mark.parametrize("family", REGISTRY, ids=lambda f: f.name)
def test_the_template_declares_the_steps_the_registry_says_it_reads(family):
    defined = macros(family)
    assert "value" in defined
    assert ("judgments" in defined) == bool(family.reads & {"judgments", "judgments_in_ranking"})
    assert ("ideal" in defined) == ("ideal" in family.reads)
    for step in FAMILY_STEPS:
        assert (step in defined) == (step in family.reads), step
    assert family.reads <= set(STEPS)


@pytest.mark.parametrize("family", REGISTRY, ids=lambda f: f.name)
def test_tie_break_expected_is_refused_exactly_where_the_registry_says(family):
    k = {"rank": 10, "fraction": 0.5, "multiple": 1.0}[family.cutoff_kind]
    measure = sqlrank.Measure(family.name, None if family.cutoff == "none" else k)
    if family.tie_expected:  # renders (with tie groups where the value depends on the order)
        sqlrank.render(ROOT / "fixtures/demo/qrels.test", ROOT / "fixtures/demo/results.test", [measure],
                       tie_break="expected")
    else:
        with pytest.raises(sqlrank.MeasureError, match="tie_break=expected is not available"):
            sqlrank.render(ROOT / "fixtures/demo/qrels.test", ROOT / "fixtures/demo/results.test", [measure],
                           tie_break="expected")


def test_aliases_and_trec_names_parse_to_their_family():
    for family in REGISTRY:
        for alias in family.aliases:
            assert sqlrank.parse_measures(alias + ("@10" if family.cutoff == "required" else ""))[0].family == family.name
        for trec in family.trec:
            name = trec.name + (".10" if trec.kind == "cut" and family.cutoff_kind == "rank" else
                                ".0.5" if trec.kind == "cut" else "")
            assert {m.family for m in sqlrank.parse_measures(name)} == {family.name}, name


def test_the_docs_table_is_the_registrys():
    page = (ROOT / "docs" / "measures.md").read_text(encoding="utf-8")
    shown = re.search(r"<!-- measures: .*?-->\n(.*?)<!-- end of measures -->", page, re.S).group(1)
    assert shown == markdown_table(), "docs/measures.md's table is stale: paste `sqlrank measures -f markdown`"


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "json"])
def test_sqlrank_measures_lists_every_family(fmt):
    done = subprocess.run([sys.executable, "-m", "sqlrank", "measures", "-f", fmt], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    for row in listing():
        assert row["measure"].split(", ")[0] in done.stdout
    if fmt == "markdown":
        assert done.stdout == markdown_table()


def test_every_convention_is_a_measure_parameter_but_those_of_a_whole_evaluation():
    from sqlrank.measures.conventions import EVALUATION_FIELDS, FIELD_NAMES
    from sqlrank.measures.params import CONVENTION_PARAMS
    from sqlrank.measures.registry import FAMILIES
    assert set(CONVENTION_PARAMS) == set(FIELD_NAMES) - set(EVALUATION_FIELDS)
    for family in FAMILIES.values():  # the ranking and query-set conventions, every family
        assert {"tie_break", "judged_only", "depth", "nonpositive_scores", "missing_queries",
                "unjudged_queries"} <= set(family.params), family.name


def test_a_registry_entry_s_mistake_stops_the_import():
    import pytest

    from sqlrank.measures.family import Family
    with pytest.raises(ValueError, match="registry entry X: unknown aggregate 'median'"):
        Family("X", "a family", aggregate="median")
