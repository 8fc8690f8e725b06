-- sqlrank 0.1.0: LRAP(rel=0,missing_queries=zero,unjudged_queries=zero)
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
    SELECT ordered.*,
           MIN(rank) OVER tie AS tie_first,
           MAX(rank) OVER tie AS tie_last,
           COUNT(*) OVER tie AS tie_size,
           SUM(is_rel_0) OVER tie AS tie_rel_0,
           MIN(rel_0_so_far - is_rel_0) OVER tie AS tie_rel_before_0
    FROM (
    SELECT judged.*,
           ROW_NUMBER() OVER ranking AS rank,
           SUM(is_rel_0) OVER ranking AS rel_0_so_far
    FROM judged
    WINDOW ranking AS (PARTITION BY query_number ORDER BY score DESC NULLS LAST, doc_id DESC
                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
    ) AS ordered
    WINDOW tie AS (PARTITION BY query_id, score)
),
retrieved AS (
    SELECT ranked.query_id AS query_id,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': CAST(tie_rel_before_0 + tie_rel_0 AS DOUBLE)
               / tie_last}) FILTER (WHERE is_rel_0 = 1), 'ASC', 'NULLS LAST')]), 0) AS lrap_sum_0
    FROM ranked
    GROUP BY ranked.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           CASE WHEN num_rel_0 > 0 THEN COALESCE(lrap_sum_0, 0) / num_rel_0 ELSE 1 END
               AS lrap_rel_0_missing_queries_zero_unjudged_queries_zero
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN judgments ON judgments.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.lrap_rel_0_missing_queries_zero_unjudged_queries_zero ORDER BY per_query.query_id))
               / COUNT(per_query.lrap_rel_0_missing_queries_zero_unjudged_queries_zero)
               AS lrap_rel_0_missing_queries_zero_unjudged_queries_zero
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.lrap_rel_0_missing_queries_zero_unjudged_queries_zero
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'LRAP(rel=0,missing_queries=zero,unjudged_queries=zero)')
) AS measures (position, measure)
ORDER BY measures.position
