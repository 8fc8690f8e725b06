-- sqlrank 0.1.0: Judged, Judged@10
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
           qrels.relevance AS relevance,
           CASE WHEN relevance IS NOT NULL THEN 1 ELSE 0 END AS has_judgment
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
           COUNT(*) AS num_ret,
           SUM(has_judgment) AS judged_any_retrieved,
           SUM(CASE WHEN rank <= 10 THEN has_judgment ELSE 0 END) AS judged_any_top_10
    FROM ranked
    GROUP BY ranked.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           COALESCE(CAST(judged_any_retrieved AS DOUBLE) / NULLIF(num_ret, 0), 0) AS judged_value,
           COALESCE(CAST(judged_any_top_10 AS DOUBLE) / NULLIF(LEAST(10, num_ret), 0), 0) AS judged_at_10
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.judged_value ORDER BY per_query.query_id)) / COUNT(per_query.judged_value) AS judged_value,
           list_sum(list(per_query.judged_at_10 ORDER BY per_query.query_id)) / COUNT(per_query.judged_at_10) AS judged_at_10
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.judged_value
           WHEN 2 THEN summary.judged_at_10
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'Judged'),
        (2, 'Judged@10')
) AS measures (position, measure)
ORDER BY measures.position
