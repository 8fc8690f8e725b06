"""A short run of the parser fuzzers of tests/support/fuzz.py (python tests/support/fuzz.py --minutes 3 runs
them longer): measure names and TREC files give a result or sqlrank's documented errors."""
from __future__ import annotations

import duckdb
import pytest

from conftest import peer

hypothesis = peer("hypothesis")
from support import fuzz  # noqa: E402


@hypothesis.settings(max_examples=400, deadline=None, derandomize=True)
@hypothesis.given(fuzz.MEASURE_TEXT)
def test_measure_names_parse_or_fail_cleanly(text):
    fuzz.check_measure_name(text)


@pytest.fixture(scope="module")
def con():
    connection = duckdb.connect()
    yield connection
    connection.close()


@hypothesis.settings(max_examples=150, deadline=None, derandomize=True,
                     suppress_health_check=list(hypothesis.HealthCheck))
@hypothesis.given(fuzz.TEXT_FILE, fuzz.TEXT_FILE)
def test_trec_files_evaluate_or_fail_cleanly(con, tmp_path, qrels_text, run_text):
    fuzz.check_trec_files(qrels_text, run_text, str(tmp_path), con)
