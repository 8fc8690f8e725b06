{#-
  The shared step "rndcg" of Rndcg: at each rank c where the ideal gain changes, the ratio of the
  run's DCG so far (the documents with a gain at rank c or above: its whole DCG past its last
  document) to the ideal DCG so far; then per query the columns the measure asks.
-#}
{% import '_macros/discount.sql' as discount %}
{% import '_macros/dialect.sql' as dialect %}
{% set name, columns, m = piece.name, piece.columns, piece.measure %}
{{ name }}_points AS (
    SELECT ideal.query_id AS query_id, ideal.rank AS rank,
           {{ dialect.sum_in_rank_order(discount.discounted('ranked.gain' ~ m.gain.sfx, 'ranked.rank', m.disc), 'ranked.rank IS NOT NULL', rank='ranked.rank') }}
               / MAX(ideal.dcg_so_far) AS point
    FROM {{ m.ideal.spec }} AS ideal
    LEFT JOIN {{ m.ranked }} AS ranked
      ON ranked.query_id = ideal.query_id AND ranked.rank <= ideal.rank AND ranked.gain{{ m.gain.sfx }} <> 0
    WHERE ideal.next_gain IS NULL OR ideal.next_gain <> ideal.gain
    GROUP BY ideal.query_id, ideal.rank
),
{{ name }} AS (
    SELECT query_id{% for column in columns %},
           {{ column }}{% endfor %}

    FROM {{ name }}_points
    GROUP BY query_id
)
