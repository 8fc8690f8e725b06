{#- Per-query counts over all judgments of the evaluated queries (R, ...). -#}
{% import '_macros/evaluation.sql' as evaluation %}
judgments AS (
    SELECT qrels.query_id AS query_id{{ evaluation.columns(judgment_columns) }}
    FROM qrels
    JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
    GROUP BY qrels.query_id
)
