{#- One row per (query, measure), by query id and measure position. -#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/evaluation.sql' as evaluation %}
SELECT {% if by_run %}{{ dialect.before_separator('per_query.query_id') }} AS run_id,
       {{ dialect.after_separator('per_query.query_id') }} AS query_id{% else %}per_query.query_id AS query_id{% endif %},
       measures.measure AS measure,
       {{ evaluation.measure_case('per_query', measures) }} AS value{% if checks %},
       NULL AS checks{% endif %}

FROM per_query
{{ evaluation.measure_rows(measures) }}
{% if mixed_population %}
WHERE {{ evaluation.measure_case('per_query', measures) }} IS NOT NULL
{% endif %}
{% if not both %}
ORDER BY per_query.query_id, measures.position
{% endif %}
