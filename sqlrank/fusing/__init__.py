"""Rank fusion: several runs of the same queries fused into one by ranx's methods, in SQL."""
