"""Engines: DuckDB and the engines a plan is run on elsewhere (Spark, PostgreSQL, ClickHouse,
DataFusion), each running a plan and returning ``Rows``."""
