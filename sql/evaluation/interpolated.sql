{#-
  The shared step "interpolated" of IPrec and IPrecAvg: for each relevant retrieved document
  (relevant_seen = how many relevant documents up to it), the interpolated precision, the
  highest precision at it or below; then one row per query with the columns the measures ask.
-#}
{% import '_macros/judging.sql' as judging %}
{% set name, columns, m = piece.name, piece.columns, piece.measure %}
{{ name }}_interpolated AS (
    SELECT query_id,
           {{ judging.relevant_so_far(m.level) }} AS relevant_seen,
           MAX(CAST({{ judging.relevant_so_far(m.level) }} AS {{ DOUBLE }}) / rank) OVER (
               PARTITION BY query_id ORDER BY rank DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS precision
    FROM {{ m.ranked }}
    WHERE {{ judging.is_relevant(m.level) }} = 1
),
{{ name }} AS (
    SELECT interpolated.query_id AS query_id{% for column in columns %},
           {{ column }}{% endfor %}

    FROM {{ name }}_interpolated AS interpolated
    JOIN judgments ON judgments.query_id = interpolated.query_id
    GROUP BY interpolated.query_id
)
