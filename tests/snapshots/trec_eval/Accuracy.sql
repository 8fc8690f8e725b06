-- sqlrank 0.1.0: Accuracy, Accuracy@10
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
           qrels.relevance AS relevance,
           CASE WHEN relevance >= 1 THEN 1 ELSE 0 END AS is_rel_1
    FROM run
    JOIN evaluated_queries ON evaluated_queries.query_id = run.query_id
    LEFT JOIN qrels ON qrels.query_id = run.query_id AND qrels.doc_id = run.doc_id
),
ranked AS (
    SELECT judged.*,
           ROW_NUMBER() OVER ranking AS rank,
           SUM(is_rel_1) OVER ranking AS rel_1_so_far
    FROM judged
    WINDOW ranking AS (PARTITION BY query_number ORDER BY score DESC NULLS LAST, doc_id DESC
                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
retrieved AS (
    SELECT ranked.query_id AS query_id,
           SUM(CASE WHEN is_rel_1 = 1 THEN rank - rel_1_so_far ELSE 0 END) AS accuracy_above_1,
           SUM(CASE WHEN is_rel_1 = 0 THEN 1 ELSE 0 END) AS accuracy_other_1,
           SUM(is_rel_1) AS rel_1_retrieved,
           SUM(CASE WHEN is_rel_1 = 1 AND rank <= 10 THEN rank - rel_1_so_far ELSE 0 END) AS accuracy_above_1_top_10,
           SUM(CASE WHEN is_rel_1 = 0 AND rank <= 10 THEN 1 ELSE 0 END) AS accuracy_other_1_top_10,
           SUM(CASE WHEN rank <= 10 THEN is_rel_1 ELSE 0 END) AS rel_1_top_10
    FROM ranked
    GROUP BY ranked.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           CASE WHEN COALESCE(rel_1_retrieved, 0) = 0 THEN NULL WHEN accuracy_other_1 = 0 THEN 1 ELSE 1 - CAST(accuracy_above_1 AS DOUBLE)
               / (CAST(accuracy_other_1 AS DOUBLE) * rel_1_retrieved) END AS accuracy,
           CASE WHEN COALESCE(rel_1_top_10, 0) = 0 THEN NULL WHEN accuracy_other_1_top_10 = 0 THEN 1 ELSE 1
               - CAST(accuracy_above_1_top_10 AS DOUBLE) / (CAST(accuracy_other_1_top_10 AS DOUBLE) * rel_1_top_10) END AS accuracy_at_10
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.accuracy ORDER BY per_query.query_id)) / COUNT(per_query.accuracy) AS accuracy,
           COUNT(per_query.accuracy) AS accuracy_queries,
           list_sum(list(per_query.accuracy_at_10 ORDER BY per_query.query_id)) / COUNT(per_query.accuracy_at_10) AS accuracy_at_10,
           COUNT(per_query.accuracy_at_10) AS accuracy_at_10_queries
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.accuracy
           WHEN 2 THEN summary.accuracy_at_10
       END AS value,
       CASE measures.position
           WHEN 1 THEN summary.accuracy_queries
           WHEN 2 THEN summary.accuracy_at_10_queries
       END AS queries
FROM summary
CROSS JOIN (
    VALUES
        (1, 'Accuracy'),
        (2, 'Accuracy@10')
) AS measures (position, measure)
ORDER BY measures.position
