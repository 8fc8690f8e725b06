"""The real trec_eval 10 as an oracle: where to find and build it, and seeded random cases for it.

trec_eval's source is not shipped with sqlrank. The tier runs where one of these is set:
SQLRANK_TREC_EVAL, a built trec_eval 10.0 binary; or SQLRANK_TREC_EVAL_SOURCE, the source tarball of
usnistgov/trec_eval at commit f4253652 (version 10.0), built here with its own Makefile flags
(unoptimised: an -O2 build prints other rbp values, because m_rbp.c reads uninitialised memory).

A case is (files, trec_eval arguments): qrels and runs written the way real files are (tabs and
runs of spaces, scores as integers, `1e-3`, negatives, `0.50` next to `0.5`), with graded, zero and
negative labels, ties, unjudged documents, queries on one side only, ids such as `01`/`1`/`Q1`/`q1`,
runs longer than 1,000 documents and all-zero judgments; plus trec_eval's own test files under
flags its expected outputs do not cover.
"""
from __future__ import annotations

import math
import os
import random
import shutil
import subprocess
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent.parent / "fixtures" / "trec_eval"
# A fresh seed each run, unless SQLRANK_ORACLE_SEED repeats one (pytest's header prints it).
SEED = int(os.environ.get("SQLRANK_ORACLE_SEED") or random.SystemRandom().randrange(1_000_000))

# The flag sets every run covers (file arguments are added per case). "{z}" is the z-score file.
FLAG_SETS = [
    [], ["-m", "all_trec"], ["-q", "-m", "all_trec"], ["-c"], ["-J"], ["-M", "10"], ["-l", "2"], ["-n"],
    ["-c", "-q", "-J", "-M", "5", "-l", "3"],
    ["-q", "-c", "-m", "all_trec"], ["-q", "-J", "-m", "all_trec"], ["-q", "-M", "10", "-m", "all_trec"],
    ["-q", "-l", "2", "-m", "all_trec"], ["-q", "-n", "-m", "all_trec"],
    ["-q", "-m", "ndcg.1=0,2=3"], ["-q", "-m", "P.1,5,20"], ["-q", "-m", "utility.2,-1,0,0"],
    ["-q", "-m", "relstring.15"], ["-q", "-m", "Rprec_mult.0.5,2.0"], ["-q", "-m", "11pt_avg..1,.9"],
    ["-q", "-m", "map_cut.3,1000"], ["-q", "-m", "set_F.0.5"], ["-q", "-m", "success.1,3,1000"],
    ["-q", "-R", "prefs", "-m", "all_prefs"], ["-q", "-R", "qrels_prefs", "-m", "all_prefs"],
    ["-q", "-R", "qrels_jg", "-m", "qrels_jg"], ["-q", "-m", "all_trec", "-Z", "{z}"],
]
QUERY_IDS = ["1", "01", "001", "Q1", "q1", "2", "10", "9", "301", "a-b", "x.y", "Ä1", "~last"]
DOC_STYLES = ["d{}", "D{}", "d0{}", "doc-{}", "{}", "FBIS3-{}", "x#{}"]
LABELS = (-2, -1, 0, 1, 2, 3, 4)


def find_trec_eval(workdir: Path) -> tuple[Path | None, str]:
    """(the trec_eval binary, '') or (None, why the tier cannot run)."""
    binary = os.environ.get("SQLRANK_TREC_EVAL")
    if binary:
        return (Path(binary), "") if os.access(binary, os.X_OK) else (None, f"SQLRANK_TREC_EVAL={binary} is not executable")
    source = os.environ.get("SQLRANK_TREC_EVAL_SOURCE")
    if not source:
        return None, ("the real trec_eval is not configured; build it from its public source in one command, "
                      "git clone https://github.com/usnistgov/trec_eval && make -C trec_eval, then set "
                      "SQLRANK_TREC_EVAL=$PWD/trec_eval/trec_eval (or SQLRANK_TREC_EVAL_SOURCE to a source tarball "
                      "of trec_eval 10.0, commit f4253652)")
    if not Path(source).is_file():
        return None, f"SQLRANK_TREC_EVAL_SOURCE={source} is not a file"
    if not shutil.which("make") or not (shutil.which("cc") or shutil.which("gcc")):
        return None, "no C compiler or make to build trec_eval"
    with tarfile.open(source) as tar:
        tar.extractall(workdir, filter="data")
    makefile = next(workdir.rglob("Makefile"))
    build = subprocess.run(["make", "-C", str(makefile.parent)], capture_output=True, text=True)
    binary_path = makefile.parent / "trec_eval"
    if build.returncode != 0 or not binary_path.is_file():
        raise RuntimeError(f"building trec_eval failed:\n{build.stdout[-2000:]}\n{build.stderr[-2000:]}")
    return binary_path, ""


