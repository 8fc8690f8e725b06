{#-
  The shared step "rndcg" of Rndcg: at each rank where the ideal gain changes, the ratio of the
  run's DCG so far (its whole DCG past its last document) to the ideal DCG so far; then per
  query the columns the measure asks.
-#}
{% set name, columns, m = piece.name, piece.columns, piece.measure %}
{{ name }}_points AS (
    SELECT ideal.query_id AS query_id,
           COALESCE(ranked.dcg{{ m.gain.sfx }}_so_far, retrieved.dcg{{ m.gain.sfx }}, 0) / ideal.dcg_so_far AS point
    FROM {{ m.ideal.spec }} AS ideal
    LEFT JOIN {{ m.ranked }} AS ranked ON ranked.query_id = ideal.query_id AND ranked.rank = ideal.rank
    LEFT JOIN {{ m.retrieved }} AS retrieved ON retrieved.query_id = ideal.query_id
    WHERE ideal.next_gain IS NULL OR ideal.next_gain <> ideal.gain
),
{{ name }} AS (
    SELECT query_id{% for column in columns %},
           {{ column }}{% endfor %}

    FROM {{ name }}_points
    GROUP BY query_id
)
