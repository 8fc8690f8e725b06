"""Runs Snowflake statements through fakesnow (Snowflake's connector over DuckDB, translating Snowflake's SQL),
in the virtual environment of its own .ci/run makes (fakesnow pins DuckDB and sqlglot). Reads JSON on stdin:
{"tables": {NAME: {"columns": {COLUMN: TYPE}, "rows": [[...]]}}, "statements": [SQL, ...]}; the tables are made
in schema DS of database DB, with the columns as named (upper case, as Snowflake names columns created without
quotes). Prints JSON: each statement's rows."""
import json
import sys

import fakesnow
import snowflake.connector


def literal(value, kind: str) -> str:
    if value is None:
        return "NULL"
    if kind == "double":
        return f"{float(value)!r}::double"
    if kind == "integer":
        return str(int(value))
    return "'" + str(value).replace("'", "''") + "'"


def main() -> None:
    given = json.load(sys.stdin)
    out = []
    with fakesnow.patch():
        con = snowflake.connector.connect()
        cursor = con.cursor()
        for statement in ("CREATE DATABASE DB", "USE DATABASE DB", "CREATE SCHEMA DS", "USE SCHEMA DS"):
            cursor.execute(statement)
        for name, table in given["tables"].items():
            columns = table["columns"]
            cursor.execute(f"CREATE TABLE {name} ({', '.join(f'{c} {t}' for c, t in columns.items())})")
            rows = ", ".join("(" + ", ".join(literal(v, t) for v, t in zip(row, columns.values())) + ")"
                             for row in table["rows"])
            cursor.execute(f"INSERT INTO {name} VALUES {rows}")
        for statement in given["statements"]:
            cursor.execute(statement)
            out.append([list(row) for row in cursor.fetchall()])
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
