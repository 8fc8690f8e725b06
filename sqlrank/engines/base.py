"""TODO"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas is imported by DuckDB when a DataFrame is asked for, not at start-up
    import pandas as pd


@dataclass(frozen=True)
class Rows:
    """Rows of a result as fetched (no pandas: the command line prints them as they are)."""

    columns: tuple[str, ...]
    rows: list[tuple]

    def records(self) -> list[dict]:
        return [dict(zip(self.columns, row)) for row in self.rows]

    def frame(self) -> "pd.DataFrame":
        import pandas as pd

        frame = pd.DataFrame.from_records(self.rows, columns=list(self.columns))
        frame["value"] = frame["value"].astype("float64")
        return frame
