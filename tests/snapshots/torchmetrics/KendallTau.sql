-- sqlrank 0.1.0: KendallTau, KendallTau@10
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
    SELECT ranked.query_id AS query_id,
           COUNT(*) AS kendall_n_all,
           SUM(CASE WHEN rank <= 10 THEN 1 ELSE 0 END) AS kendall_n_top_10
    FROM ranked
    GROUP BY ranked.query_id
),
pairs_labelled AS (
    SELECT query_number, query_id, rank, COALESCE(relevance, 0) AS label
    FROM ranked
),
pairs AS (
    SELECT higher.query_id AS query_id,
           SUM(CASE WHEN higher.label > lower.label THEN 1 WHEN higher.label < lower.label THEN -1 ELSE 0 END) AS kendall_s_all,
           SUM(CASE WHEN higher.label = lower.label THEN 1 ELSE 0 END) AS kendall_tied_all,
           SUM(CASE WHEN lower.rank <= 10 AND higher.label > lower.label THEN 1 WHEN lower.rank <= 10 AND higher.label < lower.label
               THEN -1 ELSE 0 END) AS kendall_s_top_10,
           SUM(CASE WHEN lower.rank <= 10 AND higher.label = lower.label THEN 1 ELSE 0 END) AS kendall_tied_top_10
    FROM pairs_labelled AS higher
    JOIN pairs_labelled AS lower ON lower.query_number = higher.query_number AND lower.rank > higher.rank
    GROUP BY higher.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           COALESCE(COALESCE(pairs.kendall_s_all, 0) / NULLIF(SQRT((CAST(kendall_n_all AS DOUBLE) * (CAST(kendall_n_all AS DOUBLE) - 1)
               / 2) * ((CAST(kendall_n_all AS DOUBLE) * (CAST(kendall_n_all AS DOUBLE) - 1) / 2)
               - COALESCE(pairs.kendall_tied_all, 0))), 0), 0) AS kendalltau,
           COALESCE(COALESCE(pairs.kendall_s_top_10, 0) / NULLIF(SQRT((CAST(kendall_n_top_10 AS DOUBLE)
               * (CAST(kendall_n_top_10 AS DOUBLE) - 1) / 2)
               * ((CAST(kendall_n_top_10 AS DOUBLE) * (CAST(kendall_n_top_10 AS DOUBLE) - 1) / 2)
               - COALESCE(pairs.kendall_tied_top_10, 0))), 0), 0) AS kendalltau_at_10
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN pairs ON pairs.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.kendalltau ORDER BY per_query.query_id)) / COUNT(per_query.kendalltau) AS kendalltau,
           list_sum(list(per_query.kendalltau_at_10 ORDER BY per_query.query_id)) / COUNT(per_query.kendalltau_at_10) AS kendalltau_at_10
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.kendalltau
           WHEN 2 THEN summary.kendalltau_at_10
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'KendallTau'),
        (2, 'KendallTau@10')
) AS measures (position, measure)
ORDER BY measures.position
