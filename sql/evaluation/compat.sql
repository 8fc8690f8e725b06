{#-
  The shared step "compat" of Compat: the ranking beside the ideal ranking of the query's relevant
  judgments (by label, ties by the run's score, an unretrieved document scoring 0 (and -0.0 as 0.0 in every
  dialect, which Spark and DataFusion order apart), then by document
  id in the direction of the ranking's tie-break), and at every depth d from 1 to
  the longer list's length, the overlap of their top d (the documents in both within rank d: a
  document counts from the lower of its two ranks on); one row per query with the sums its
  measures ask over the depths. Linear in the two lists' lengths.
-#}
{% import '_macros/dialect.sql' as dialect %}
{% set name, columns, m = piece.name, piece.columns, piece.measure %}
{% set direction = 'ASC' if m.tie_break == 'doc_id_asc' else 'DESC' %}
{{ name }}_ranking AS (
    SELECT query_number, query_id, doc_id, rank, score
    FROM {{ m.ranked }}{% if piece.depth is not none %}

    WHERE rank <= {{ piece.depth | number }}{% endif %}

),
{{ name }}_judged AS (
    SELECT evaluated_queries.query_number AS query_number,
           qrels.doc_id AS doc_id,
           qrels.relevance AS relevance,
           ranking.rank AS run_rank,
           CASE WHEN ranking.score IS NULL OR ranking.score = 0 THEN 0 ELSE ranking.score END AS run_score
    FROM qrels
    JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
    LEFT JOIN {{ name }}_ranking AS ranking
           ON ranking.query_number = evaluated_queries.query_number AND ranking.doc_id = qrels.doc_id
    WHERE qrels.relevance >= {{ m.level | number }}
),
{{ name }}_ideal AS (
    SELECT query_number, doc_id, run_rank,
           ROW_NUMBER() OVER (PARTITION BY query_number
                              ORDER BY relevance DESC, run_score DESC, {{ dialect.byte_order('doc_id') }} {{ direction }}) AS ideal_rank,
           COUNT(*) OVER (PARTITION BY query_number) AS ideal_size
    FROM {{ name }}_judged
),
{#- A document in both lists enters the overlap once, at the depth of its lower rank: from the
    ranking's side when its ideal rank is not below its run rank, from the ideal's side otherwise. -#}
{{ name }}_entering AS (
    SELECT ranking.query_number AS query_number, ranking.query_id AS query_id, ranking.rank AS depth,
           CASE WHEN ideal.ideal_rank <= ranking.rank THEN 1 ELSE 0 END AS entering, 0 AS ideal_size
    FROM {{ name }}_ranking AS ranking
    LEFT JOIN {{ name }}_ideal AS ideal ON ideal.query_number = ranking.query_number AND ideal.doc_id = ranking.doc_id
    UNION ALL
    SELECT ideal.query_number, evaluated_queries.query_id, ideal.ideal_rank,
           CASE WHEN ideal.run_rank < ideal.ideal_rank THEN 1 ELSE 0 END, ideal.ideal_size
    FROM {{ name }}_ideal AS ideal
    JOIN evaluated_queries ON evaluated_queries.query_number = ideal.query_number
),
{{ name }}_depths AS (
    SELECT query_number, query_id, depth, SUM(entering) AS entering, MAX(ideal_size) AS ideal_size
    FROM {{ name }}_entering
    GROUP BY query_number, query_id, depth
),
{{ name }}_overlaps AS (
    SELECT query_id, depth,
           SUM(entering) OVER (PARTITION BY query_number ORDER BY depth ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
               AS overlap,
           MAX(ideal_size) OVER (PARTITION BY query_number) AS ideal_size
    FROM {{ name }}_depths
),
{{ name }} AS (
    SELECT query_id{% for column in columns %},
           {{ column }}{% endfor %}

    FROM {{ name }}_overlaps
    GROUP BY query_id
)
