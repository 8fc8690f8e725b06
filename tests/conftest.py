"""Shared test helpers: where the data is, and one tolerance-aware comparison."""
from __future__ import annotations

import glob
import math
import os
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CONFORMANCE = FIXTURES / "trec_eval"  # trec_eval 10.0's own test suite, vendored


def close(actual, expected, tol: float = 1e-9, rel: float = 0.0) -> bool:
    """True when both are missing, or both are numbers within tol (absolute) or rel * |expected|
    (relative, when given). tol=0: exactly equal. The one tolerance rule of the tests."""
    missing_a = actual is None or (isinstance(actual, float) and math.isnan(actual))
    missing_e = expected is None or (isinstance(expected, float) and math.isnan(expected))
    if missing_a or missing_e:
        return missing_a and missing_e
    return abs(float(actual) - float(expected)) <= max(tol, rel * abs(float(expected)))


def conformance_file(name: str) -> Path:
    """A file of trec_eval's test suite (fixtures/trec_eval/, shipped with the project)."""
    path = CONFORMANCE / name
    assert path.is_file(), f"{path} is missing from the checkout"
    return path


def peer(module: str):
    """Import a peer library the differential tests compare with. Skipped where it is not
    installed (a user's clone), but a failure when SQLRANK_REQUIRE_PEERS is set (CI installs them)."""
    import importlib
    import os
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if os.environ.get("SQLRANK_REQUIRE_PEERS"):
            pytest.fail(f"{module} is required here (SQLRANK_REQUIRE_PEERS) but cannot be imported: {exc}")
        pytest.skip(f"{module} is not installed", allow_module_level=True)


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true",
                     help="run every tier: the default one and the tests marked slow (engines, servers, dbt, browser, "
                          "wheel, documented commands, large property runs) in one run (.ci/run runs the two tiers one "
                          "after the other)")


def default_tier(config) -> bool:
    """Whether this run is the default tier: ``python3 -m pytest`` with no paths, no -m and no --full. Tests marked
    slow are then left out (deselected and counted); named paths or a -m expression run what they select."""
    return not config.getoption("full") and not config.getoption("markexpr") and \
        config.args_source == pytest.Config.ArgsSource.TESTPATHS


# The files whose tests take longest (dbt's adapters and Spark, minutes each, 15 and 25 minutes in all): sent to the
# workers first, and their tests to whichever worker is free, one by one (each worker builds the module's fixtures, a
# Spark session, once), so that no worker is left alone with one of them; every other file's tests go to one worker
# (its server starts once).
LONGEST = ("tests/export/test_dbt.py", "tests/engines/test_spark.py")


@pytest.hookimpl(tryfirst=True)  # before xdist names the groups (--dist loadgroup)
def pytest_collection_modifyitems(config, items):
    if default_tier(config):
        slow = [item for item in items if item.get_closest_marker("slow")]
        items[:] = [item for item in items if not item.get_closest_marker("slow")]
        config.hook.pytest_deselected(items=slow)
    for item in items:
        module = item.nodeid.split("::")[0]
        group = re.sub(r"[^\w./-]", "_", item.nodeid) if module in LONGEST else module  # no "]" or "@": xdist's split
        item.add_marker(pytest.mark.xdist_group(group))
    items.sort(key=lambda item: item.nodeid.split("::")[0] not in LONGEST)  # stable: the order within each stays


def pytest_report_header(config):
    from support import oracle
    tier = ("default tier: the tests marked slow are left out (python3 -m pytest -m slow runs them, --full both)"
            if default_tier(config) else "tier: as selected")
    return [tier, f"trec_eval oracle seed: {oracle.SEED} (repeat with SQLRANK_ORACLE_SEED={oracle.SEED})"]


def _binary(name: str) -> str | None:
    found = shutil.which(name) or sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found if isinstance(found, str) else (found[-1] if found else None)


def _missing(reason: str):
    if os.environ.get("SQLRANK_REQUIRE_PEERS"):
        pytest.fail(f"{reason} (SQLRANK_REQUIRE_PEERS)")
    pytest.skip(reason)


def peer_python(variable: str, reason: str) -> str:
    """The Python an environment variable names: a peer in a virtual environment of its own (.ci/run makes it,
    as the peer pins what sqlrank's cannot have); without it a skip that says ``reason``, or a failure where
    SQLRANK_REQUIRE_PEERS is set."""
    python = os.environ.get(variable)
    if not python:
        _missing(reason)
    return python


@pytest.fixture(scope="session")
def postgres_server():
    """A PostgreSQL server for this test session (tests/engines/test_postgres.py, tests/export/test_dbt.py): Debian's
    postgresql, initdb into a temporary folder, a Unix socket only, stopped at the end."""
    initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
    if not initdb or not pg_ctl:
        _missing("PostgreSQL's server is not installed (Debian: apt-get install postgresql)")
    peer("adbc_driver_postgresql")
    as_root = os.geteuid() == 0
    if as_root and shutil.which("runuser") is None:
        _missing("running as root without runuser: initdb refuses root")
    prefix = ["runuser", "-u", "postgres", "--"] if as_root else []
    folder = tempfile.mkdtemp(prefix="sqlrank-pg-")
    data, socket_dir = os.path.join(folder, "data"), os.path.join(folder, "socket")
    os.mkdir(socket_dir)
    if as_root:
        for path in (folder, socket_dir):
            shutil.chown(path, "postgres", "postgres")
    port = 20000 + os.getpid() % 20000
    try:
        subprocess.run(prefix + [initdb, "-D", data, "-A", "trust", "-U", "sqlrank", "--no-sync"], check=True,
                       capture_output=True)
        options = f"-c listen_addresses='' -c unix_socket_directories={socket_dir} -p {port} -c fsync=off"
        subprocess.run(prefix + [pg_ctl, "-D", data, "-l", os.path.join(folder, "log"), "-o", options, "-w", "start"],
                       check=True, capture_output=True)
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        pytest.fail(f"cannot start PostgreSQL: {exc.stderr.decode(errors='replace')[-500:]}")
    previous = signal.signal(signal.SIGTERM, _interrupt)  # a terminated run still stops its server
    try:
        yield f"postgresql://sqlrank@/postgres?host={socket_dir}&port={port}"
    finally:
        signal.signal(signal.SIGTERM, previous)
        subprocess.run(prefix + [pg_ctl, "-D", data, "-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def _interrupt(signum, frame):
    """SIGTERM as Ctrl-C: pytest then tears its fixtures down (a killed run left its PostgreSQL running)."""
    raise KeyboardInterrupt(f"signal {signum}")
