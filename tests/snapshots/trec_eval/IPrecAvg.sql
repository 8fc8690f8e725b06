-- sqlrank 0.1.0: IPrecAvg
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
           COUNT(CASE WHEN relevance >= 1 THEN 1 END) AS num_rel_1
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
           CASE WHEN relevance >= 1 THEN 1 ELSE 0 END AS is_rel_1
    FROM run_ranked
    JOIN numbered_qrels ON numbered_qrels.query_number = run_ranked.query_number
                       AND numbered_qrels.doc_id = run_ranked.doc_id
    WHERE numbered_qrels.relevance >= 1
),
ranked AS (
    SELECT judged.*,
           SUM(is_rel_1) OVER ranking AS rel_1_so_far
    FROM judged
    WINDOW ranking AS (PARTITION BY query_number ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
retrieved AS (
    SELECT ranked.query_id AS query_id
    FROM ranked
    GROUP BY ranked.query_id
),
iprec_1_interpolated AS (
    SELECT query_id,
           rel_1_so_far AS relevant_seen,
           MAX(CAST(rel_1_so_far AS DOUBLE) / rank) OVER (
               PARTITION BY query_id ORDER BY rank DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS precision
    FROM ranked
    WHERE is_rel_1 = 1
),
iprec_1 AS (
    SELECT interpolated.query_id AS query_id,
           (COALESCE(MAX(CASE WHEN relevant_seen = GREATEST(ROUND(CAST(0.0 AS DOUBLE) * num_rel_1), 1) THEN precision END), 0)
               + COALESCE(MAX(CASE WHEN relevant_seen = GREATEST(ROUND(CAST(0.1 AS DOUBLE) * num_rel_1), 1) THEN precision END), 0)
               + COALESCE(MAX(CASE WHEN relevant_seen = GREATEST(ROUND(CAST(0.2 AS DOUBLE) * num_rel_1), 1) THEN precision END), 0)
               + COALESCE(MAX(CASE WHEN relevant_seen = GREATEST(ROUND(CAST(0.3 AS DOUBLE) * num_rel_1), 1) THEN precision END), 0)
               + COALESCE(MAX(CASE WHEN relevant_seen = GREATEST(ROUND(CAST(0.4 AS DOUBLE) * num_rel_1), 1) THEN precision END), 0)
               + COALESCE(MAX(CASE WHEN relevant_seen = GREATEST(ROUND(CAST(0.5 AS DOUBLE) * num_rel_1), 1) THEN precision END), 0)
               + COALESCE(MAX(CASE WHEN relevant_seen = GREATEST(ROUND(CAST(0.6 AS DOUBLE) * num_rel_1), 1) THEN precision END), 0)
               + COALESCE(MAX(CASE WHEN relevant_seen = GREATEST(ROUND(CAST(0.7 AS DOUBLE) * num_rel_1), 1) THEN precision END), 0)
               + COALESCE(MAX(CASE WHEN relevant_seen = GREATEST(ROUND(CAST(0.8 AS DOUBLE) * num_rel_1), 1) THEN precision END), 0)
               + COALESCE(MAX(CASE WHEN relevant_seen = GREATEST(ROUND(CAST(0.9 AS DOUBLE) * num_rel_1), 1) THEN precision END), 0)
               + COALESCE(MAX(CASE WHEN relevant_seen = GREATEST(ROUND(CAST(1.0 AS DOUBLE) * num_rel_1), 1) THEN precision END), 0)) / 11
               AS iprecavg_average
    FROM iprec_1_interpolated AS interpolated
    JOIN judgments ON judgments.query_id = interpolated.query_id
    GROUP BY interpolated.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           COALESCE(iprecavg_average, 0) AS iprecavg
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN judgments ON judgments.query_id = evaluated_queries.query_id
    LEFT JOIN iprec_1 ON iprec_1.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.iprecavg ORDER BY per_query.query_id)) / COUNT(per_query.iprecavg) AS iprecavg
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.iprecavg
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'IPrecAvg')
) AS measures (position, measure)
ORDER BY measures.position
