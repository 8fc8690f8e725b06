{#- Each measure's aggregate over the queries (per run with runs stored together), and how many
    queries were evaluated; where a measure may have no value for some queries, how many have one. -#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/evaluation.sql' as evaluation %}
summary AS (
    SELECT {% if by_run %}{{ dialect.before_separator('query_id') }} AS run_id,
           {%+ endif %}COUNT(*) AS num_queries{{ evaluation.summary_columns(measures) }}
    FROM per_query{% if by_run %}

    GROUP BY {{ dialect.before_separator('query_id') }}{% endif %}

)
