{#-
  The two inputs of an installed DuckDB macro (export/macros.py): the columns its parameters name (COLUMNS(name)),
  checked as the command line checks a file, inside the statement: a (query, document) pair given twice (a table of
  several runs, or one run twice), a run whose run_id column holds several runs, an empty id, and a label or score
  that is empty, NaN or infinite are DuckDB's error() naming the query and the document (the runs); a label that is
  no number is DuckDB's own cast error. The pairs are counted once (a hash aggregate, an uncorrelated subquery); the
  values are checked row by row. With `only` (the evaluate macros' branch of one measure: its names in lower case),
  no row is read unless the call asks for it, so that the branches not asked cost nothing (the condition is a
  constant of the call, folded before any scan).
-#}
{% macro asked(only) %}{% if only %}
    WHERE list_has_any([lower(name) FOR name IN measures], [{{ only | map('literal') | join(', ') }}]){% endif %}{% endmacro %}
{% macro checked(kind, value, rows, only=none) -%}
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
    FROM (SELECT * FROM query_table(run), (SELECT NULL AS run_id) AS no_run_id{{ asked(only) | indent(4) }}) AS stored
) IS NULL{% endif %}
{%- endmacro %}
{% macro qrels(only=none) -%}
WITH qrels_rows AS (
    SELECT CAST(COLUMNS(query_column) AS VARCHAR) AS query_id,
           CAST(COLUMNS(doc_column) AS VARCHAR) AS doc_id,
           CAST(COLUMNS(relevance_column) AS DOUBLE) AS relevance
    FROM query_table(qrels){{ asked(only) }}
)
{{ checked('qrels', 'relevance', 'qrels_rows') }}
{%- endmacro %}
{% macro run(only=none) -%}
WITH run_rows AS (
    SELECT CAST(COLUMNS(query_column) AS VARCHAR) AS query_id,
           CAST(COLUMNS(doc_column) AS VARCHAR) AS doc_id,
           CAST(COLUMNS(score_column) AS DOUBLE) AS score,
           CAST(NULL AS BIGINT) AS input_rank
    FROM query_table(run){{ asked(only) }}
)
{{ checked('run', 'score', 'run_rows', only) }}
{%- endmacro %}
