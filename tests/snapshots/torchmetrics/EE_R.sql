-- sqlrank 0.1.0: EE_R, EE_R@10
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
sampled_rankings AS (
    SELECT query_id, sample, doc_id, score FROM samples
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
           numbered_qrels.relevance AS relevance
    FROM run_ranked
    JOIN numbered_qrels ON numbered_qrels.query_number = run_ranked.query_number
                       AND numbered_qrels.doc_id = run_ranked.doc_id
),
ranked AS (
    SELECT judged.*
    FROM judged
),
retrieved AS (
    SELECT ranked.query_id AS query_id
    FROM ranked
    GROUP BY ranked.query_id
),
expected_0p5_all_ranked AS (
    SELECT samples.query_id AS query_id, samples.doc_id AS doc_id, samples."sample" AS sample_id,
           ROW_NUMBER() OVER (PARTITION BY samples.query_id, samples."sample"
                              ORDER BY samples.score DESC NULLS LAST, samples.doc_id DESC) AS rank,
           counts.samples AS samples
    FROM sampled_rankings AS samples
    JOIN evaluated_queries ON evaluated_queries.query_id = samples.query_id
    JOIN (SELECT query_id, COUNT(DISTINCT "sample") AS samples FROM sampled_rankings GROUP BY query_id) AS counts
      ON counts.query_id = samples.query_id
),
expected_0p5_all_exposed AS (
    SELECT query_id, doc_id, list_sum(list(POWER(CAST(0.5 AS DOUBLE), rank - 1) ORDER BY sample_id)) / MAX(samples) AS exposure
    FROM expected_0p5_all_ranked
    GROUP BY query_id, doc_id
),
expected_0p5_all_targets AS (
    SELECT query_id, doc_id, (POWER(CAST(0.5 AS DOUBLE), through - size) - POWER(CAST(0.5 AS DOUBLE), through))
        / (size * (1 - CAST(0.5 AS DOUBLE))) AS target
    FROM (
        SELECT qrels.query_id AS query_id, qrels.doc_id AS doc_id,
               COUNT(*) OVER (PARTITION BY qrels.query_id, qrels.relevance) AS size,
               COUNT(*) OVER (PARTITION BY qrels.query_id ORDER BY qrels.relevance DESC
                              RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS through
        FROM qrels
        JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
        WHERE qrels.relevance > 0
    ) AS levels
),
expected_0p5_all_pairs AS (
    SELECT COALESCE(exposed.query_id, targets.query_id) AS query_id,
           COALESCE(exposed.doc_id, targets.doc_id) AS doc_id,
           COALESCE(exposed.exposure, 0) AS exposure,
           COALESCE(targets.target, 0) AS target
    FROM expected_0p5_all_exposed AS exposed
    FULL OUTER JOIN expected_0p5_all_targets AS targets ON targets.query_id = exposed.query_id AND targets.doc_id = exposed.doc_id
),
expected_0p5_all AS (
    SELECT query_id,
           list_sum(list(exposure * target ORDER BY doc_id)) AS ee_0p5_all_relevance
    FROM expected_0p5_all_pairs
    GROUP BY query_id
),
expected_0p5_top_10_ranked AS (
    SELECT samples.query_id AS query_id, samples.doc_id AS doc_id, samples."sample" AS sample_id,
           ROW_NUMBER() OVER (PARTITION BY samples.query_id, samples."sample"
                              ORDER BY samples.score DESC NULLS LAST, samples.doc_id DESC) AS rank,
           counts.samples AS samples
    FROM sampled_rankings AS samples
    JOIN evaluated_queries ON evaluated_queries.query_id = samples.query_id
    JOIN (SELECT query_id, COUNT(DISTINCT "sample") AS samples FROM sampled_rankings GROUP BY query_id) AS counts
      ON counts.query_id = samples.query_id
),
expected_0p5_top_10_exposed AS (
    SELECT query_id, doc_id, list_sum(list(POWER(CAST(0.5 AS DOUBLE), rank - 1) ORDER BY sample_id)) / MAX(samples) AS exposure
    FROM expected_0p5_top_10_ranked
    WHERE rank <= 10
    GROUP BY query_id, doc_id
),
expected_0p5_top_10_targets AS (
    SELECT query_id, doc_id, (POWER(CAST(0.5 AS DOUBLE), through - size) - POWER(CAST(0.5 AS DOUBLE), through))
        / (size * (1 - CAST(0.5 AS DOUBLE))) AS target
    FROM (
        SELECT qrels.query_id AS query_id, qrels.doc_id AS doc_id,
               COUNT(*) OVER (PARTITION BY qrels.query_id, qrels.relevance) AS size,
               COUNT(*) OVER (PARTITION BY qrels.query_id ORDER BY qrels.relevance DESC
                              RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS through
        FROM qrels
        JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
        WHERE qrels.relevance > 0
    ) AS levels
),
expected_0p5_top_10_pairs AS (
    SELECT COALESCE(exposed.query_id, targets.query_id) AS query_id,
           COALESCE(exposed.doc_id, targets.doc_id) AS doc_id,
           COALESCE(exposed.exposure, 0) AS exposure,
           COALESCE(targets.target, 0) AS target
    FROM expected_0p5_top_10_exposed AS exposed
    FULL OUTER JOIN expected_0p5_top_10_targets AS targets ON targets.query_id = exposed.query_id AND targets.doc_id = exposed.doc_id
),
expected_0p5_top_10 AS (
    SELECT query_id,
           list_sum(list(exposure * target ORDER BY doc_id)) AS ee_0p5_top_10_relevance
    FROM expected_0p5_top_10_pairs
    GROUP BY query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           COALESCE(ee_0p5_all_relevance, 0) AS ee_r,
           COALESCE(ee_0p5_top_10_relevance, 0) AS ee_r_at_10
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN expected_0p5_all ON expected_0p5_all.query_id = evaluated_queries.query_id
    LEFT JOIN expected_0p5_top_10 ON expected_0p5_top_10.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.ee_r ORDER BY per_query.query_id)) / COUNT(per_query.ee_r) AS ee_r,
           list_sum(list(per_query.ee_r_at_10 ORDER BY per_query.query_id)) / COUNT(per_query.ee_r_at_10) AS ee_r_at_10
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.ee_r
           WHEN 2 THEN summary.ee_r_at_10
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'EE_R'),
        (2, 'EE_R@10')
) AS measures (position, measure)
ORDER BY measures.position
