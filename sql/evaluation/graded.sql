{#-
  The shared step "graded" of nDCG_rel and G: the retrieved documents with a gain, with their
  DCG and gain so far; then per query, each beside the ideal document at its rank (none past the
  ideal list), the columns the measures ask.
-#}
{% import '_macros/running_dcg.sql' as running_dcg %}
{% set name, columns, m = piece.name, piece.columns, piece.measure %}
{{ name }}_gained AS (
    SELECT query_id, rank, gain{{ m.gain.sfx }},
           {{ running_dcg.so_far(m, 'gained') }}
    FROM {{ m.ranked }}
    WHERE gain{{ m.gain.sfx }} <> 0
    WINDOW gained AS (PARTITION BY query_id ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
{{ name }} AS (
    SELECT ranked.query_id AS query_id{% for column in columns %},
           {{ column }}{% endfor %}

    FROM {{ name }}_gained AS ranked
    JOIN {{ m.ideal.spec }}_dcg ON {{ m.ideal.spec }}_dcg.query_id = ranked.query_id
    LEFT JOIN {{ m.ideal.spec }} ON {{ m.ideal.spec }}.query_id = ranked.query_id AND {{ m.ideal.spec }}.rank = ranked.rank
    GROUP BY ranked.query_id
)
