{#- One slice of an evaluation run in slices: its per-query rows (doc_id NULL), then how often each
    item is in the top k of the slice's queries, for the measures over all users (query_id NULL,
    measure the count's name). -#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/evaluation.sql' as evaluation %}
SELECT per_query.query_id AS query_id,
       measures.measure AS measure,
       {{ evaluation.measure_case('per_query', measures) }} AS value,
       {{ dialect.null_text() }} AS doc_id
FROM per_query
{{ evaluation.measure_rows(measures) }}
{% if mixed_population %}
WHERE {{ evaluation.measure_case('per_query', measures) }} IS NOT NULL
{% endif %}
{% for v in rankings if v.catalog %}
{% for t in v.times %}
UNION ALL
SELECT {{ dialect.null_text() }}, {{ t.name | literal }}, CAST({{ t.column }} AS DOUBLE), doc_id FROM listed{{ v.sfx }} WHERE {{ t.column }} > 0
{% endfor %}
{% endfor %}
