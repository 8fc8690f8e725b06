{#-
  The pool for the next round of judging (judging/pool.py): every run ranked per query by score (ties
  by the tie-break convention), documents already judged (in any of `judged`) left out, then
    depth  the union of every run's top `depth`                         (TREC depth-k pooling)
    rrf    the `budget` documents with the highest sum over the runs of 1 / (k + rank)   (Cormack et al. 2009)
    rbp    the `budget` documents with the highest sum over the runs of (1 - p) p^(rank - 1)   (Moffat et al. 2007)
  A budget's last place tied in weight goes to the smaller document id. Rows: query_id, doc_id,
  weight (the fused weight; for depth pooling the best rank any run gives the document).
-#}
WITH
ranked AS (
{% for run in runs %}
    SELECT run_id, query_id, doc_id, ROW_NUMBER() OVER (PARTITION BY run_id, query_id ORDER BY {{ order }}) AS rank
    FROM ({{ run | indent(10) }}) AS run_{{ loop.index }}
{% if not loop.last %}
    UNION ALL
{% endif %}
{% endfor %}
),
{% if judged %}
judged AS (
{% for qrels in judged %}
    SELECT query_id, doc_id FROM ({{ qrels | indent(10) }}) AS judged_{{ loop.index }}
{% if not loop.last %}
    UNION
{% endif %}
{% endfor %}
),
{% endif %}
candidates AS (
    SELECT ranked.query_id AS query_id, ranked.doc_id AS doc_id,
{% if method == 'depth' %}
           MIN(ranked.rank) AS weight
{% elif method == 'rrf' %}
           SUM(1 / CAST({{ rrf_k | number }} + ranked.rank AS DOUBLE)) AS weight
{% else %}
           SUM((1 - {{ rbp_p | number }}) * POWER({{ rbp_p | number }}, ranked.rank - 1)) AS weight
{% endif %}
    FROM ranked
{% if judged %}
    LEFT JOIN judged ON judged.query_id = ranked.query_id AND judged.doc_id = ranked.doc_id
{% endif %}
    WHERE {{ 'judged.doc_id IS NULL' if judged else 'TRUE' }}{% if depth is not none %} AND ranked.rank <= {{ depth | number }}{% endif %}

    GROUP BY ranked.query_id, ranked.doc_id
)
SELECT query_id, doc_id, weight
FROM (
    SELECT query_id, doc_id, weight,
           ROW_NUMBER() OVER (PARTITION BY query_id ORDER BY weight {{ 'ASC' if method == 'depth' else 'DESC' }}, doc_id) AS position
    FROM candidates
) AS pooled
{% if budget is not none %}
WHERE position <= {{ budget | number }}
{% endif %}
ORDER BY query_id, position
