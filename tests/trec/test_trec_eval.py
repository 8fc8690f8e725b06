"""sqlrank trec_eval prints exactly what trec_eval 10 prints: the upstream test suite's
command lines (fixtures/trec_eval/README.md), byte for byte."""
from __future__ import annotations

import io
import subprocess
import sys

import pytest

from conftest import CONFORMANCE, conformance_file
from sqlrank.trec import trec_eval
from sqlrank.cli.main import main
from sqlrank.cli.trec_eval import trec_eval_options
from sqlrank.inputs.source import GROUP_SEPARATOR

# expected output, trec_eval arguments (file names relative to the conformance folder)
COMPARISONS = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test", ["qrels.test.with-comments", "results.test"]),
    ("out.comment.test", ["qrels.comment.test", "results.comment.test"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-m", "relstring.20", "-q", "-l2", "qrels.rel_level", "results.test"]),
    ("out.test.meas_params", ["-q", "-m", "iprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3",
                              "-m", "recall.20,2000", "-m", "Rprec_mult.5.0,0.2,0.35", "-m", "utility.2,-1,0,0",
                              "-m", "11pt_avg..25,.5,.75", "-m", "ndcg.1=3,2=9,4=4.5", "-m", "ndcg_cut.10,20,23.4",
                              "-m", "success.2,5,20", "qrels.test", "results.test"]),
    ("out.test.aqZ", ["-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test", "results.test"]),
    ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.123", "results.test"]),
    ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.comments.123", "results.test"]),
    ("out.test.prefs", ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.test", "prefs.results.test"]),
    ("out.test.prefs", ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.comment.test", "prefs.results.test"]),
    ("out.test.qrels_prefs", ["-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.test", "results.test"]),
]
FILE_ARGS = {"-Z"}
OPTION_ARGS = {"-m", "-R"}


def absolute(args):
    out, previous = [], None
    for arg in args:
        is_file = (not arg.startswith("-") and previous not in OPTION_ARGS) or previous in FILE_ARGS
        out.append(str(CONFORMANCE / arg) if is_file and (CONFORMANCE / arg).exists() else arg)
        previous = arg
    return out


@pytest.mark.parametrize("expected, args", COMPARISONS, ids=[f"{e} {' '.join(a)}"[:70] for e, a in COMPARISONS])
def test_byte_for_byte(expected, args):
    wanted = conformance_file(expected).read_bytes()
    out = io.StringIO()
    trec_eval.run(trec_eval_options(absolute(args)), out)
    got = out.getvalue().encode("utf-8")
    if got != wanted:
        import difflib
        diff = difflib.unified_diff(wanted.decode().splitlines(), got.decode().splitlines(), "trec_eval", "sqlrank",
                                    lineterm="", n=0)
        pytest.fail("\n".join(list(diff)[:40]))


QRELS_COMPARISONS = [(e, a) for e, a in COMPARISONS if "prefs" not in e]


@pytest.mark.parametrize("expected, args", QRELS_COMPARISONS,
                         ids=[f"{e} {' '.join(a)}"[:70] for e, a in QRELS_COMPARISONS])
def test_byte_for_byte_in_slices(expected, args, monkeypatch):
    """Runs are evaluated in slices of queries (one per SLICE_ROWS lines, to bound memory); 400 lines
    a slice cuts the test suite's runs into 2 to 4 slices, judgment groups and -c's missing queries
    included: the output must not change."""
    monkeypatch.setattr(trec_eval, "SLICE_ROWS", 400)
    out = io.StringIO()
    trec_eval.run(trec_eval_options(absolute(args)), out)
    assert out.getvalue().encode("utf-8") == conformance_file(expected).read_bytes()


def test_slices_flag():
    out = io.StringIO()
    trec_eval.run(trec_eval_options(absolute(["--slices", "5", "-m", "all_trec", "-q", "qrels.test",
                                              "results.test"])), out)
    assert out.getvalue().encode("utf-8") == conformance_file("out.test.aq").read_bytes()
    with pytest.raises(Exception, match="slices 0 must be a whole number"):
        trec_eval.run(trec_eval_options(absolute(["--slices", "0", "qrels.test", "results.test"])), io.StringIO())
    from sqlrank.cli.trec_eval import trec_eval_parser

    help_text = " ".join(trec_eval_parser().format_help().split())
    assert f"one group per {trec_eval.SLICE_ROWS / 1e6:g} million run lines" in help_text  # the help says the default


def test_output_file(tmp_path):
    target = tmp_path / "out.txt"
    assert main(["trec_eval", "-o", str(target), *absolute(["qrels.test", "results.test"])]) == 0
    assert target.read_bytes() == conformance_file("out.test").read_bytes()


def test_engine_flags_leave_the_output_unchanged():
    args = ["-m", "all_trec", "-q", "--memory-limit", "200MB", "--threads", "1", "qrels.test", "results.test"]
    out = io.StringIO()
    trec_eval.run(trec_eval_options(absolute(args)), out)
    assert out.getvalue().encode("utf-8") == conformance_file("out.test.aq").read_bytes()


def test_run_from_standard_input():
    qrels, run = conformance_file("qrels.test"), conformance_file("results.test")
    proc = subprocess.run([sys.executable, "-m", "sqlrank", "trec_eval", str(qrels), "-"], input=run.read_bytes(),
                          capture_output=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == conformance_file("out.test").read_bytes()


@pytest.mark.parametrize("files, args, fragments", [
    ({"q": "1 0 a 1\n2 0 b 1\n", "r": "1 Q0 a 1 1 t\n"}, [], ["1 qrels queries have no results", "'2'", "-c"]),
    ({"q": "1 0 a 1\n", "r": "1 Q0 a 1 1 t\n1 Q0 a 2 0.5 t\n"}, [], ["r:1:", "'a' is ranked 2 times"]),
    ({"q": "1 0 a 1\n1 0 a 0\n", "r": "1 Q0 a 1 1 t\n"}, [], ["q:1:", "judged 2 times", "again at q:2"]),
    ({"q": "1 0 a\n", "r": "1 Q0 a 1 1 t\n"}, [], ["q:1:", "malformed qrels line"]),
    ({"q": "1 0 a 1\n", "r": "1 Q0 a 1\n"}, [], ["r:1:", "malformed run line"]),
    ({"q": "1 0 a 1\n", "r": "1 Q0 a 1 1 t\n"}, ["-m", "ndcg_cutt.10"], ["ndcg_cut"]),
    ({"q": "1 0 a 1\n", "r": "1 Q0 a 1 1 t\n"}, ["-m", "nDCG@10"], ["not a trec_eval measure"]),
    ({"q": "1 0 a 1\n", "r": "1 Q0 a 1 1 t\n"}, ["-m", "map.5"], ["takes no parameters"]),
    ({"q": "1 0 a 1\n", "r": "1 Q0 a 1 1 t\n"}, ["-R", "qrels_jgg"], ["unknown -R format"]),
    ({"q": "1 0 a 1\n", "r": "1 Q0 a 1 1 t\n"}, ["-R", "trec_results"], ["-T results format"]),
    # -M cuts before the duplicate check, but a duplicate within the top M still stops it
    ({"q": "q1 0 d1 1\n", "r": "q1 Q0 d1 1 3 t\nq1 Q0 d1 2 2 t\nq1 Q0 d2 3 1 t\n"}, ["-M", "2"],
     ["'d1' is ranked 2 times"]),
    ({"q": "1 0 a 1\n", "r": "1 Q0 a 1 1 t\n"}, ["-R", "prefs", "-m", "map"], ["only the prefs_* measures"]),
    ({"q": "1 0 a 1\n", "r": "1 Q0 a 1 1 t\n"}, ["-m", "prefs_simp"], ["add -R prefs"]),
    ({"q": "1 0 0 a x\n", "r": "1 Q0 a 1 1 t\n"}, ["-R", "prefs", "-m", "all_prefs"], ["q:1:", "not a number"]),
    ({"q": "1 0 a 1\n", "r": "1 Q0 a 1 1 t\n"}, ["-R", "prefs", "-m", "all_prefs"], ["q:1:", "expected 5 fields"]),
    # a label in exponent form: trec_eval's atol reads 1e3 as 1; refused rather than read as what it does not say
    ({"q": "1 0 a 1e3\n", "r": "1 Q0 a 1 1 t\n"}, [], ["q:1:", "'1e3'", "digits before any decimal point"]),
    # an empty z-score file stops trec_eval ("Cannot read zscores file"); found by the oracle tier
    ({"q": "1 0 a 1\n", "r": "1 Q0 a 1 1 t\n", "z": ""}, ["-Z", "z"], ["z: the z-score file is empty"]),
])
def test_errors_are_clear(tmp_path, monkeypatch, capsys, files, args, fragments):
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    monkeypatch.chdir(tmp_path)
    assert main(["trec_eval", *args, "q", "r"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err


def test_missing_query_is_scored_with_c(tmp_path, capsys, monkeypatch):
    (tmp_path / "q").write_text("1 0 a 1\n2 0 b 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 t\n")
    monkeypatch.chdir(tmp_path)
    assert main(["trec_eval", "-c", "-q", "-m", "map", "-m", "num_q", "q", "r"]) == 0
    assert capsys.readouterr().out == (
        "map                   \t1\t1.0000\nmap                   \t2\t0.0000\n"
        "num_q                 \tall\t2\nmap                   \tall\t0.5000\n")


# Found by the comparison with the real trec_eval 10 (tests/trec/test_oracle.py); each expected output is
# what trec_eval 10.0 printed for these files.
@pytest.mark.parametrize("files, args, expected", [
    # -c with -l above every label: num_rel's summary is recounted at level 1 (was a KeyError)
    ({"q": "q1 0 d1 1\n", "r": "q1 Q0 d1 1 1 t\n"}, ["-c", "-q", "-l", "2", "-m", "num_rel", "-m", "map"],
     "num_rel               \tq1\t0\nmap                   \tq1\t0.0000\n"
     "num_rel               \tall\t1\nmap                   \tall\t0.0000\n"),
    # labels with a fraction: trec_eval reads them with atol, the digits before the point (0.7 is 0, -0.5 is 0)
    ({"q": "q1 0 d1 0.7\nq1 0 d2 2.5\nq1 0 d3 -0.5\nq1 0 d4 1.\nq2 0 d1 .9\nq2 0 d2 +1.2\n",
      "r": "q1 Q0 d1 1 4 t\nq1 Q0 d2 2 3 t\nq1 Q0 d3 3 2 t\nq1 Q0 d4 4 1 t\nq2 Q0 d2 1 2 t\nq2 Q0 d1 2 1 t\n"},
     ["-q", "-m", "relstring", "-m", "ndcg", "-m", "num_rel"],
     "num_rel               \tq1\t2\nrelstring             \tq1\t'0201'\nndcg                  \tq1\t0.6433\n"
     "num_rel               \tq2\t1\nrelstring             \tq2\t'10'\nndcg                  \tq2\t1.0000\n"
     "num_rel               \tall\t3\nndcg                  \tall\t0.8217\n"),
    # -R qrels is trec_eval's name for its default judgments format
    ({"q": "q1 0 d1 1\n", "r": "q1 Q0 d1 1 1 t\n"}, ["-R", "qrels", "-T", "trec_results", "-m", "map"],
     "map                   \tall\t1.0000\n"),
    # -M cuts each query before the duplicate check: a copy below the cut is dropped
    ({"q": "q1 0 d1 1\nq1 0 d2 1\n", "r": "q1 Q0 d1 1 3 t\nq1 Q0 d2 2 2 t\nq1 Q0 d1 3 1 t\n"},
     ["-M", "2", "-q", "-m", "map", "-m", "num_ret"],
     "num_ret               \tq1\t2\nmap                   \tq1\t1.0000\n"
     "num_ret               \tall\t2\nmap                   \tall\t1.0000\n"),
])
def test_what_trec_eval_prints(tmp_path, monkeypatch, capsys, files, args, expected):
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    monkeypatch.chdir(tmp_path)
    assert main(["trec_eval", *args, "q", "r"]) == 0
    assert capsys.readouterr().out == expected


def test_summary_adds_the_values_one_by_one():
    # trec_eval's summary is a C loop of `+=` over the queries; a compensated sum (math.fsum, or
    # Python 3.12's sum of floats) gives 1.0 here, and at a 4-decimal rounding tie another digit.
    assert trec_eval.add_in_order([1e16, 1.0, -1e16]) == 0.0
    assert trec_eval.add_in_order([]) == 0.0


def test_judgment_groups_are_averaged_in_trec_eval_order():
    # trec_eval sorts the groups of a query by name and adds their values in that order:
    # ((1 + 1/2) + 1/6) / 3 = 0.5555555555555556, while 1/6 first gives 0.5555555555555555.
    sep = GROUP_SEPARATOR
    rows = [(f"q1{sep}c", "map", 1 / 6), (f"q1{sep}b", "map", 0.5), (f"q1{sep}a", "map", 1.0),
            (f"q2{sep}only", "map", 0.25)]
    expected = 0.0
    for value in (1.0, 0.5, 1 / 6):
        expected += value
    assert expected / 3 != (1 / 6 + 0.5 + 1.0) / 3  # the order shows in the last bit
    assert trec_eval.average_judgment_groups(rows) == [("q1", "map", expected / 3), ("q2", "map", 0.25)]


def test_values_come_back_in_the_byte_order_of_the_query_ids():
    # trec_eval adds each measure's values in the order of the query ids' bytes ('B' before 'a');
    # the columns DuckDB pivots come back in that order whatever its collation sorts by
    from types import SimpleNamespace

    import duckdb

    from sqlrank.engines.duckdb import DuckDBEngine

    con = duckdb.connect()
    rows = ("SELECT * FROM (VALUES ('a', 'm', 1.0), ('B', 'm', 2.0), ('c', 'm', 3.0), ('a', 'n', 4.0), "
            "('B', 'n', 5.0), ('c', 'n', 6.0)) AS t(query_id, measure, value)")
    p = SimpleNamespace(slices=1, sql=rows, run=SimpleNamespace(rows=None))
    expected = (["B", "a", "c"], {"m": [2.0, 1.0, 3.0], "n": [5.0, 4.0, 6.0]})
    assert DuckDBEngine(con).per_query_columns(p) == expected
    con.execute("SET default_collation = 'nocase'")  # a < B < c
    assert DuckDBEngine(con).per_query_columns(p) == expected
    with pytest.raises(AssertionError, match="no value for some query"):
        incomplete = rows + " WHERE NOT (query_id = 'a' AND measure = 'm')"
        DuckDBEngine(con).per_query_columns(SimpleNamespace(slices=1, sql=incomplete, run=p.run))
