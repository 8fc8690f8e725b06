{#- The slices' per-query rows, then the summary rows with query_id NULL (unordered: sqlrank sorts them). -#}
SELECT query_id, measure, value
FROM per_query
UNION ALL
{% include 'output/slices_summary.sql' %}
