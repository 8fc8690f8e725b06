{#- One row per (segment, measure): the overall row (segment NULL) first, then each segment. -#}
{% import '_macros/evaluation.sql' as evaluation %}
SELECT summary.segment AS segment,
       summary.num_queries AS num_queries,
       measures.measure AS measure,
       {{ evaluation.measure_case('summary', measures) }} AS value{% if counted %},
       {{ evaluation.count_case('summary', measures) }} AS queries{% endif %}

FROM summary
{{ evaluation.measure_rows(measures) }}
ORDER BY summary.segment NULLS FIRST, measures.position
