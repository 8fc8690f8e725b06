{#-
  The shared step "pairs" of KendallTau: every pair of a query's retrieved documents, the higher
  ranked one first, with both labels (unjudged documents 0); one row per query with the sums
  its measures ask over the pairs. Quadratic in the ranking's length: the top k of every measure
  asked bounds the pairs (all of the ranking when one has no cutoff).
-#}
{% set name, columns, m = piece.name, piece.columns, piece.measure %}
{% set depth = piece.depth %}
{{ name }}_labelled AS (
    SELECT query_number, query_id, rank, COALESCE(relevance, 0) AS label
    FROM {{ m.ranked }}{% if depth is not none %}

    WHERE rank <= {{ depth | number }}{% endif %}

),
{{ name }} AS (
    SELECT higher.query_id AS query_id{% for column in columns %},
           {{ column }}{% endfor %}

    FROM {{ name }}_labelled AS higher
    JOIN {{ name }}_labelled AS lower ON lower.query_number = higher.query_number AND lower.rank > higher.rank
    GROUP BY higher.query_id
)
