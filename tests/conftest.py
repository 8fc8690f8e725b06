"""Shared test helpers: where the data is, and one tolerance-aware comparison."""
from __future__ import annotations

import math
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SHARED = ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance" / "trec_eval"


def close(actual, expected, tol: float = 1e-9) -> bool:
    """True when both are missing, or both are numbers within tol (absolute)."""
    missing_a = actual is None or (isinstance(actual, float) and math.isnan(actual))
    missing_e = expected is None or (isinstance(expected, float) and math.isnan(expected))
    if missing_a or missing_e:
        return missing_a and missing_e
    return abs(float(actual) - float(expected)) <= tol


def conformance_file(name: str) -> Path:
    """A file of trec_eval's test suite, or a skip when ../shared is absent (a user's clone)."""
    path = CONFORMANCE / name
    if not path.is_file():
        pytest.skip(f"{path} is not here (it comes with ../shared)")
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
