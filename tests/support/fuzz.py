"""Fuzz the parsers with hypothesis: measure names and TREC run/qrels text.

A finding is any exception other than sqlrank's documented errors (SqlrankError subclasses:
MeasureError, ConventionError, InputError, OptionError), or a measure whose printed name does
not parse back to itself. Run it for a few minutes:

    python tests/support/fuzz.py --minutes 3

tests/peers/test_fuzz.py runs the same targets briefly in every test run.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import duckdb
from hypothesis import HealthCheck, given, settings, strategies as st

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import sqlrank  # noqa: E402
from sqlrank.errors import SqlrankError  # noqa: E402

PIECES = ["nDCG", "AP", "P", "R", "RR", "map", "ndcg_cut", "P_", "recall.", "@", "(", ")", "=", ",", ".", "rel",
          "gain", "exponential", "{1:3}", "1=3", "tie_break", "doc_id_asc", "0", "10", "-1", "1e9", "0.5", "nan",
          "inf", " ", "\t", ";", "'", '"', "--", "/*", "DROP TABLE x", "\\", "é", "\x00", "Bpref", "RBP", "p=0.8",
          "judged_only", "True", "depth", "ideal", "perfect", "log_base", "e", "Rprec_mult", "iprec_at_recall"]
MEASURE_TEXT = st.one_of(st.text(max_size=40),
                         st.lists(st.sampled_from(PIECES), max_size=8).map("".join))
LINE_PIECES = ["301", "Q0", "0", "doc-1", "1", "2.5", "-3", "1e308", "nan", "inf", "x", "", " ", "\t", "  ", "#",
               "\r", "é", "\x0b", "\x0c", "99999999999999999999", "0x10", "+1", "1.0", "-0"]
LINE = st.lists(st.sampled_from(LINE_PIECES), max_size=8).map(" ".join)
TEXT_FILE = st.one_of(st.lists(LINE, max_size=12).map("\n".join), st.binary(max_size=200).map(
    lambda b: b.decode("utf-8", "replace")))


def check_measure_name(text: str) -> None:
    try:
        measures = sqlrank.parse_measures(text)
    except SqlrankError:
        return
    for m in measures:
        again = sqlrank.parse_measures(str(m))
        assert len(again) == 1 and again[0] == m, (text, str(m), again)


def check_trec_files(qrels_text: str, run_text: str, folder: str, con) -> None:
    qrels, run = os.path.join(folder, "qrels.txt"), os.path.join(folder, "run.txt")
    for path, text in ((qrels, qrels_text), (run, run_text)):
        with open(path, "w", encoding="utf-8", errors="surrogatepass") as handle:
            handle.write(text)
    try:
        sqlrank.evaluate(qrels, run, "P@5 AP nDCG@10", per_query=True, connection=con)
    except SqlrankError:
        return


def run(minutes: float) -> int:
    deadline = time.monotonic() + minutes * 60
    folder = tempfile.mkdtemp(prefix="sqlrank-fuzz-")
    con = duckdb.connect()
    cases = {"measure names": 0, "TREC files": 0}

    @settings(max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(MEASURE_TEXT)
    def names(text):
        if time.monotonic() > deadline:
            return
        cases["measure names"] += 1
        check_measure_name(text)

    @settings(max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(TEXT_FILE, TEXT_FILE)
    def files(qrels_text, run_text):
        if time.monotonic() > deadline:
            return
        cases["TREC files"] += 1
        check_trec_files(qrels_text, run_text, folder, con)

    half = deadline
    deadline = time.monotonic() + (half - time.monotonic()) / 2
    _until(names, deadline)
    deadline = half
    _until(files, deadline)
    print(f"fuzzed {cases['measure names']} measure names and {cases['TREC files']} pairs of TREC files in "
          f"{minutes:g} minutes: no crash other than sqlrank's documented errors")
    return 0


def _until(test, deadline: float) -> None:
    while time.monotonic() < deadline:
        test()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0)
    sys.exit(run(parser.parse_args().minutes))
