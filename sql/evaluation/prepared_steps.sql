{#-
  Steps made before from the judgments alone (sql/prepared.sql: an Evaluator's tables), read in place of
  computing them: evaluated_queries, the judged queries numbered once, those the run answers (with runs stored
  together, each run's query numbered anew, with its judged number beside: judged_number); numbered_qrels, every
  judgment with its judged query's number, never repeated per run; the others (per-query counts, ideal rankings) keyed by the judged
  query, read for the evaluated ones (with runs stored together, under each run's key).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% set key = dialect.after_separator('evaluated_queries.query_id') if by_run else 'evaluated_queries.query_id' %}
{% for step in piece.steps %}
{% if step.name == 'evaluated_queries' and by_run %}
evaluated_queries AS (
    SELECT keyed.query_id AS query_id,
           CAST(ROW_NUMBER() OVER (ORDER BY keyed.query_id) AS INTEGER) AS query_number,
           judged_queries.query_number AS judged_number
    FROM (SELECT DISTINCT query_id FROM run) AS keyed
    JOIN {{ step.table | ident }} AS judged_queries ON judged_queries.query_id = {{ dialect.after_separator('keyed.query_id') }}
){{ ',' if not loop.last }}
{% elif step.name == 'evaluated_queries' %}
evaluated_queries AS (
    SELECT query_id, query_number
    FROM {{ step.table | ident }} AS judged_queries
    WHERE query_id IN (SELECT query_id FROM run)
){{ ',' if not loop.last }}
{% elif step.name == 'numbered_qrels' %}
numbered_qrels AS (
    SELECT query_id, query_number, doc_id, relevance
    FROM {{ step.table | ident }} AS numbered
){{ ',' if not loop.last }}
{% else %}
{{ step.name }} AS (
    SELECT evaluated_queries.query_id AS query_id{% for column in step.columns %},
           prepared.{{ column | ident }} AS {{ column | ident }}{% endfor %}

    FROM {{ step.table | ident }} AS prepared
    JOIN evaluated_queries ON {{ key }} = prepared.query_id
){{ ',' if not loop.last }}
{% endif %}
{% endfor %}
