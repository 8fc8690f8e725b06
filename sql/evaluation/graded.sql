{#-
  The shared step "graded" of nDCG_rel and G: per query, over the retrieved documents with a
  gain, each beside the ideal document at its rank (none past the ideal list), the columns the
  measures ask.
-#}
{% set name, columns, m = piece.name, piece.columns, piece.measure %}
{{ name }} AS (
    SELECT ranked.query_id AS query_id{% for column in columns %},
           {{ column }}{% endfor %}

    FROM {{ m.ranked }} AS ranked
    JOIN {{ m.ideal.spec }}_dcg ON {{ m.ideal.spec }}_dcg.query_id = ranked.query_id
    LEFT JOIN {{ m.ideal.spec }} ON {{ m.ideal.spec }}.query_id = ranked.query_id AND {{ m.ideal.spec }}.rank = ranked.rank
    WHERE ranked.gain{{ m.gain.sfx }} <> 0
    GROUP BY ranked.query_id
)
