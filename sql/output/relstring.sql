{#- trec_eval's relstring: the labels of each query's top documents as text ('-' unjudged,
    '.' negative, '>' above 9). -#}
{% import '_macros/dialect.sql' as dialect %}
{% set v = rankings[0] %}
SELECT query_id,
       STRING_AGG(CASE WHEN relevance IS NULL THEN '-' WHEN relevance < 0 THEN '.' WHEN relevance > 9 THEN '>'
                       ELSE CAST(relevance AS {{ dialect.text() }}) END, '' ORDER BY rank) AS relstring
FROM ranked{{ v.sfx }}
WHERE rank <= {{ relstring_length | number }}
GROUP BY query_id
