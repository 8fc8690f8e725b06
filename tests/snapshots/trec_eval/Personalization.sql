-- sqlrank 0.1.0: Personalization@10
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
personalized_top_10_top AS (
    SELECT query_id, doc_id, '' AS run_key
    FROM ranked
    WHERE rank <= 10
),
personalized_top_10_items AS (
    SELECT run_key, doc_id, COUNT(*) AS holders
    FROM personalized_top_10_top
    GROUP BY run_key, doc_id
),
personalized_top_10_users AS (
    SELECT run_key, COUNT(DISTINCT query_id) AS users
    FROM personalized_top_10_top
    GROUP BY run_key
),
personalized_top_10 AS (
    SELECT top_items.query_id AS query_id,
           1 - CAST(SUM(held.holders - 1) AS DOUBLE) / NULLIF(10 * (MAX(users.users) - 1), 0) AS personalization
    FROM personalized_top_10_top AS top_items
    JOIN personalized_top_10_items AS held ON held.run_key = top_items.run_key AND held.doc_id = top_items.doc_id
    JOIN personalized_top_10_users AS users ON users.run_key = top_items.run_key
    GROUP BY top_items.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           personalized_top_10.personalization AS personalization_at_10
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN personalized_top_10 ON personalized_top_10.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.personalization_at_10 ORDER BY per_query.query_id)) / COUNT(per_query.personalization_at_10)
               AS personalization_at_10,
           COUNT(per_query.personalization_at_10) AS personalization_at_10_queries
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.personalization_at_10
       END AS value,
       CASE measures.position
           WHEN 1 THEN summary.personalization_at_10_queries
       END AS queries
FROM summary
CROSS JOIN (
    VALUES
        (1, 'Personalization@10')
) AS measures (position, measure)
ORDER BY measures.position
