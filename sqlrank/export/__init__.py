"""The statement shipped elsewhere: DuckDB table macros, a dbt package, an ir_measures provider."""
