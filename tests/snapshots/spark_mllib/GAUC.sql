-- sqlrank 0.1.0: GAUC(rel=0,missing_queries=zero,unjudged_queries=zero)
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
numbered_qrels AS MATERIALIZED (
    SELECT qrels.query_id AS query_id,
           evaluated_queries.query_number AS query_number,
           qrels.doc_id AS doc_id,
           qrels.relevance AS relevance
    FROM qrels
    JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
),
run_ranked AS (
    SELECT evaluated_queries.query_number AS query_number,
           run.doc_id AS doc_id,
           ROW_NUMBER() OVER (PARTITION BY evaluated_queries.query_number ORDER BY score DESC NULLS LAST, doc_id DESC) AS rank
    FROM run
    JOIN evaluated_queries ON evaluated_queries.query_id = run.query_id
),
judged AS (
    SELECT numbered_qrels.query_id AS query_id,
           numbered_qrels.query_number AS query_number,
           run_ranked.doc_id AS doc_id,
           run_ranked.rank AS rank,
           numbered_qrels.relevance AS relevance,
           CASE WHEN relevance >= 0 THEN 1 ELSE 0 END AS is_rel_0,
           CASE WHEN relevance >= 0 AND relevance < 0 THEN 1 ELSE 0 END AS is_nonrel_0
    FROM run_ranked
    JOIN numbered_qrels ON numbered_qrels.query_number = run_ranked.query_number
                       AND numbered_qrels.doc_id = run_ranked.doc_id
),
ranked AS (
    SELECT judged.*,
           SUM(is_nonrel_0) OVER ranking AS nonrel_0_so_far
    FROM judged
    WINDOW ranking AS (PARTITION BY query_number ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
retrieved AS (
    SELECT ranked.query_id AS query_id,
           SUM(CASE WHEN is_rel_0 = 1 THEN nonrel_0_so_far ELSE 0 END) AS auc_misordered_0,
           SUM(is_rel_0) AS auc_positive_0,
           SUM(is_nonrel_0) AS auc_negative_0
    FROM ranked
    GROUP BY ranked.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           CASE WHEN evaluated_queries.answered THEN 1 - CAST(auc_misordered_0 AS DOUBLE)
               / NULLIF(CAST(auc_positive_0 AS DOUBLE) * auc_negative_0, 0) ELSE 0 END
               AS gauc_rel_0_missing_queries_zero_unjudged_queries_zero,
           auc_positive_0 + auc_negative_0 AS gauc_rel_0_missing_queries_zero_unjudged_queries_zero_weight
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.gauc_rel_0_missing_queries_zero_unjudged_queries_zero
               * per_query.gauc_rel_0_missing_queries_zero_unjudged_queries_zero_weight ORDER BY per_query.query_id))
               / NULLIF(SUM(CASE WHEN per_query.gauc_rel_0_missing_queries_zero_unjudged_queries_zero IS NOT NULL
               THEN per_query.gauc_rel_0_missing_queries_zero_unjudged_queries_zero_weight END), 0)
               AS gauc_rel_0_missing_queries_zero_unjudged_queries_zero,
           COUNT(per_query.gauc_rel_0_missing_queries_zero_unjudged_queries_zero)
               AS gauc_rel_0_missing_queries_zero_unjudged_queries_zero_querie
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.gauc_rel_0_missing_queries_zero_unjudged_queries_zero
       END AS value,
       CASE measures.position
           WHEN 1 THEN summary.gauc_rel_0_missing_queries_zero_unjudged_queries_zero_querie
       END AS queries
FROM summary
CROSS JOIN (
    VALUES
        (1, 'GAUC(rel=0,missing_queries=zero,unjudged_queries=zero)')
) AS measures (position, measure)
ORDER BY measures.position