@dataclass
class Case:
    name: str
    args: list[str]  # trec_eval's arguments, files included
    qrels: dict = field(default_factory=dict)  # {qid: {doc: label}} of generated data, for the fault conditions
    run: dict = field(default_factory=dict)  # {qid: [(doc, score)]}
    zscores: dict = field(default_factory=dict)  # {qid: [measure names]} of a generated -Z file
    judgments: list = field(default_factory=list)  # (qid, jg, jsg, doc, label) of generated judgments


def _score(rng: random.Random, style: str) -> str:
    """A score as files write them; small sets so that ties are common."""
    if style == "int":
        return str(rng.randrange(-3, 12))
    if style == "sci":
        return rng.choice(("1e-3", "2e-3", "1E-3", "0.001", "5e-4", "-1e-3", "1e3", "1.5e+2"))
    if style == "neg":
        return rng.choice(("-0.5", "-2.25", "-10", "-0.0", "0", "-1e-1"))
    if style == "mixed":
        return _score(rng, rng.choice(("int", "sci", "neg", "float", "padded")))
    if style == "padded":
        return rng.choice(("0.5", "0.50", "0.500", "00.5", "+0.5", ".5", "1", "1.0"))
    return f"{rng.randrange(0, 50) / 16:.{rng.choice((1, 3, 6))}f}"


def _sep(rng: random.Random, cr: bool = False) -> str:
    """Field separators; with cr, now and then a lone carriage return (white space to trec_eval)."""
    return "\r" if cr and rng.random() < 0.02 else rng.choice((" ", " ", "\t", "  ", " \t"))


def generate(seed: int, index: int, folder: Path) -> Case:
    """Case `index` of run `seed`, its files written into folder."""
    rng = random.Random(seed * 100_003 + index)
    flags = FLAG_SETS[index % len(FLAG_SETS)]
    layout = "jg" if "qrels_jg" in flags else "prefs" if flags[-1:] == ["all_prefs"] and "prefs" in flags else "qrels"
    n = rng.randint(1, 6)
    queries = rng.sample(QUERY_IDS, n)
    qrels: dict = {}
    run: dict = {}
    one_sided = rng.random() < 0.25  # trec_eval 10 stops when a qrels query has no results (without -c)
    score_style = rng.choice(("int", "sci", "neg", "float", "padded", "mixed"))
    for number, qid in enumerate(queries):
        in_qrels = number != 0 or not one_sided or rng.random() < 0.3
        in_run = not (one_sided and number == 0)
        pool = list(dict.fromkeys(rng.choice(DOC_STYLES).format(rng.randrange(80)) for _ in range(60)))
        long_run = rng.random() < 0.06
        if in_run:
            size = rng.randint(1100, 1400) if long_run else rng.randint(0 if rng.random() < 0.1 else 1, 40)
            docs = pool[:] if size <= len(pool) else pool + [f"extra{k}" for k in range(size - len(pool))]
            rng.shuffle(docs)
            run[qid] = [(doc, _score(rng, score_style)) for doc in docs[:size]]
            if not run[qid]:
                del run[qid]
        if in_qrels:
            retrieved = [doc for doc, _ in run.get(qid, [])]
            judged = set(rng.sample(retrieved, int(len(retrieved) * rng.random() * 0.8))) if retrieved else set()
            judged |= set(rng.sample(pool, rng.randint(1, 12)))
            zero = rng.random() < 0.12
            qrels[qid] = {doc: 0 if zero else rng.choices(LABELS, (1, 1, 10, 5, 3, 2, 1))[0] for doc in sorted(judged)}
    if not qrels:
        qrels[queries[-1]] = {"d1": 1}
    if rng.random() < 0.03 and run:  # a duplicate document: both must stop
        qid = rng.choice(sorted(run))
        run[qid].append((run[qid][0][0], "0.1"))
    qrels_path, run_path = folder / "qrels", folder / "run"
    judgments = _write_judgments(rng, qrels, layout, qrels_path)
    tag = rng.choice(("runA", "tag_2", "x"))
    end = "\r\n" if rng.random() < 0.05 else "\n"  # some runs come with Windows line ends
    cr = rng.random() < 0.1  # and some with a carriage return inside a line
    with open(run_path, "w", encoding="utf-8", newline="") as f:
        for qid in rng.sample(sorted(run), len(run)):  # files need not be sorted
            for rank, (doc, score) in enumerate(run[qid], 1):
                s = _sep(rng, cr)
                f.write(f"{qid}{s}Q0{s}{doc}{s}{rank}{s}{score}{s}{tag}{end}")
    zscores: dict = {}
    args = []
    for flag in flags:
        if flag == "{z}":
            zscores = _write_zscores(rng, queries, folder / "zscores")
            flag = str(folder / "zscores")
        args.append(flag)
    return Case(f"random {seed}:{index} {' '.join(flags)}", args + [str(qrels_path), str(run_path)],
                qrels, {q: [(d, float(s)) for d, s in v] for q, v in run.items()}, zscores, judgments)


