"""Judgments as the object of study: agreement between two sets of judgments (agree), the pool for the next round of
judging (pool), and meta-evaluation: whether two sets of judgments rank the systems alike (meta).

It may import comparing and statistics, and the layers below the tools."""
