-- sqlrank 0.1.0: Compat
-- conventions: tie_break=trec_eval, gain=linear, discount=log, log_base=2, ideal=qrels, ap_denominator=num_rel,
--   rel=1, missing_queries=skip, unjudged_queries=skip, no_relevant=zero, judged_only=false, unjudged_label=none,
--   nonpositive_scores=rank, duplicate_documents=refuse, depth=none, trec_eval_version=10
WITH
qrels AS (
    SELECT query_id, doc_id, relevance FROM qrels
),
run AS (
    SELECT query_id, doc_id, score FROM run
),
evaluated_queries AS (
    SELECT query_id,
           CAST(ROW_NUMBER() OVER (ORDER BY query_id) AS INTEGER) AS query_number
    FROM (
        SELECT DISTINCT query_id FROM qrels
        INTERSECT
        SELECT DISTINCT query_id FROM run
    ) AS query_ids
),
judged AS (
    SELECT run.query_id AS query_id,
           evaluated_queries.query_number AS query_number,
           run.doc_id AS doc_id,
           run.score AS score,
           qrels.relevance AS relevance
    FROM run
    JOIN evaluated_queries ON evaluated_queries.query_id = run.query_id
    LEFT JOIN qrels ON qrels.query_id = run.query_id AND qrels.doc_id = run.doc_id
),
ranked AS (
    SELECT judged.*,
           ROW_NUMBER() OVER ranking AS rank
    FROM judged
    WINDOW ranking AS (PARTITION BY query_number ORDER BY score DESC NULLS LAST, doc_id DESC
                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
retrieved AS (
    SELECT ranked.query_id AS query_id
    FROM ranked
    GROUP BY ranked.query_id
),
compat_0p95_1_ranking AS (
    SELECT query_number, query_id, doc_id, rank, score
    FROM ranked
),
compat_0p95_1_judged AS (
    SELECT evaluated_queries.query_number AS query_number,
           qrels.doc_id AS doc_id,
           qrels.relevance AS relevance,
           ranking.rank AS run_rank,
           CASE WHEN ranking.score IS NULL OR ranking.score = 0 THEN 0 ELSE ranking.score END AS run_score
    FROM qrels
    JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
    LEFT JOIN compat_0p95_1_ranking AS ranking
           ON ranking.query_number = evaluated_queries.query_number AND ranking.doc_id = qrels.doc_id
    WHERE qrels.relevance >= 1
),
compat_0p95_1_ideal AS (
    SELECT query_number, doc_id, run_rank,
           ROW_NUMBER() OVER (PARTITION BY query_number
                              ORDER BY relevance DESC, run_score DESC, doc_id DESC) AS ideal_rank,
           COUNT(*) OVER (PARTITION BY query_number) AS ideal_size
    FROM compat_0p95_1_judged
),compat_0p95_1_entering AS (
    SELECT ranking.query_number AS query_number, ranking.query_id AS query_id, ranking.rank AS depth,
           CASE WHEN ideal.ideal_rank <= ranking.rank THEN 1 ELSE 0 END AS entering, 0 AS ideal_size
    FROM compat_0p95_1_ranking AS ranking
    LEFT JOIN compat_0p95_1_ideal AS ideal ON ideal.query_number = ranking.query_number AND ideal.doc_id = ranking.doc_id
    UNION ALL
    SELECT ideal.query_number, evaluated_queries.query_id, ideal.ideal_rank,
           CASE WHEN ideal.run_rank < ideal.ideal_rank THEN 1 ELSE 0 END, ideal.ideal_size
    FROM compat_0p95_1_ideal AS ideal
    JOIN evaluated_queries ON evaluated_queries.query_number = ideal.query_number
),
compat_0p95_1_depths AS (
    SELECT query_number, query_id, depth, SUM(entering) AS entering, MAX(ideal_size) AS ideal_size
    FROM compat_0p95_1_entering
    GROUP BY query_number, query_id, depth
),
compat_0p95_1_overlaps AS (
    SELECT query_id, depth,
           SUM(entering) OVER (PARTITION BY query_number ORDER BY depth ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
               AS overlap,
           MAX(ideal_size) OVER (PARTITION BY query_number) AS ideal_size
    FROM compat_0p95_1_depths
),
compat_0p95_1 AS (
    SELECT query_id,
           list_sum(list(POWER(CAST(0.95 AS DOUBLE), depth - 1) * overlap / depth ORDER BY depth)) AS compat_overlap_0p95_1,
           list_sum(list(POWER(CAST(0.95 AS DOUBLE), depth - 1) * LEAST(depth, ideal_size) / depth ORDER BY depth)) AS compat_ideal_0p95_1,
           list_sum(list(POWER(CAST(0.95 AS DOUBLE), depth - 1) ORDER BY depth)) AS compat_weights_0p95_1
    FROM compat_0p95_1_overlaps
    GROUP BY query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           COALESCE(compat_0p95_1.compat_overlap_0p95_1 / NULLIF(compat_0p95_1.compat_ideal_0p95_1, 0), 0) AS compat
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN compat_0p95_1 ON compat_0p95_1.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.compat ORDER BY per_query.query_id)) / COUNT(per_query.compat) AS compat
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.compat
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'Compat')
) AS measures (position, measure)
ORDER BY measures.position
