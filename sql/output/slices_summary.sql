{#- The summary of the slices, one row per measure (query_id NULL beside the per-query rows of output
    "slices"; alone, with how many queries have a value of each measure). -#}
SELECT {% if output == 'slices' %}CAST(NULL AS VARCHAR) AS query_id,
       {%+ endif %}measures.measure AS measure,
       CASE
{% for m in measures %}
{% if m.aggregate == 'catalog' %}
           WHEN measures.position = {{ loop.index }} THEN {{ m.value }}
{% endif %}
{% endfor %}
           WHEN measures.aggregate = 'sum' THEN summary.sum
           WHEN measures.aggregate = 'geometric' THEN summary.geometric
           ELSE summary.mean
       END AS value{% if output == 'slices_summary' %},
       summary.queries AS queries{% endif %}

FROM measures
LEFT JOIN summary ON summary.measure = measures.measure
{% for v in rankings if v.catalog %}
CROSS JOIN catalog{{ v.sfx }}
{% endfor %}
{% if output == 'slices_summary' %}
ORDER BY measures.position
{% endif %}