def _write_judgments(rng: random.Random, qrels: dict, layout: str, path: Path) -> list[tuple]:
    """Write the judgments; return them as (qid, judgment group, subgroup, doc, label)."""
    lines, judgments = [], []
    # some judgments written with a fraction (0.7, -1.5, 2.): trec_eval reads the digits before the point (atol)
    decimal = random.Random(rng.random()) if layout != "prefs" and rng.random() < 0.2 else None
    for qid, labels in qrels.items():
        for doc, label in labels.items():
            s = _sep(rng)
            if layout == "prefs":  # qid jg jsg docno rel_level: preferences within each sub-group
                jg, jsg = rng.choice(("A", "B")), rng.choice(("1", "2"))
                lines.append(f"{qid}{s}{jg}{s}{jsg}{s}{doc}{s}{label}")
            else:  # qrels; qrels_jg has the judgment group in column 2
                jg, jsg = str(rng.choice((0, 1, 2)) if layout == "jg" else 0), "0"
                written = f"{label}.{decimal.choice(('', '0', '5', '7', '99'))}" if decimal and decimal.random() < 0.5 \
                    else label
                lines.append(f"{qid}{s}{jg}{s}{doc}{s}{written}")
            judgments.append((qid, jg, jsg, doc, label))
    rng.shuffle(lines)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return judgments


ZSCORE_NAMES = ["num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank", "P_5", "P_10",
                "ndcg", "ndcg_cut_10", "iprec_at_recall_0.00", "infAP", "success_1", "set_F", "rbp"]


def _write_zscores(rng: random.Random, queries: list[str], path: Path) -> dict[str, list[str]]:
    """Random means and deviations (some 0) for some queries and measures. trec_eval's binary search
    reads past the end of its table for a query id or measure name after every one in the file, so
    most files end with an id '~~~' and give each query a measure '~' (which then prints nothing)."""
    ids = [q for q in queries if rng.random() < 0.8] + (["~~~"] if rng.random() < 0.95 else [])
    table = {qid: rng.sample(ZSCORE_NAMES, rng.randint(3, len(ZSCORE_NAMES))) + (["~"] if rng.random() < 0.95 else [])
             for qid in ids}
    with open(path, "w", encoding="utf-8") as f:
        for qid, names in table.items():
            for name in names:
                f.write(f"{qid} {name} {rng.random() * 2:.4f} {rng.choice((0.0, 0.1, 0.25, 1.5)):.4f}\n")
    return table


