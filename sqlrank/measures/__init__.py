"""The vocabulary: measure families (registry), measures and their names, conventions and presets.
No SQL and no DuckDB here."""
