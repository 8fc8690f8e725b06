-- sqlrank 0.1.0: RBPResid
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
retrieved_counts AS (
    SELECT query_number, COUNT(*) AS num_ret
    FROM run_ranked
    GROUP BY query_number
),
judged AS (
    SELECT numbered_qrels.query_id AS query_id,
           numbered_qrels.query_number AS query_number,
           run_ranked.doc_id AS doc_id,
           run_ranked.rank AS rank,
           numbered_qrels.relevance AS relevance,
           CASE WHEN relevance IS NULL OR relevance < 0 THEN 1 ELSE 0 END AS is_unjudged
    FROM run_ranked
    JOIN numbered_qrels ON numbered_qrels.query_number = run_ranked.query_number
                       AND numbered_qrels.doc_id = run_ranked.doc_id
),
ranked AS (
    SELECT judged.*
    FROM judged
),
retrieved AS (
    SELECT ranked.query_id AS query_id,
           SUM(CASE WHEN relevance >= 0 THEN 1 ELSE 0 END) AS judged_retrieved,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank,
               'term': POWER(CAST(0.9 AS DOUBLE), rank - 1)}) FILTER (WHERE relevance >= 0), 'ASC', 'NULLS LAST')]), 0)
               AS rbpresid_judged_weight
    FROM ranked
    GROUP BY ranked.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           CASE WHEN COALESCE(num_ret, 0) - COALESCE(judged_retrieved, 0) > 0 THEN POWER(CAST(0.9 AS DOUBLE), COALESCE(num_ret, 0))
               + (1 - CAST(0.9 AS DOUBLE)) * ((1 - POWER(CAST(0.9 AS DOUBLE), COALESCE(num_ret, 0))) / (1 - CAST(0.9 AS DOUBLE))
               - COALESCE(rbpresid_judged_weight, 0)) ELSE 0 END AS rbpresid
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN retrieved_counts ON retrieved_counts.query_number = evaluated_queries.query_number
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.rbpresid ORDER BY per_query.query_id)) / COUNT(per_query.rbpresid) AS rbpresid
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.rbpresid
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'RBPResid')
) AS measures (position, measure)
ORDER BY measures.position
