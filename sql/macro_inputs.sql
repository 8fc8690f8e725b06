{#-
  The two inputs of an installed DuckDB macro (export/macros.py). `source` reads an argument: a name of a table, view
  or CTE (DuckDB's query_table, which also takes a bare identifier), or a subquery written as text ('(SELECT ...)',
  'SELECT ...', 'FROM ...', 'WITH ...': the caller's own SQL in the caller's session, run by DuckDB's query()). The
  columns are those the parameters name, matched whole and in any case (a regular expression would also match
  bm25_score for score); a column absent is DuckDB's error naming the table's columns and the lambda `qrels_column`
  or `run_column`, which says which argument lacks it. Then they are checked as the command line checks a file,
  inside the statement: a (query, document) pair given twice (a table of several runs, or one run twice), a run whose
  run_id column holds several runs, an empty id, and a label or score that is empty, NaN or infinite are DuckDB's
  error() naming the query and the document (the runs); a label that is no number is DuckDB's own cast error. The
  pairs are counted once (a hash aggregate, an uncorrelated subquery); the values are checked row by row.
-#}
{% macro source(argument) -%}
query(CASE WHEN regexp_matches({{ argument }}, '^\s*(\(|(select|from|with|values)\s)', 'i') THEN 'FROM (' || {{ argument }} || ')'
           ELSE 'FROM query_table(''' || replace({{ argument }}, '''', '''''') || ''')' END)
{%- endmacro %}
{% macro column(kind, parameter, fallback) -%}
COLUMNS(lambda {{ kind }}_column: lower({{ kind }}_column) = lower({% if fallback %}coalesce({{ parameter }}, {{ fallback }}){% else %}{{ parameter }}{% endif %}))
{%- endmacro %}
{% macro checked(kind, value, rows) -%}
{% set what = 'label' if value == 'relevance' else value -%}
SELECT query_id, doc_id,
       CASE WHEN query_id IS NULL OR doc_id IS NULL
            THEN error('sqlrank: an empty query or document id in the {{ kind }} ' || COALESCE('(query ' || query_id || ')', '(document ' || doc_id || ')', ''))
            WHEN {{ value }} IS NULL OR isnan({{ value }}) OR isinf({{ value }})
            THEN error('sqlrank: the {{ what }} of document ' || doc_id || ' for query ' || query_id || ' in the {{ kind }} is '
                       || COALESCE(CAST({{ value }} AS VARCHAR), 'empty') || ': it must be a finite number')
            ELSE {{ value }} END AS {{ value }}{{ ',\n       input_rank' if kind == 'run' }}
FROM {{ rows }}
WHERE (
    SELECT error('sqlrank: document ' || doc_id || ' is given ' || CAST(times AS VARCHAR) || ' times for query ' || query_id
                 || ' in the {{ kind }}; each (query, document) pair must appear once (several runs in one table: evaluate '
                 || 'each alone, or with sqlrank eval and its run_id column)')
    FROM (SELECT query_id, doc_id, COUNT(*) AS times FROM {{ rows }} GROUP BY query_id, doc_id HAVING COUNT(*) > 1 LIMIT 1)
        AS repeated
) IS NULL{% if kind == 'run' %}
  AND (
    {#- a run_id column of the run (the one-row NULL run_id stands in where it has none): one run, or an error -#}
    SELECT CASE WHEN COUNT(DISTINCT stored.run_id) > 1
                THEN error('sqlrank: the run holds ' || CAST(COUNT(DISTINCT stored.run_id) AS VARCHAR) || ' runs (its run_id '
                           || 'column, e.g. ' || MIN(stored.run_id) || ' and ' || MAX(stored.run_id) || '); give the macro '
                           || 'one run (a view WHERE run_id = ...), or evaluate each with sqlrank eval') END
    FROM (SELECT * FROM {{ source('run') }}, (SELECT NULL AS run_id) AS no_run_id) AS stored
) IS NULL{% endif %}
{%- endmacro %}
{% macro qrels() -%}
WITH qrels_rows AS (
    SELECT CAST({{ column('qrels', 'qrels_query_column', 'query_column') }} AS VARCHAR) AS query_id,
           CAST({{ column('qrels', 'qrels_doc_column', 'doc_column') }} AS VARCHAR) AS doc_id,
           CAST({{ column('qrels', 'relevance_column', none) }} AS DOUBLE) AS relevance
    FROM {{ source('qrels') }}
)
{{ checked('qrels', 'relevance', 'qrels_rows') }}
{%- endmacro %}
{% macro run() -%}
WITH run_rows AS (
    SELECT CAST({{ column('run', 'run_query_column', 'query_column') }} AS VARCHAR) AS query_id,
           CAST({{ column('run', 'run_doc_column', 'doc_column') }} AS VARCHAR) AS doc_id,
           CAST({{ column('run', 'score_column', none) }} AS DOUBLE) AS score,
           CAST(NULL AS BIGINT) AS input_rank
    FROM {{ source('run') }}
)
{{ checked('run', 'score', 'run_rows') }}
{%- endmacro %}
