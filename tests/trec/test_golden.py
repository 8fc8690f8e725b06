"""Worked examples published in explanations of the measures (fixtures/golden/<case>/), each value derived in derive.py."""
from __future__ import annotations

import csv

import pytest

import sqlrank
from conftest import FIXTURES, close

CASES = sorted(p for p in (FIXTURES / "golden").iterdir() if p.is_dir())


def read_expected(case):
    with open(case / "expected.tsv", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_case(case):
    expected = read_expected(case)
    assert expected, f"{case} has no expected values"
    measures = sorted({row["measure"] for row in expected})
    per_query = sqlrank.evaluate(case / "qrels.txt", case / "run.txt", measures, per_query=True)
    summary = sqlrank.evaluate(case / "qrels.txt", case / "run.txt", measures)
    for row in expected:
        if row["query_id"] == "all":
            got = summary.loc[summary.measure == row["measure"], "value"]
        else:
            got = per_query.loc[(per_query.measure == row["measure"]) & (per_query.query_id == row["query_id"]),
                                "value"]
        assert len(got) == 1, f"{case.name}: no value for {row['measure']} of {row['query_id']}"
        value = float(got.iloc[0])
        assert close(value, float(row["value"])), f"{case.name} {row}: got {value!r}"
        # The source's printed number is the exact value rounded to its decimals.
        half_unit = 0.5 * 10 ** -int(row["decimals"]) + 1e-12
        assert abs(value - float(row["printed_value"])) <= half_unit, f"{case.name} {row}: printed rounding"


def test_every_case_is_documented():
    for case in CASES:
        assert (case / "NOTE.md").read_text().startswith("Source:"), case
