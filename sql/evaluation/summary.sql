{#- Each measure's aggregate over the queries (per run with runs stored together). -#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/evaluation.sql' as evaluation %}
summary AS (
    SELECT {% if by_run %}{{ dialect.before_separator('query_id') }} AS run_id,
           {% endif %}{% for m in measures %}{{ evaluation.aggregate(m) }} AS {{ m.column }}{% if not loop.last %},
{{ '           ' }}{% endif %}{% endfor %}

    FROM per_query{% if by_run %}

    GROUP BY {{ dialect.before_separator('query_id') }}{% endif %}

)
