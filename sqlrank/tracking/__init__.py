"""The run history: evaluations and comparisons recorded over time (history) in a file of their own, written by one
writer at a time (history_file).

It may import statistics and the layers below the tools."""
