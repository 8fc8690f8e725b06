{#- The per-query rows, then the summary rows with query_id NULL (unordered: sqlrank sorts them). -#}
{% include 'output/per_query.sql' %}

UNION ALL
{% include 'output/summary.sql' %}
