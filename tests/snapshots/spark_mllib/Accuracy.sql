-- sqlrank 0.1.0: Accuracy(rel=0,missing_queries=zero,unjudged_queries=zero), Accuracy(rel=0,missing_queries=zero,unjudged_queries=zero)@10
-- conventions: tie_break=trec_eval, gain=exponential, discount=log, log_base=2, ideal=qrels, ap_denominator=min_num_rel_cutoff,
--   rel=0, missing_queries=zero, unjudged_queries=zero, no_relevant=zero, judged_only=false, unjudged_label=none,
--   nonpositive_scores=rank, duplicate_documents=refuse, depth=none, trec_eval_version=10
WITH
qrels AS (
    SELECT query_id, doc_id, relevance FROM qrels
),
run AS (
    SELECT query_id, doc_id, score FROM run
),
evaluated_queries AS (
    SELECT query_ids.query_id AS query_id,
           CAST(ROW_NUMBER() OVER (ORDER BY query_ids.query_id) AS INTEGER) AS query_number,
           answered_ids.query_id IS NOT NULL AS answered
    FROM (
        SELECT DISTINCT query_id FROM qrels
        UNION
        SELECT DISTINCT query_id FROM run
    ) AS query_ids
    LEFT JOIN (SELECT DISTINCT query_id FROM run) AS answered_ids ON answered_ids.query_id = query_ids.query_id
),
judged AS (
    SELECT run.query_id AS query_id,
           evaluated_queries.query_number AS query_number,
           run.doc_id AS doc_id,
           run.score AS score,
           qrels.relevance AS relevance,
           CASE WHEN relevance >= 0 THEN 1 ELSE 0 END AS is_rel_0
    FROM run
    JOIN evaluated_queries ON evaluated_queries.query_id = run.query_id
    LEFT JOIN qrels ON qrels.query_id = run.query_id AND qrels.doc_id = run.doc_id
),
ranked AS (
    SELECT judged.*,
           ROW_NUMBER() OVER ranking AS rank,
           SUM(is_rel_0) OVER ranking AS rel_0_so_far
    FROM judged
    WINDOW ranking AS (PARTITION BY query_number ORDER BY score DESC NULLS LAST, doc_id DESC
                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
retrieved AS (
    SELECT ranked.query_id AS query_id,
           SUM(CASE WHEN is_rel_0 = 1 THEN rank - rel_0_so_far ELSE 0 END) AS accuracy_above_0,
           SUM(CASE WHEN is_rel_0 = 0 THEN 1 ELSE 0 END) AS accuracy_other_0,
           SUM(is_rel_0) AS rel_0_retrieved,
           SUM(CASE WHEN is_rel_0 = 1 AND rank <= 10 THEN rank - rel_0_so_far ELSE 0 END) AS accuracy_above_0_top_10,
           SUM(CASE WHEN is_rel_0 = 0 AND rank <= 10 THEN 1 ELSE 0 END) AS accuracy_other_0_top_10,
           SUM(CASE WHEN rank <= 10 THEN is_rel_0 ELSE 0 END) AS rel_0_top_10
    FROM ranked
    GROUP BY ranked.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           CASE WHEN evaluated_queries.answered THEN CASE WHEN COALESCE(rel_0_retrieved, 0) = 0 THEN NULL WHEN accuracy_other_0 = 0
               THEN 1 ELSE 1 - CAST(accuracy_above_0 AS DOUBLE) / (CAST(accuracy_other_0 AS DOUBLE) * rel_0_retrieved) END ELSE 0 END
               AS accuracy_rel_0_missing_queries_zero_unjudged_queries_zero,
           CASE WHEN evaluated_queries.answered THEN CASE WHEN COALESCE(rel_0_top_10, 0) = 0 THEN NULL WHEN accuracy_other_0_top_10 = 0
               THEN 1 ELSE 1 - CAST(accuracy_above_0_top_10 AS DOUBLE) / (CAST(accuracy_other_0_top_10 AS DOUBLE) * rel_0_top_10) END
               ELSE 0 END AS accuracy_rel_0_missing_queries_zero_unjudged_queries_zero_at
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.accuracy_rel_0_missing_queries_zero_unjudged_queries_zero ORDER BY per_query.query_id))
               / COUNT(per_query.accuracy_rel_0_missing_queries_zero_unjudged_queries_zero)
               AS accuracy_rel_0_missing_queries_zero_unjudged_queries_zero,
           COUNT(per_query.accuracy_rel_0_missing_queries_zero_unjudged_queries_zero)
               AS accuracy_rel_0_missing_queries_zero_unjudged_queries_zero_qu,
           list_sum(list(per_query.accuracy_rel_0_missing_queries_zero_unjudged_queries_zero_at ORDER BY per_query.query_id))
               / COUNT(per_query.accuracy_rel_0_missing_queries_zero_unjudged_queries_zero_at)
               AS accuracy_rel_0_missing_queries_zero_unjudged_queries_zero_at,
           COUNT(per_query.accuracy_rel_0_missing_queries_zero_unjudged_queries_zero_at)
               AS accuracy_rel_0_missing_queries_zero_unjudged_queries_zero_at_2
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.accuracy_rel_0_missing_queries_zero_unjudged_queries_zero
           WHEN 2 THEN summary.accuracy_rel_0_missing_queries_zero_unjudged_queries_zero_at
       END AS value,
       CASE measures.position
           WHEN 1 THEN summary.accuracy_rel_0_missing_queries_zero_unjudged_queries_zero_qu
           WHEN 2 THEN summary.accuracy_rel_0_missing_queries_zero_unjudged_queries_zero_at_2
       END AS queries
FROM summary
CROSS JOIN (
    VALUES
        (1, 'Accuracy(rel=0,missing_queries=zero,unjudged_queries=zero)'),
        (2, 'Accuracy(rel=0,missing_queries=zero,unjudged_queries=zero)@10')
) AS measures (position, measure)
ORDER BY measures.position
