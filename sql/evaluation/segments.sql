{#-
  The aggregates over all queries (segment NULL) and per segment. A measure that is one value
  over all queries (Coverage, GlobalAUC) takes, per segment, the value its one-row step computed
  over that segment's queries alone (segment_steps: those steps, one row per segment).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/evaluation.sql' as evaluation %}
summary AS (
    SELECT {{ dialect.null_text() }} AS segment,
           COUNT(*) AS num_queries{{ evaluation.summary_columns(measures) }}
    FROM per_query
    UNION ALL
    SELECT segments.segment AS segment,
           COUNT(*) AS num_queries{{ evaluation.summary_columns(measures, per_segment=true) }}
    FROM per_query
    JOIN segments ON segments.query_id = per_query.query_id
{% for step in segment_steps %}
    LEFT JOIN {{ step }} ON {{ step }}.{{ group_key }} = segments.segment
{% endfor %}
    GROUP BY segments.segment
)
