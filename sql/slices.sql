{#-
  The summary of an evaluation run in slices of queries (sqlrank's slices= option): each slice's
  per-query rows (query_id, measure, value) were inserted into {{ table }}; this aggregates them
  over queries exactly as evaluate.sql's summary does (mean, sum for counts, geometric mean with
  trec_eval's floor of 1e-5 for GMAP and GM_bpref), and returns them after the per-query rows
  (query_id NULL), the layout of evaluate.sql's output "both".
  Context: built by sqlrank.templates.render_slices_summary; every value is validated there.
-#}
WITH
per_query AS (
    SELECT query_id, measure, value FROM {{ table }}
),
measures (position, measure, aggregate) AS (
    VALUES{% for m in measures %} ({{ loop.index }}, {{ m.name | literal }}, {{ m.aggregate | literal }}){% if not loop.last %},{% endif %}{% endfor %}

),
summary AS (
    SELECT measure,
           AVG(value) AS mean,
           SUM(value) AS sum,
           EXP(AVG(LN(CASE WHEN value > CAST(0.00001 AS DOUBLE) THEN value ELSE CAST(0.00001 AS DOUBLE) END))) AS geometric
    FROM per_query
    GROUP BY measure
)
SELECT query_id, measure, value
FROM per_query
UNION ALL
SELECT CAST(NULL AS VARCHAR) AS query_id,
       measures.measure,
       CASE measures.aggregate WHEN 'sum' THEN summary.sum WHEN 'geometric' THEN summary.geometric
                               ELSE summary.mean END AS value
FROM measures
LEFT JOIN summary ON summary.measure = measures.measure
