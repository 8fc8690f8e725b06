-- sqlrank 0.1.0: AP(rel=0,ap_denominator=min_num_rel_cutoff,missing_queries=zero,unjudged_queries=zero),
--   AP(rel=0,ap_denominator=min_num_rel_cutoff,missing_queries=zero,unjudged_queries=zero)@10
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
           COUNT(CASE WHEN relevance >= 0 THEN 1 END) AS num_rel_0
    FROM qrels
    JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
    GROUP BY qrels.query_id
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
           CASE WHEN relevance >= 0 THEN 1 ELSE 0 END AS is_rel_0
    FROM run_ranked
    JOIN numbered_qrels ON numbered_qrels.query_number = run_ranked.query_number
                       AND numbered_qrels.doc_id = run_ranked.doc_id
    WHERE numbered_qrels.relevance >= 0
),
ranked AS (
    SELECT judged.*
    FROM judged
),
retrieved AS (
    SELECT ranked.query_id AS query_id,
           COALESCE(list_sum([CAST(i AS DOUBLE) / r FOR r, i IN list_sort(list(rank) FILTER (WHERE is_rel_0 = 1))]), 0) AS precision_sum_0,
           COALESCE(list_sum([CAST(i AS DOUBLE) / r FOR r, i IN list_sort(list(rank) FILTER (WHERE is_rel_0 = 1)) IF r <= 10]), 0)
               AS precision_sum_0_top_10
    FROM ranked
    GROUP BY ranked.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           COALESCE(precision_sum_0 / NULLIF(num_rel_0, 0), 0) AS ap_rel_0_ap_denominator_min_num_rel_cutoff_missing_queries_z,
           COALESCE(precision_sum_0_top_10 / NULLIF(LEAST(num_rel_0, 10), 0), 0)
               AS ap_rel_0_ap_denominator_min_num_rel_cutoff_missing_queries_z_2
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN judgments ON judgments.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.ap_rel_0_ap_denominator_min_num_rel_cutoff_missing_queries_z ORDER BY per_query.query_id))
               / COUNT(per_query.ap_rel_0_ap_denominator_min_num_rel_cutoff_missing_queries_z)
               AS ap_rel_0_ap_denominator_min_num_rel_cutoff_missing_queries_z,
           list_sum(list(per_query.ap_rel_0_ap_denominator_min_num_rel_cutoff_missing_queries_z_2 ORDER BY per_query.query_id))
               / COUNT(per_query.ap_rel_0_ap_denominator_min_num_rel_cutoff_missing_queries_z_2)
               AS ap_rel_0_ap_denominator_min_num_rel_cutoff_missing_queries_z_2
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.ap_rel_0_ap_denominator_min_num_rel_cutoff_missing_queries_z
           WHEN 2 THEN summary.ap_rel_0_ap_denominator_min_num_rel_cutoff_missing_queries_z_2
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'AP(rel=0,ap_denominator=min_num_rel_cutoff,missing_queries=zero,unjudged_queries=zero)'),
        (2, 'AP(rel=0,ap_denominator=min_num_rel_cutoff,missing_queries=zero,unjudged_queries=zero)@10')
) AS measures (position, measure)
ORDER BY measures.position
