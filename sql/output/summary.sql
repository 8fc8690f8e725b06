{#- One row per measure (per run and measure with runs stored together), with the run's checks where the statement
    reads them (sql/evaluation/run_checks.sql). -#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/evaluation.sql' as evaluation %}
SELECT {% if by_run %}summary.run_id AS run_id,
       {%+ endif %}{% if both %}{{ dialect.null_text() }} AS query_id,
       {%+ endif %}measures.measure AS measure,
       {{ evaluation.measure_case('summary', measures) }} AS value{% if counted %},
       {{ evaluation.count_case('summary', measures) }} AS queries{% endif %}{% if checks %},
       run_checks.checks AS checks{% endif %}

FROM summary
{% if checks %}
CROSS JOIN run_checks
{% endif %}
{{ evaluation.measure_rows(measures) }}
{% if not both %}
ORDER BY {% if by_run %}summary.run_id, {% endif %}measures.position
{% endif %}
