{#-
  The inputs, typed: qrels (query_id, doc_id, relevance) and run (query_id, doc_id, score, input_rank).
  With runs stored together (by_run), run query keys are run_id || chr(31) || query_id, and the
  judgments are repeated for each run under the same keys.
-#}
{% import '_macros/dialect.sql' as dialect %}
{% set hint = dialect.inline() if reread_inputs else '' %}
{% if by_run %}
run AS {{ hint }}(
    {{ run_sql | indent(4) }}
),
qrels AS {{ hint }}(
    SELECT run_ids.run_id || {{ dialect.separator() }} || judged.query_id AS query_id,
           judged.doc_id AS doc_id,
           judged.relevance AS relevance
    FROM (
        {{ qrels_sql | indent(8) }}
    ) AS judged
    CROSS JOIN (SELECT DISTINCT {{ dialect.before_separator('query_id') }} AS run_id FROM run) AS run_ids
)
{% else %}
qrels AS {{ hint }}(
    {{ qrels_sql | indent(4) }}
),
run AS {{ hint }}(
    {{ run_sql | indent(4) }}
)
{% endif %}
