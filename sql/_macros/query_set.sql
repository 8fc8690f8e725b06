{#-
  Which queries are evaluated: those of the judgments that the run answers (missing_queries
  "skip", as trec_eval 9 and pytrec_eval), or every query of the judgments ("zero": those the
  run misses score 0, as trec_eval -c). Queries only in the run are never evaluated.
  Reference: SEMANTICS.md sec. 2.
-#}
{% macro evaluated_queries(judgments, missing_queries) %}
evaluated_queries AS (
    SELECT DISTINCT query_id FROM {{ judgments }}
{% if missing_queries == 'skip' %}
    INTERSECT
    SELECT DISTINCT query_id FROM run
{% endif %}
)
{%- endmacro %}
