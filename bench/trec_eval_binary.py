"""The real trec_eval 10.0, built with -O2, for the benchmarks to run beside sqlrank.

trec_eval's source is not shipped with sqlrank (NIST's licence; usnistgov/trec_eval). The benchmarks
use SQLRANK_TREC_EVAL, a built binary, or build SQLRANK_TREC_EVAL_SOURCE, the source tarball (commit
f4253652, version 10.0), with its Makefile and -O2 into bench/data/trec_eval-O2/ once: the build a
trec_eval user runs in production (the tests' oracle build is unoptimised, see tests/support/oracle.py).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CFLAGS = "-O2 -I$(H) -Wall -Wno-unused-but-set-variable -DVERSIONID=\\\"$(VERSIONID)\\\""


def trec_eval_binary(data: Path = HERE / "data") -> tuple[Path | None, str]:
    """(the binary, how it was made) or (None, why there is none)."""
    given = os.environ.get("SQLRANK_TREC_EVAL")
    if given:
        return (Path(given), "SQLRANK_TREC_EVAL") if os.access(given, os.X_OK) else (None, f"{given} is not executable")
    source = os.environ.get("SQLRANK_TREC_EVAL_SOURCE")
    if not source or not Path(source).is_file():
        return None, "set SQLRANK_TREC_EVAL_SOURCE to trec_eval 10.0's source tarball (or SQLRANK_TREC_EVAL to a binary)"
    folder = data / "trec_eval-O2"
    built = next(folder.rglob("trec_eval"), None) if folder.exists() else None
    if built is None or not built.is_file():
        if not shutil.which("make") or not (shutil.which("cc") or shutil.which("gcc")):
            return None, "no C compiler or make to build trec_eval"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        with tarfile.open(source) as tar:
            tar.extractall(folder, filter="data")
        makefile = next(folder.rglob("Makefile"))
        build = subprocess.run(["make", "-C", str(makefile.parent), f"CFLAGS={CFLAGS}"], capture_output=True, text=True)
        built = makefile.parent / "trec_eval"
        if build.returncode != 0 or not built.is_file():
            raise RuntimeError(f"building trec_eval failed:\n{build.stderr[-2000:]}")
    return built, "built with -O2 from SQLRANK_TREC_EVAL_SOURCE"
