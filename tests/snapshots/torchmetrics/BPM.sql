-- sqlrank 0.1.0: BPM
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
           CASE WHEN relevance > 0 THEN CAST(relevance AS DOUBLE) / CAST(1 AS DOUBLE) ELSE 0 END AS cwl_gain_1
    FROM run
    JOIN evaluated_queries ON evaluated_queries.query_id = run.query_id
    LEFT JOIN qrels ON qrels.query_id = run.query_id AND qrels.doc_id = run.doc_id
),
ranked AS (
    SELECT judged.*,
           ROW_NUMBER() OVER ranking AS rank,
           SUM(cwl_gain_1) OVER ranking AS cwl_gain_1_so_far
    FROM judged
    WINDOW ranking AS (PARTITION BY query_number ORDER BY score DESC NULLS LAST, doc_id DESC
                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
retrieved AS (
    SELECT ranked.query_id AS query_id,
           MIN(CASE WHEN cwl_gain_1_so_far >= (CAST(1.0 AS DOUBLE) - 1e-9) THEN rank END) AS bpm_reached_1p0_1,
           SUM(CASE WHEN rank <= 1000 AND (rank = 1 OR cwl_gain_1_so_far - cwl_gain_1 < (CAST(1.0 AS DOUBLE) - 1e-9)) THEN cwl_gain_1
               ELSE 0 END) AS bpm_read_1p0_1000_1
    FROM ranked
    GROUP BY ranked.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           COALESCE(bpm_read_1p0_1000_1, 0) / CASE WHEN bpm_reached_1p0_1 < 1000 THEN bpm_reached_1p0_1 ELSE 1000 END AS bpm
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.bpm ORDER BY per_query.query_id)) / COUNT(per_query.bpm) AS bpm
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.bpm
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'BPM')
) AS measures (position, measure)
ORDER BY measures.position
