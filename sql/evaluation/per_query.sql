{#- The values of measures on several rankings, side by side. -#}
per_query AS (
    SELECT evaluated_queries.query_id AS query_id{% for m in measures %},
           {{ m.part }}.{{ m.column }} AS {{ m.column }}{% if m.weight_column %},
           {{ m.part }}.{{ m.weight_column }} AS {{ m.weight_column }}{% endif %}{% endfor %}

    FROM evaluated_queries
{% for v in rankings %}
    JOIN {{ v.part }} ON {{ v.part }}.query_id = evaluated_queries.query_id
{% endfor %}
)
