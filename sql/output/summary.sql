{#- One row per measure (per run and measure with runs stored together). -#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/evaluation.sql' as evaluation %}
SELECT {% if by_run %}summary.run_id AS run_id,
       {%+ endif %}{% if both %}{{ dialect.null_text() }} AS query_id,
       {%+ endif %}measures.measure AS measure,
       {{ evaluation.measure_case('summary', measures) }} AS value{% if counted %},
       {{ evaluation.count_case('summary', measures) }} AS queries{% endif %}

FROM summary
{{ evaluation.measure_rows(measures) }}
{% if not both %}
ORDER BY {% if by_run %}summary.run_id, {% endif %}measures.position
{% endif %}
