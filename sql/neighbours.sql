{#-
  An approximate nearest-neighbour search against exact search, by distances (comparing/neighbours.py,
  measures/neighbours.py), per query of the exact search:
    each search's neighbours ranked by distance (nearest first; a similarity is read as its negation)
    per cutoff k: the k-th exact distance d_k, the sums of the first min(k, n) distances of both
      searches (n: how many neighbours the approximate search returned) and their count
    Recall@k         |{approximate top k: distance <= d_k + tolerance}| / k, or <= d_k (1 + epsilon)
                     (ann-benchmarks' knn_threshold and epsilon_threshold); an approximate search that
                     returned nothing for the query scores 0
    DistanceRatio@k  the approximate sum over the exact sum (NULL where the exact sum is 0), with both sums
                     (over all queries the ratio of their totals, infinite below a total of 0.01 as
                     ann-benchmarks' rel: comparing/neighbours.py; ``summary`` gives these means here);
                     an approximate search that returned fewer neighbours than the exact top k holds
                     has the missing ones at an infinite distance (ann-benchmarks pads its results so)
  Reference: ann-benchmarks, ann_benchmarks/plotting/metrics.py (get_recall_values, rel).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% macro real(x) %}CAST({{ x }} AS {{ DOUBLE }}){% endmacro %}
{% macro distance() %}{{ 'score' if distances else '-score' }}{% endmacro %}
WITH
exact AS (
    SELECT query_id, doc_id, {{ distance() }} AS distance,
           ROW_NUMBER() OVER (PARTITION BY query_id ORDER BY {{ distance() }} ASC, {{ dialect.byte_order('doc_id') }} ASC) AS rank
    FROM ({{ exact_sql }}) AS exact_rows
),
approximate AS (
    SELECT query_id, doc_id, {{ distance() }} AS distance,
           ROW_NUMBER() OVER (PARTITION BY query_id ORDER BY {{ distance() }} ASC, {{ dialect.byte_order('doc_id') }} ASC) AS rank
    FROM ({{ approximate_sql }}) AS approximate_rows
),
searched AS (
    SELECT DISTINCT query_id FROM exact
),
{% for k in cutoffs %}
bounds_{{ k }} AS (
    SELECT query_id, MAX(CASE WHEN rank = {{ k | number }} THEN distance END) AS kth
    FROM exact
    GROUP BY query_id
),
pairs_{{ k }} AS (
    SELECT exact.query_id AS query_id, SUM(exact.distance) AS exact_sum,
           CASE WHEN COUNT(approximate.rank) < COUNT(*) THEN {{ dialect.infinity() }} ELSE SUM(approximate.distance) END
               AS approximate_sum
    FROM exact
    LEFT JOIN approximate ON approximate.query_id = exact.query_id AND approximate.rank = exact.rank
    WHERE exact.rank <= {{ k | number }}
    GROUP BY exact.query_id
),
{% endfor %}
per_query AS (
    SELECT searched.query_id AS query_id{% for m in measures %},
           {% if m.family == 'Recall' -%}
           {{ real('COUNT(CASE WHEN approximate.rank <= ' ~ (m.cutoff | number) ~ ' AND approximate.distance <= ' ~
                   (('bounds_' ~ m.cutoff ~ '.kth * (1 + ' ~ (m.epsilon | number) ~ ')') if m.epsilon is not none else
                    ('bounds_' ~ m.cutoff ~ '.kth + ' ~ (m.tolerance | number))) ~ ' THEN 1 END)') }} / {{ m.cutoff | number }}
           {%- else -%}
           MAX(pairs_{{ m.cutoff }}.approximate_sum) / NULLIF(MAX(pairs_{{ m.cutoff }}.exact_sum), 0)
           {%- endif %} AS {{ m.column }},
           {{ 'MAX(pairs_' ~ m.cutoff ~ '.exact_sum)' if m.family == 'DistanceRatio' else real('NULL') }} AS {{ m.column }}_exact,
           {{ 'MAX(pairs_' ~ m.cutoff ~ '.approximate_sum)' if m.family == 'DistanceRatio' else real('NULL') }} AS {{ m.column }}_approximate{% endfor %}

    FROM searched
    LEFT JOIN approximate ON approximate.query_id = searched.query_id
{% for k in cutoffs %}
    LEFT JOIN bounds_{{ k }} ON bounds_{{ k }}.query_id = searched.query_id
    LEFT JOIN pairs_{{ k }} ON pairs_{{ k }}.query_id = searched.query_id
{% endfor %}
    GROUP BY searched.query_id
)
{% if summary %}
,
per_measure AS (
{% endif %}
{% for m in measures %}
{% if not loop.first %}
UNION ALL
{% endif %}
SELECT query_id, {{ m.name | literal }} AS measure, {{ m.column }} AS value, {{ m.column }}_exact AS exact_sum,
       {{ m.column }}_approximate AS approximate_sum, {{ loop.index | number }} AS position
FROM per_query
{% endfor %}
{% if summary %}
)
SELECT measure,
       CASE WHEN MAX(position) IN ({{ ratios | join(', ') if ratios else '0' }})
            THEN CASE WHEN SUM(exact_sum) < {{ smallest_total | number }} THEN {{ dialect.infinity() }}
                      ELSE SUM(approximate_sum) / SUM(exact_sum) END
            ELSE AVG(value) END AS value,
       COUNT(value) AS queries
FROM per_measure
GROUP BY measure
ORDER BY MAX(position)
{% else %}
ORDER BY query_id, position
{% endif %}
