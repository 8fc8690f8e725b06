{#- Each query's segments, and the aggregates over all queries (segment NULL) and per segment. -#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/evaluation.sql' as evaluation %}
segments AS (
    {{ segments_sql | indent(4) }}
),
summary AS (
    SELECT {{ dialect.null_text() }} AS segment,
           COUNT(*) AS num_queries{{ evaluation.summary_columns(measures) }}
    FROM per_query
    UNION ALL
    SELECT segments.segment AS segment,
           COUNT(*) AS num_queries{{ evaluation.summary_columns(measures) }}
    FROM per_query
    JOIN segments ON segments.query_id = per_query.query_id
    GROUP BY segments.segment
)
