"""compare --paired-t TABLE: a comparison computed in the warehouse (dbt's NAME_comparison model), completed and
printed here (comparing/paired_t.py)."""
from __future__ import annotations

import argparse

from ..errors import OptionError
from ..results.writer import write_output
from .paths import frame_text


def paired_t_command(args: argparse.Namespace) -> int:
    """compare --paired-t TABLE: the comparison a warehouse computed (dbt's NAME_comparison), completed here."""
    from ..comparing import paired_t

    if args.qrels is not None or args.runs:
        raise OptionError("--paired-t reads the comparison from its table: leave out QRELS and RUN")
    asked = " ".join(args.measures).split()  # as the table's rows name them: as the evaluation asked them
    rows = paired_t.completed(paired_t.read(args.paired_t, args.engine, args.dsn), asked, args.correction)
    if args.format in ("csv", "tsv", "json"):
        import pandas as pd

        write_output(frame_text(pd.DataFrame(rows), args.format), args.output)
    else:
        write_output(paired_t.text(rows, args.correction), args.output)
    return 0
