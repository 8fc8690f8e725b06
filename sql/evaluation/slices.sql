{#-
  The summary of an evaluation run in slices of queries (sqlrank's slices= option): each slice's
  per-query rows (query_id, measure, value; doc_id NULL) were inserted into {{ slices_table }},
  with, for the measures over all users' recommendations, how often each item is in the slice's
  top k (doc_id the item). This aggregates the per-query rows over queries exactly as the summary
  of one statement does (mean, sum for counts, geometric mean with trec_eval's floor of 1e-5 for
  GMAP and GM_bpref), and counts the queries each measure has a value for; the measures over all
  users come from their catalog steps, computed from the items' counts summed over the slices.
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/evaluation.sql' as evaluation %}
per_query AS (
    SELECT query_id, measure, value FROM {{ slices_table }} WHERE doc_id IS NULL
),
measures (position, measure, aggregate) AS (
    VALUES{% for m in measures %} ({{ loop.index }}, {{ m.name | literal }}, {{ m.aggregate | literal }}){% if not loop.last %},{% endif %}{% endfor %}

),
summary AS (
    SELECT measure,
           COUNT(value) AS queries,
           {{ dialect.mean_in_order('value', 'query_id') }} AS mean,
           SUM(value) AS sum,
           {{ evaluation.geometric_mean('value', 'query_id') }} AS geometric
    FROM per_query
    GROUP BY measure
)