def upstream_cases() -> list[Case]:
    """trec_eval's own test files under flags its expected outputs do not cover."""
    f = {name: str(FIXTURES / name) for name in ("qrels.test", "results.test", "results.trunc", "qrels.rel_level",
                                                  "qrels.comment.test", "results.comment.test", "qrels.123",
                                                  "prefs.test", "prefs.results.test", "zscores_file")}
    combos = [
        (["-q", "-J", "-m", "all_trec"], "qrels.test", "results.test"),
        (["-q", "-M", "10", "-m", "all_trec"], "qrels.test", "results.test"),
        (["-q", "-n", "-m", "all_trec"], "qrels.test", "results.test"),
        (["-q", "-l", "2", "-m", "all_trec"], "qrels.rel_level", "results.test"),
        (["-q", "-l", "3", "-J", "-m", "all_trec"], "qrels.rel_level", "results.test"),
        (["-q", "-c", "-l", "2", "-m", "all_trec"], "qrels.rel_level", "results.trunc"),
        (["-c", "-J", "-M", "50", "-m", "all_trec"], "qrels.test", "results.trunc"),
        (["-q", "-m", "all_trec"], "qrels.comment.test", "results.comment.test"),
        (["-q", "-l", "2", "-M", "20", "-m", "all_trec"], "qrels.comment.test", "results.comment.test"),
        (["-q", "-c", "-R", "prefs", "-m", "all_prefs"], "prefs.test", "prefs.results.test"),
        (["-q", "-M", "7", "-R", "prefs", "-m", "all_prefs"], "prefs.test", "prefs.results.test"),
        (["-q", "-l", "2", "-R", "qrels_prefs", "-m", "all_prefs"], "qrels.rel_level", "results.test"),
        (["-q", "-R", "qrels_jg", "-m", "qrels_jg", "-m", "P_avgjg.3,50"], "qrels.123", "results.test"),
        (["-q", "-J", "-R", "qrels_jg", "-m", "qrels_jg"], "qrels.123", "results.test"),
        (["-q", "-Z", f["zscores_file"], "-m", "official"], "qrels.test", "results.test"),
        (["-q", "-m", "ndcg.1=0,2=3", "-m", "ndcg_rel.1=1,2=5", "-m", "Rndcg.3=2", "-m", "G.1=2"],
         "qrels.rel_level", "results.test"),
        (["-q", "-N", "100000", "-m", "utility.1,-1,0,0", "-m", "set_F.0.25"], "qrels.test", "results.test"),
        (["-q", "-m", "rbp.p=0.5"], "qrels.test", "results.test"),
        (["-q", "-m", "yaap", "-m", "unj.1,7", "-m", "relative_P.3,30"], "qrels.rel_level", "results.test"),
    ]
    return [Case(f"upstream {' '.join(flags)} {q} {r}", flags + [f[q], f[r]],
                 *(read_case_files(f[q], f[r]) if "prefs" not in flags else ({}, {})))
            for flags, q, r in combos]


def known_fault(case: Case) -> str | None:
    """Which documented fault of trec_eval 10 itself this case meets, if any (see docs/trec_eval.md)."""
    args = case.args
    if any(labels and all(v < 0 for v in labels.values()) for labels in case.qrels.values()):
        return "a query whose judgments are all negative (trec_eval: exit 4 or a segfault)"
    if "-Z" in args and case.zscores:
        evaluated = set(case.qrels) & set(case.run) if "-c" not in args else set(case.qrels)
        if any(q.encode() > max(z.encode() for z in case.zscores) for q in evaluated):
            return "-Z with a query id after every id of the z-score file (trec_eval: segfault)"
        last = max(name.encode() for name in _value_names(args))
        if any(max(n.encode() for n in case.zscores[q]) < last for q in evaluated if q in case.zscores):
            return "-Z with a measure name after every name of its query in the z-score file (trec_eval: segfault)"
    if any(a.startswith("prefs_avgjg_Rnonrel") or a == "all_prefs" for a in args) and _small_lowest_class(case):
        return ("prefs_avgjg_Rnonrel with more non-relevant than relevant documents in a judgment group and fewer "
                "than R in its lowest class (trec_eval: reads past the end of the class)")
    level = int(args[args.index("-l") + 1]) if "-l" in args else 1
    if any(a in ("all_trec", "official", "bpref") for a in args) or "-m" not in args:
        if any(level > max((v for v in labels.values() if v >= 0), default=-1) + 1 for labels in case.qrels.values()):
            return "bpref with -l above a query's highest label + 1 (trec_eval: reads past its label counts)"
    if "-J" in args and _query_without_judged_documents(case):
        return "-J with a query left without judged documents (trec_eval: -nan for iprec_at_recall, 11pt_avg)"
    return None


