-- sqlrank 0.1.0: FallOut(rel=0,missing_queries=zero,unjudged_queries=zero), FallOut(rel=0,missing_queries=zero,unjudged_queries=zero)@10
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
    SELECT query_id,
           CAST(ROW_NUMBER() OVER (ORDER BY query_id) AS INTEGER) AS query_number
    FROM (
        SELECT DISTINCT query_id FROM qrels
        UNION
        SELECT DISTINCT query_id FROM run
    ) AS query_ids
),
judgments AS (
    SELECT qrels.query_id AS query_id,
           COUNT(CASE WHEN relevance >= 0 AND relevance < 0 THEN 1 END) AS num_nonrel_0
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
           CASE WHEN relevance >= 0 AND relevance < 0 THEN 1 ELSE 0 END AS is_nonrel_0
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
           SUM(is_nonrel_0) AS is_nonrel_0_in_ranking,
           SUM(CASE WHEN rank <= 10 THEN is_nonrel_0 ELSE 0 END) AS is_nonrel_0_top_10
    FROM ranked
    GROUP BY ranked.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           CASE WHEN COALESCE(num_nonrel_0, 0) = 0 THEN CAST(0 AS DOUBLE) ELSE CAST(COALESCE(is_nonrel_0_in_ranking, 0) AS DOUBLE)
               / num_nonrel_0 END AS fallout_rel_0_missing_queries_zero_unjudged_queries_zero,
           CASE WHEN COALESCE(num_nonrel_0, 0) = 0 THEN CAST(0 AS DOUBLE) ELSE CAST(COALESCE(is_nonrel_0_top_10, 0) AS DOUBLE)
               / num_nonrel_0 END AS fallout_rel_0_missing_queries_zero_unjudged_queries_zero_at_
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN judgments ON judgments.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.fallout_rel_0_missing_queries_zero_unjudged_queries_zero ORDER BY per_query.query_id))
               / COUNT(per_query.fallout_rel_0_missing_queries_zero_unjudged_queries_zero)
               AS fallout_rel_0_missing_queries_zero_unjudged_queries_zero,
           list_sum(list(per_query.fallout_rel_0_missing_queries_zero_unjudged_queries_zero_at_ ORDER BY per_query.query_id))
               / COUNT(per_query.fallout_rel_0_missing_queries_zero_unjudged_queries_zero_at_)
               AS fallout_rel_0_missing_queries_zero_unjudged_queries_zero_at_
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.fallout_rel_0_missing_queries_zero_unjudged_queries_zero
           WHEN 2 THEN summary.fallout_rel_0_missing_queries_zero_unjudged_queries_zero_at_
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'FallOut(rel=0,missing_queries=zero,unjudged_queries=zero)'),
        (2, 'FallOut(rel=0,missing_queries=zero,unjudged_queries=zero)@10')
) AS measures (position, measure)
ORDER BY measures.position
