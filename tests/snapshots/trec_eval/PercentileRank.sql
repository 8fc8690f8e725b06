-- sqlrank 0.1.0: PercentileRank
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
judgments AS (
    SELECT qrels.query_id AS query_id,
           SUM(CASE WHEN relevance > 0 THEN CAST(relevance AS DOUBLE) ELSE 0 END) AS judged_cg
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
           CASE WHEN relevance > 0 THEN CAST(relevance AS DOUBLE) ELSE 0 END AS gain
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
           SUM(gain * (rank - 1)) / COUNT(*) AS percentile_placed,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': gain}), 'ASC', 'NULLS LAST')]), 0) AS cg
    FROM ranked
    GROUP BY ranked.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           COALESCE((COALESCE(percentile_placed, 0) + judged_cg - COALESCE(cg, 0)) / NULLIF(judged_cg, 0), 0) AS percentilerank
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN judgments ON judgments.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.percentilerank ORDER BY per_query.query_id)) / COUNT(per_query.percentilerank) AS percentilerank
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.percentilerank
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'PercentileRank')
) AS measures (position, measure)
ORDER BY measures.position