def rounding_ties(binary: Path, case: Case, want: bytes, got: bytes, folder: Path) -> str | None:
    """Where every line that differs is a value trec_eval computes on an exact 4-decimal rounding tie,
    printed one unit apart, which values (docs/trec_eval.md: a float sum added in another order can
    differ in its last bit, and at a tie that bit decides the digit); else None.

    Whether trec_eval's own value sits on a tie is asked of trec_eval: the case again with -Z and
    z-scores of mean 0 and deviation 1e-8 for that measure prints the value times 1e8.
    """
    lines_want, lines_got = want.decode(errors="replace").splitlines(), got.decode().splitlines()
    if "-Z" in case.args or len(lines_want) != len(lines_got) or not (case.qrels or case.run):
        return None
    differing = []
    for a, b in zip(lines_want, lines_got):
        if a == b:
            continue
        (name, qid, x), (name_b, qid_b, y) = a.split("\t"), b.split("\t")
        if (name, qid) != (name_b, qid_b) or name.strip().startswith("gm_") or abs(abs(float(x) - float(y)) - 1e-4) > 1e-9:
            return None
        differing.append((name.strip(), qid))
    names = {name for name, _ in differing}
    zscores = folder / "ties.zscores"
    with open(zscores, "w", encoding="utf-8") as f:
        for qid in sorted(set(case.qrels) | set(case.run) | {"~~~"}):
            for name in sorted(set(_value_names(case.args)) | {"~"}):
                f.write(f"{qid} {name} 0 {1e-8 if name in names else 1}\n")
    args = case.args[:-2] + ["-Z", str(zscores)] + case.args[-2:]
    scaled = subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=120).stdout
    values = {(fields[0][1:].strip(), fields[1]): fields[2] for fields in
              (line.split("\t") for line in scaled.splitlines()) if len(fields) == 3}
    for key in differing:
        if key not in values:
            return None
        ten_thousandths = float(values[key]) / 1e4  # the value times 1e4: a tie ends in .5
        if abs(ten_thousandths - math.floor(ten_thousandths) - 0.5) > 1e-6:
            return None
    return ", ".join(f"{name} {qid}" for name, qid in differing)


def _query_without_judged_documents(case: Case) -> bool:
    args = case.args
    prints_iprec = any(a in ("all_trec", "official") or a.startswith(("iprec_at_recall", "11pt_avg"))
                       for a in args) or "-m" not in args
    if not prints_iprec:
        return False
    depth = int(args[args.index("-M") + 1]) if "-M" in args else None
    for qid, labels in case.qrels.items():
        ranked = sorted(case.run.get(qid, []), key=lambda ds: (-ds[1], _neg_bytes(ds[0])))
        ranked = ranked[:depth] if depth else ranked
        if not any(doc in labels and labels[doc] >= 0 for doc, _ in ranked) and ("-c" in args or qid in case.run):
            return True
    return False


def _neg_bytes(text: str) -> tuple:
    return tuple(-b for b in text.encode()) + (1,)


def _value_names(args: list[str]) -> list[str]:
    """The names of the values trec_eval computes per query for these arguments."""
    from sqlrank.trec import trec_eval
    from sqlrank.cli.trec_eval import trec_eval_options
    options = trec_eval_options(args)
    return [line.name for line in trec_eval.expand(options)] + ["gm_map", "gm_bpref", "num_q", "runid"]


def read_case_files(qrels: str, run: str) -> tuple[dict, dict]:
    """{qid: {doc: label}} and {qid: [(doc, score)]} of TREC qrels and run files (for the fault conditions)."""
    judged: dict = {}
    for line in Path(qrels).read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if len(fields) == 4 and not line.startswith("#"):
            judged.setdefault(fields[0], {})[fields[2]] = int(fields[3])
    ranked: dict = {}
    for line in Path(run).read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if len(fields) >= 6 and not line.lstrip().startswith("#"):
            ranked.setdefault(fields[0], []).append((fields[2], float(fields[4])))
    return judged, ranked


def _small_lowest_class(case: Case) -> bool:
    """A judgment group of one subgroup with N > R non-relevant documents (level <= 0) whose lowest
    level holds fewer than R: trec_eval's prefs_avgjg_Rnonrel takes R documents from that class;
    prefs_avgjg_Rnonrel_ret does the same with retrieved counts wherever the non-relevant documents
    are split over several levels (negative labels)."""
    groups: dict = {}
    for qid, jg, jsg, doc, label in case.judgments:
        groups.setdefault((qid, jg), []).append((jsg, label))
    for entries in groups.values():
        if len({jsg for jsg, _ in entries}) != 1:
            continue
        labels = [label for _, label in entries]
        relevant = sum(1 for label in labels if label > 0)
        if len(labels) - relevant > relevant and labels.count(min(labels)) < relevant:
            return True
        if len({label for label in labels if label <= 0}) > 1:  # the _ret variant counts retrieved ones
            return True
    return False
