"""The wheel carries the SQL templates: build it, install it in a clean virtual environment
and evaluate once from outside the checkout."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import venv

import pytest

from conftest import FIXTURES, ROOT


@pytest.mark.slow
def test_wheel_installs_and_evaluates(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(ROOT)],
                   check=True, capture_output=True)
    wheel = next(dist.glob("sqlrank-*.whl"))
    import zipfile
    with zipfile.ZipFile(wheel) as z:
        assert "sqlrank/sql/evaluate.sql" in z.namelist()
        assert "sqlrank/sql/measures/nDCG.sql" in z.namelist()
        assert {"sqlrank/sql/evaluation/ranking.sql", "sqlrank/sql/output/summary.sql"} <= set(z.namelist())
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    subprocess.run([str(bindir / "python"), "-m", "pip", "install", "-q", str(wheel)], check=True,
                   capture_output=True)
    demo = FIXTURES / "demo"
    proc = subprocess.run([str(bindir / "sqlrank"), "eval", str(demo / "qrels.test"), str(demo / "results.test"),
                           "-m", "AP P@10 nDCG@10", "-f", "csv"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rows = dict(line.split(",") for line in proc.stdout.splitlines()[1:])
    assert f"{float(rows['AP']):.4f}" == "0.1785"  # trec_eval's out.test
    assert f"{float(rows['P@10']):.4f}" == "0.3000"
    assert f"{float(rows['nDCG@10']):.4f}" == "0.3016"
    # a user's first compare works after the plain install (SciPy comes with sqlrank)
    runs = [str(FIXTURES / "compare" / name) for name in ("qrels.txt", "baseline.run", "rerank.run")]
    proc = subprocess.run([str(bindir / "sqlrank"), "compare", *runs, "-m", "nDCG@10"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"\n +rerank +0\.2762 +\+0\.0334 ", proc.stdout), proc.stdout
    # the starter dbt project's seeds are the demo files, shipped in the wheel
    proc = subprocess.run([str(bindir / "sqlrank"), "dbt", "ranking", "--demo", "-m", "AP"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "ranking" / "seeds" / "qrels.csv").read_text().count("\n") == 3682  # 3,681 judgments
