-- sqlrank 0.1.0: AP(ap_denominator=retrieved_relevant,nonpositive_scores=nonrelevant),
--   AP(ap_denominator=retrieved_relevant,nonpositive_scores=nonrelevant)@10
-- conventions: tie_break=trec_eval, gain=linear, discount=log, log_base=2, ideal=run, ap_denominator=retrieved_relevant,
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
           run.relevance AS relevance,
           CASE WHEN relevance >= 1 THEN 1 ELSE 0 END AS is_rel_1
    FROM (
        SELECT run.*,
               CASE WHEN run.score <= 0 AND qrels.relevance > 0 THEN 0 ELSE qrels.relevance END AS relevance
        FROM run
        LEFT JOIN qrels ON qrels.query_id = run.query_id AND qrels.doc_id = run.doc_id
    ) AS run
    JOIN evaluated_queries ON evaluated_queries.query_id = run.query_id
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
           COALESCE(list_sum([CAST(i AS DOUBLE) / r FOR r, i IN list_sort(list(rank) FILTER (WHERE is_rel_1 = 1))]), 0) AS precision_sum_1,
           SUM(is_rel_1) AS rel_1_retrieved,
           COALESCE(list_sum([CAST(i AS DOUBLE) / r FOR r, i IN list_sort(list(rank) FILTER (WHERE is_rel_1 = 1)) IF r <= 10]), 0)
               AS precision_sum_1_top_10,
           SUM(CASE WHEN rank <= 10 THEN is_rel_1 ELSE 0 END) AS rel_1_top_10
    FROM ranked
    GROUP BY ranked.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           COALESCE(precision_sum_1 / NULLIF(rel_1_retrieved, 0), 0) AS ap_ap_denominator_retrieved_relevant_nonpositive_scores_nonr,
           COALESCE(precision_sum_1_top_10 / NULLIF(rel_1_top_10, 0), 0) AS ap_ap_denominator_retrieved_relevant_nonpositive_scores_nonr_2
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN judgments ON judgments.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.ap_ap_denominator_retrieved_relevant_nonpositive_scores_nonr ORDER BY per_query.query_id))
               / COUNT(per_query.ap_ap_denominator_retrieved_relevant_nonpositive_scores_nonr)
               AS ap_ap_denominator_retrieved_relevant_nonpositive_scores_nonr,
           list_sum(list(per_query.ap_ap_denominator_retrieved_relevant_nonpositive_scores_nonr_2 ORDER BY per_query.query_id))
               / COUNT(per_query.ap_ap_denominator_retrieved_relevant_nonpositive_scores_nonr_2)
               AS ap_ap_denominator_retrieved_relevant_nonpositive_scores_nonr_2
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.ap_ap_denominator_retrieved_relevant_nonpositive_scores_nonr
           WHEN 2 THEN summary.ap_ap_denominator_retrieved_relevant_nonpositive_scores_nonr_2
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'AP(ap_denominator=retrieved_relevant,nonpositive_scores=nonrelevant)'),
        (2, 'AP(ap_denominator=retrieved_relevant,nonpositive_scores=nonrelevant)@10')
) AS measures (position, measure)
ORDER BY measures.position
