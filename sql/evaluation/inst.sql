{#-
  The family step "inst" of INST: at each rank i <= 1000 the chance C(i) of reading on past it, and the
  chance of reading rank i, the product of C(j) over the ranks j above it (a running sum of logarithms;
  once a C(j) is 0 nothing below is read); then per query the columns the measure asks. Each window
  is in parentheses before a subtraction (Spark reads "reading - CASE" as one name otherwise).
-#}
{% import '_macros/judging.sql' as judging %}
{% set name, columns, m = piece.name, piece.columns, piece.measure %}
{% set gain = 'cwl_gain_' ~ (m.max_rel | key) %}
{% set so_far = gain ~ '_so_far' %}
{% set ln = 'CASE WHEN reading_on > 0 THEN LN(reading_on) ELSE 0 END' %}
{% set zero = 'CASE WHEN reading_on = 0 THEN 1 ELSE 0 END' %}
{{ name }}_positions AS (
    SELECT query_id, rank, gain, so_far,
           (SUM({{ ln }}) OVER reading) - ({{ ln }}) AS ln_reached,
           (SUM({{ zero }}) OVER reading) - ({{ zero }}) AS stops_above,
           SUM({{ ln }}) OVER reading AS ln_past,
           SUM({{ zero }}) OVER reading AS stops_through,
           MAX(rank) OVER (PARTITION BY query_id) AS last_rank
    FROM (
        SELECT query_id, rank, {{ gain }} AS gain, {{ so_far }} AS so_far,
               POWER((rank + 2 * {{ judging.real(m.T) }} - {{ so_far }} - 1) / (rank + 2 * {{ judging.real(m.T) }} - {{ so_far }}), 2) AS reading_on
        FROM {{ m.ranked }}
        WHERE rank <= 1000
    ) AS chances
    WINDOW reading AS (PARTITION BY query_id ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
{{ name }} AS (
    SELECT query_id{% for column in columns %},
           {{ column }}{% endfor %}

    FROM {{ name }}_positions
    GROUP BY query_id
)
