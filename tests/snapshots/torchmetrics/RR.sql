-- sqlrank 0.1.0: RR(nonpositive_scores=nonrelevant), RR(nonpositive_scores=nonrelevant)@10
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
           MIN(CASE WHEN is_rel_1 = 1 THEN rank END) AS first_rel_1
    FROM ranked
    GROUP BY ranked.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           COALESCE(CAST(1 AS DOUBLE) / first_rel_1, 0) AS rr_nonpositive_scores_nonrelevant,
           CASE WHEN first_rel_1 <= 10 THEN CAST(1 AS DOUBLE) / first_rel_1 ELSE 0 END AS rr_nonpositive_scores_nonrelevant_at_10
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.rr_nonpositive_scores_nonrelevant ORDER BY per_query.query_id))
               / COUNT(per_query.rr_nonpositive_scores_nonrelevant) AS rr_nonpositive_scores_nonrelevant,
           list_sum(list(per_query.rr_nonpositive_scores_nonrelevant_at_10 ORDER BY per_query.query_id))
               / COUNT(per_query.rr_nonpositive_scores_nonrelevant_at_10) AS rr_nonpositive_scores_nonrelevant_at_10
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.rr_nonpositive_scores_nonrelevant
           WHEN 2 THEN summary.rr_nonpositive_scores_nonrelevant_at_10
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'RR(nonpositive_scores=nonrelevant)'),
        (2, 'RR(nonpositive_scores=nonrelevant)@10')
) AS measures (position, measure)
ORDER BY measures.position
