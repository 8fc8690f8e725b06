-- sqlrank 0.1.0: Utility
-- conventions: tie_break=trec_eval, gain=linear, discount=log, log_base=2, ideal=run, ap_denominator=retrieved_relevant, rel=1,
--   missing_queries=skip, no_relevant=zero, judged_only=false, depth=none, trec_eval_version=10
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
judgments AS (
    SELECT qrels.query_id AS query_id,
           COUNT(CASE WHEN relevance >= 1 THEN 1 END) AS num_rel_1
    FROM qrels
    JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
    GROUP BY qrels.query_id
),
judged AS (
    SELECT run.query_id AS query_id,
           evaluated_queries.query_number AS query_number,
           run.doc_id AS doc_id,
           run.score AS score,
           qrels.relevance AS relevance,
           CASE WHEN relevance >= 1 THEN 1 ELSE 0 END AS is_rel_1
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
    SELECT ranked.query_id AS query_id,
           SUM(is_rel_1) AS rel_1_retrieved,
           COUNT(*) AS num_ret
    FROM ranked
    GROUP BY ranked.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           CAST(1.0 AS DOUBLE) * CAST(COALESCE(rel_1_retrieved, 0) AS DOUBLE) + CAST(-1.0 AS DOUBLE) * (COALESCE(num_ret, 0)
               - CAST(COALESCE(rel_1_retrieved, 0) AS DOUBLE)) + CAST(0.0 AS DOUBLE) * (COALESCE(num_rel_1, 0)
               - CAST(COALESCE(rel_1_retrieved, 0) AS DOUBLE)) + CAST(0.0 AS DOUBLE) * (0 + CAST(COALESCE(rel_1_retrieved, 0) AS DOUBLE)
               - COALESCE(num_ret, 0) - COALESCE(num_rel_1, 0)) AS utility
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN judgments ON judgments.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT AVG(utility) AS utility
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.utility
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'Utility')
) AS measures (position, measure)
ORDER BY measures.position
