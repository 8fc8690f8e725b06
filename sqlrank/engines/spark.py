"""Spark: the same evaluation statement, rendered in Spark SQL and run by a SparkSession.

pyspark is the optional extra ``sqlrank[spark]`` (it needs Java 17 or newer). With no session
given, a local one is started: all cores of this machine, bound to the loopback interface, no
web UI, a temporary warehouse folder. Point sqlrank at a cluster by passing your own session.

Inputs: Spark DataFrames and table or view names are read where they are; Parquet files and
TREC text are read by Spark from the statement (``parquet.`path` ``, ``text.`path` ``) after
DuckDB has validated them; CSV/TSV files are read with ``spark.read.csv(header=True)``.
Spark DataFrames and tables are validated by a Spark query (missing ids or values,
duplicate documents).
"""
from __future__ import annotations

import os
import tempfile
import uuid
from typing import Any

from ..errors import InputError, OptionError
from ..inputs.columns import column_mapping, positional_mapping
from ..inputs.extra import EngineInputs
from ..inputs.load import Table, load
from ..inputs.files import detect_format
from ..inputs.locate import is_dataframe
from ..inputs.source import DELIMITED, Source
from ..rendering.dialects import DIALECTS
from ..rendering.sqltext import call_macro
from .base import Engine, Rows, first_line
from .duckdb import to_arrow
from .foreign import validated

_SESSION = None


