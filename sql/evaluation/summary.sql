{#- Each measure's aggregate over the queries (per run with runs stored together); where a measure
    may have no value for some queries, also how many have one (and how many were evaluated). -#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/evaluation.sql' as evaluation %}
summary AS (
    SELECT {% if by_run %}{{ dialect.before_separator('query_id') }} AS run_id,
{{ '           ' }}{% endif %}{% if counted %}COUNT(*) AS num_queries,
{{ '           ' }}{% endif %}{% for m in measures %}{{ evaluation.aggregate(m) }} AS {{ m.column }}{{ evaluation.count_column(m) }}{% if not loop.last %},
{{ '           ' }}{% endif %}{% endfor %}

    FROM per_query{% if by_run %}

    GROUP BY {{ dialect.before_separator('query_id') }}{% endif %}

)
