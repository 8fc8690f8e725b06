"""Whether the same evaluation gives the same numbers every time: `sqlrank eval`'s per-query values and means,
computed several times in one process (a fresh DuckDB connection each time, all threads), compared bit for bit
with the first time's.

    python bench/repeat.py bench/data/10M-trec.qrels.parquet bench/data/10M-trec.run.parquet -m ndcg -m binG --times 3

Prints, per measure, how many of its values differ in any bit from the first run's, and exits 1 when any does.
A sum of doubles depends on the order of its additions, and an engine's threads deliver rows in an order that
changes from run to run; sqlrank adds in rank order and in query order (bench/NOTES.md, "Sums in trec_eval's
order").
"""
from __future__ import annotations

import argparse
import collections
import struct
import sys
import warnings


def bits(value) -> bytes | None:
    """The value's 64 bits (None for no value): equal bits, not equal numbers (0.0 and -0.0 differ)."""
    return None if value is None or value != value else struct.pack("<d", float(value))


def differing(runs: list[dict]) -> dict[str, set]:
    """{measure: the queries ("(mean)" for the mean) whose value differs in some run from the first run's}; each
    run is {(query, measure): bits(value)}."""
    differ: dict[str, set] = {}
    for later in runs[1:]:
        for key, value in runs[0].items():
            if later.get(key) != value:
                differ.setdefault(key[1], set()).add(key[0])
    return differ


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("qrels")
    parser.add_argument("run")
    parser.add_argument("-m", "--measure", action="append", required=True, help="a measure (repeat the option)")
    parser.add_argument("--times", type=int, default=3, help="evaluations in all (default 3)")
    parser.add_argument("--threads", type=int, default=None, help="DuckDB's threads (default: all cores)")
    args = parser.parse_args()
    import sqlrank

    options = {} if args.threads is None else {"threads": args.threads}
    runs = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sqlrank.SqlrankWarning)  # ties and the like: the same every time
        for _ in range(args.times):
            per_query = sqlrank.evaluate(args.qrels, args.run, args.measure, per_query=True, **options)
            means = sqlrank.evaluate(args.qrels, args.run, args.measure, **options)
            values = {(row.query_id, row.measure): bits(row.value) for row in per_query.itertuples()}
            values.update({("(mean)", row.measure): bits(row.value) for row in means.itertuples()})
            runs.append(values)
    first, differ = runs[0], differing(runs)
    counts = collections.Counter(measure for _, measure in first)  # values per measure, in the measures' order
    print(f"{'measure':<24} {'values':>8} {'differ':>8}   (of {args.times} evaluations, against the first)")
    for measure, count in counts.items():
        print(f"{measure:<24} {count:>8} {len(differ.get(measure, ())):>8}")
    total = sum(len(queries) for queries in differ.values())
    print(f"{'all':<24} {len(first):>8} {total:>8}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
