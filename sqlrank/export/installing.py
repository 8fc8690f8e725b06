"""sqlrank.install: the table macros in a DuckDB connection or database file (macros.py)."""
from __future__ import annotations

from typing import Any


def install(connection: Any, measures: Any = None, schema: str = "sqlrank", **conventions: Any) -> list[str]:
    """Create sqlrank's table macros in a DuckDB connection (or a database file path), so that
    plain SQL can call them: ``SELECT * FROM sqlrank.evaluate('my_qrels', 'my_run', ['nDCG@10', 'AP'])``,
    ``sqlrank.evaluate_per_query(...)``, and per family ``sqlrank.ndcg('my_qrels', 'my_run', 10)``,
    ``sqlrank.p``, ``sqlrank.recall``, ``sqlrank.ap``, ``sqlrank.rr``, ... (``sqlrank.measures()``
    lists the measures evaluate() knows; ``measures=`` adds more). Conventions apply to all.
    Returns the macro names."""
    from .macros import install as install_macros
    from .macros import install_file

    if isinstance(connection, str):
        return install_file(connection, measures, schema, **conventions)
    return install_macros(connection, measures, schema, **conventions)
