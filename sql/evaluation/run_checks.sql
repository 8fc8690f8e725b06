{#-
  The run's checks, read with the evaluation's values (DuckDB: one statement instead of three): validation's one
  pass where it was left to the statement, the queries on one side only, the ties across the cutoffs. One row,
  as a struct on each summary row (sqlrank/diagnostics.py, statement_checks, says what each field is). The
  statement's first step: the tables it reads by name are tables, not the steps of the same names after it.
-#}
run_checks AS (
    SELECT checked AS checks
    FROM (
        {{ checks_sql | indent(8) }}
    ) AS checked
)