def driver_memory() -> str:
    """The local session's heap: a quarter of this machine's memory, from 1 to 8 GB (Spark's own
    default, 1 GB, ran out on the small statements of the test suite after a few hundred others)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows): Spark's default
        return "1g"
    return f"{max(1, min(8, total // 4 // 2**30))}g"


def local_session():
    """A local SparkSession for trying sqlrank on Spark (one per process, reused)."""
    global _SESSION
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise OptionError("the Spark engine needs pyspark (and Java 17+): pip install 'sqlrank[spark]'") from None
    if _SESSION is None or _SESSION.sparkContext._jsc is None:
        warehouse = tempfile.mkdtemp(prefix="sqlrank-spark-")
        logging = os.path.join(warehouse, "log4j2.properties")  # errors only, on stderr
        with open(logging, "w", encoding="utf-8") as handle:
            handle.write("rootLogger.level = error\nrootLogger.appenderRef.stderr.ref = console\n"
                         "appender.console.type = Console\nappender.console.name = console\n"
                         "appender.console.target = SYSTEM_ERR\nappender.console.layout.type = PatternLayout\n"
                         "appender.console.layout.pattern = spark: %p %c{1}: %m%n\n"
                         "logger.query.name = SQLQueryContextLogger\nlogger.query.level = off\n")
        try:
            _SESSION = _started_quietly(lambda: SparkSession.builder.master("local[*]").appName("sqlrank")
                        .config("spark.ui.enabled", "false")
                        .config("spark.ui.showConsoleProgress", "false")
                        .config("spark.driver.memory", driver_memory())
                        .config("spark.driver.bindAddress", "127.0.0.1")
                        .config("spark.driver.host", "127.0.0.1")
                        .config("spark.sql.warehouse.dir", warehouse)
                        .config("spark.sql.shuffle.partitions", str(max(2, (os.cpu_count() or 2) * 2)))
                        .config("spark.sql.session.timeZone", "UTC")
                        .config("spark.log.structuredLogging.enabled", "false")
                        .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile=file:{logging}")
                        .getOrCreate(), os.path.join(warehouse, "java.log"))
        except Exception as exc:  # no Java, or it cannot start
            raise OptionError(f"cannot start a local Spark session (is Java 17+ installed?): "
                              f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__} (Java's output: "
                              f"{os.path.join(warehouse, 'java.log')})") from None
        _SESSION.sparkContext.setLogLevel("ERROR")
    return _SESSION


def _started_quietly(start: Any, log: str) -> Any:
    """start() with this process's standard error (file descriptor 2) sent to ``log`` meanwhile: the Java process
    it launches keeps that for its own lines (its start-up notes, log4j's defaults), so that a run prints only
    sqlrank's; pyspark's warning that it does not yet fully support pandas 3 is not shown either (sqlrank hands
    it Arrow tables where it can)."""
    import sys

    _quiet_pandas_notice()
    sys.stderr.flush()
    saved = os.dup(2)
    with open(log, "ab") as handle:
        os.dup2(handle.fileno(), 2)
        try:
            return start()
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def _quiet_pandas_notice() -> None:
    """pyspark's FutureWarning that it does not yet fully support pandas 3, which sqlrank's conversions do not
    need, is not shown (its message only: other warnings stay)."""
    import warnings

    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)


def _is_spark_dataframe(obj: Any) -> bool:
    return type(obj).__module__.startswith("pyspark.") and hasattr(obj, "createOrReplaceTempView")


def spark_source(obj: Any, kind: str, engine: SparkEngine, con, registry, format: str | None,
                 columns: dict[str, str] | None) -> Source:
    """A Source the Spark statement reads: a view of a Spark DataFrame or CSV file, a table,
    or a Parquet/TREC file (validated by DuckDB, read by Spark from the statement)."""
    spark = engine.spark
    mapping = column_mapping(kind, columns)
    if isinstance(obj, (str, os.PathLike)):
        text = os.fspath(obj)
        if format is None and not os.path.exists(text) and not any(ch in text for ch in "*?[") \
                and spark.catalog.tableExists(text):
            return _validated(Source(kind, f"table {text}", "spark", parts=tuple(text.split(".")), columns=mapping),
                              dict(spark.table(text).dtypes), engine)
        fmt = format or detect_format(text)
        if fmt in DELIMITED:
            header = not fmt.endswith("-noheader")
            frame = spark.read.csv(text, header=header, sep="\t" if fmt.startswith("tsv") else ",")
            if not header:  # the names DuckDB gives a headerless file's columns
                frame = frame.toDF(*[f"column{i}" for i in range(len(frame.columns))])
                mapping = positional_mapping(kind, mapping)
            return _view(frame, kind, text, mapping, engine)
        if fmt == "parquet" and any(ch in text for ch in "*?[") and not os.path.exists(text):
            return _parquet_glob(text, kind, mapping, engine)
        source = load(text, kind, con, registry, format, columns)
        if source.format not in ("trec", "parquet"):
            raise InputError(f"{text}: Spark reads Parquet, TREC text and CSV/TSV files")
        return source
    if _is_spark_dataframe(obj):
        return _view(obj, kind, "Spark DataFrame", mapping, engine)
    if is_dataframe(obj):
        return _view(spark.createDataFrame(obj), kind, "DataFrame", mapping, engine)
    raise InputError(f"cannot read {kind} from a {type(obj).__name__} on Spark: pass a path, a Spark or pandas "
                     f"DataFrame, or a table name")


def _parquet_glob(pattern: str, kind: str, mapping: dict[str, str], engine: SparkEngine) -> Source:
    """Parquet files matching a pattern, read by Spark with partition discovery from the folder
    before the first wildcard (hive folders run_id=... give a run_id column); with
    run_id=filename, each row's run is its file's name without suffix."""
    from pyspark.sql import functions

    parts = pattern.split(os.sep)
    first = next(i for i, part in enumerate(parts) if any(ch in part for ch in "*?["))
    base = os.sep.join(parts[:first]) or os.sep
    try:
        frame = engine.spark.read.option("basePath", base).parquet(pattern)
    except Exception as exc:
        raise InputError(f"{pattern}: Spark cannot read these Parquet files: {str(exc).splitlines()[0]}") from None
    if mapping.get("run_id") == "filename" and "filename" not in frame.columns:
        frame = frame.withColumn("sqlrank_run_id", functions.regexp_extract(functions.input_file_name(),
                                                                             r"([^/]+?)([.][^./]*)?$", 1))
        mapping = {**mapping, "run_id": "sqlrank_run_id"}
    return _view(frame, kind, pattern, mapping, engine)


def _view(frame, kind: str, label: str, mapping: dict[str, str], engine: SparkEngine) -> Source:
    return _validated(Source(kind, label, "spark", parts=(engine.view(frame, kind),), columns=mapping),
                      dict(frame.dtypes), engine)


def _validated(source: Source, types: dict[str, str], engine: SparkEngine) -> Source:
    def one(sql: str) -> tuple:
        try:
            return tuple(engine.spark.sql(sql).collect()[0])
        except Exception as exc:
            raise InputError(f"{source.label}: Spark cannot read the {source.kind} as query_id, doc_id, "
                             f"{source.value_name}: {first_line(exc)}") from None

    return validated(source, engine.dialect, one, types)


def _extra_inputs(engine: SparkEngine, con) -> EngineInputs:
    """How Spark takes the extra inputs of the measures beyond accuracy: a Spark DataFrame or a table
    of the session is read by Spark; a file or pandas DataFrame, read and checked by DuckDB, becomes a
    temporary view (an Arrow table as it is on PySpark 4, through pandas before)."""
    spark = engine.spark

    def table(obj: Any, what: str) -> Table | None:
        if _is_spark_dataframe(obj):
            name, label = engine.view(obj, what.replace(" ", "_")), f"{what} Spark DataFrame"
        elif isinstance(obj, str) and not os.path.exists(obj) and not any(ch in obj for ch in "*?[") \
                and spark.catalog.tableExists(obj):
            name, label = obj, f"{what} table {obj}"
        else:
            return None
        reader = call_macro(engine.dialect, "_macros/inputs.sql", "table", tuple(name.split("."))).strip()
        return Table(label, reader, dict(spark.table(name).dtypes))

    def count(sql: str) -> int:
        try:
            return spark.sql(sql).collect()[0][0]
        except Exception as exc:
            raise InputError(f"Spark cannot read an extra input: {str(exc).splitlines()[0]}") from None

    def copy(kind: str, sql: str) -> str:
        table = to_arrow(con, sql)
        try:
            frame = spark.createDataFrame(table)
        except (TypeError, ValueError):  # PySpark 3.5 takes no Arrow table
            import pyarrow as pa

            schema = ", ".join(f"`{f.name}` {'double' if pa.types.is_floating(f.type) else 'string'}"
                               for f in table.schema)
            frame = spark.createDataFrame(table.to_pandas(), schema=schema)
        return engine.view(frame, kind)

    return EngineInputs.copying(engine.dialect, table, count, copy)


class SparkEngine(Engine):
    """Runs the Spark SQL text of a plan on a SparkSession; Spark's errors become InputErrors. The
    temporary views it makes of the inputs are dropped by close(): a session outlives evaluations."""

    dialect, name = DIALECTS["spark"], "Spark"

    def __init__(self, spark):
        self.spark = spark
        self.views: list[str] = []
        _quiet_pandas_notice()

    def view(self, frame, kind: str) -> str:
        """A temporary view of a DataFrame under a fresh name, dropped by close()."""
        name = f"sqlrank_{kind}_{uuid.uuid4().hex}"
        frame.createOrReplaceTempView(name)
        self.views.append(name)
        return name

    def close(self) -> None:
        for name in self.views:
            self.spark.catalog.dropTempView(name)
        self.views.clear()

    def rows(self, sql: str) -> Rows:
        try:
            evaluated = self.spark.sql(sql)
            return Rows(tuple(evaluated.columns), [tuple(row) for row in evaluated.collect()])
        except Exception as exc:
            raise InputError(f"evaluation failed in Spark: {first_line(exc)}") from None

    def source(self, obj: Any, kind: str, con, registry, format: str | None, columns: dict[str, str] | None) -> Source:
        return spark_source(obj, kind, self, con, registry, format, columns)

    def extra_inputs(self, con) -> EngineInputs:
        return _extra_inputs(self, con)
