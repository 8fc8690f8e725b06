"""Shared test helpers: where the data is, and one tolerance-aware comparison."""
from __future__ import annotations

import math
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


def pytest_report_header(config):
    import oracle
    return f"trec_eval oracle seed: {oracle.SEED} (repeat with SQLRANK_ORACLE_SEED={oracle.SEED})"
