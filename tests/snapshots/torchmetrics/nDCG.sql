-- sqlrank 0.1.0: nDCG(ideal=run,tie_break=expected), nDCG(ideal=run,tie_break=expected)@10
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
           CASE WHEN relevance > 0 THEN CAST(relevance AS DOUBLE) ELSE 0 END AS gain
    FROM run
    JOIN evaluated_queries ON evaluated_queries.query_id = run.query_id
    LEFT JOIN qrels ON qrels.query_id = run.query_id AND qrels.doc_id = run.doc_id
),
ranked AS (
    SELECT ordered.*,
           MIN(rank) OVER tie AS tie_first,
           MAX(rank) OVER tie AS tie_last,
           COUNT(*) OVER tie AS tie_size,
           AVG(1 / LOG2(rank + 1)) OVER tie AS tie_discount,
           AVG(CASE WHEN rank <= 10 THEN 1 / LOG2(rank + 1) ELSE 0 END) OVER tie AS tie_discount_top_10
    FROM (
    SELECT judged.*,
           ROW_NUMBER() OVER ranking AS rank
    FROM judged
    WINDOW ranking AS (PARTITION BY query_number ORDER BY score DESC NULLS LAST, doc_id DESC
                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
    ) AS ordered
    WINDOW tie AS (PARTITION BY query_id, score)
),
retrieved AS (
    SELECT ranked.query_id AS query_id,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': gain * tie_discount}) FILTER (WHERE gain <> 0),
               'ASC', 'NULLS LAST')]), 0) AS dcg,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': gain
               * tie_discount_top_10}) FILTER (WHERE gain <> 0), 'ASC', 'NULLS LAST')]), 0) AS dcg_top_10
    FROM ranked
    GROUP BY ranked.query_id
),
ideal_run AS (
    SELECT query_id,
           gain,
           rank
    FROM (
        SELECT query_id,
               gain,
               ROW_NUMBER() OVER (PARTITION BY query_number ORDER BY gain DESC) AS rank
        FROM (
            SELECT query_id, query_number, gain AS gain
            FROM ranked
        ) AS judged_gains
        WHERE gain > 0
    ) AS ideal_order
),
ideal_run_dcg AS (
    SELECT query_id,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': gain / LOG2(rank + 1)}) FILTER (WHERE gain <> 0),
               'ASC', 'NULLS LAST')]), 0) AS ideal_run_dcg,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': gain / LOG2(rank + 1)}) FILTER (WHERE gain <> 0),
               'ASC', 'NULLS LAST') IF x.rank <= 10]), 0) AS ideal_run_dcg_top_10
    FROM ideal_run
    GROUP BY query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           COALESCE(dcg / NULLIF(ideal_run_dcg, 0), 0) AS ndcg_ideal_run_tie_break_expected,
           COALESCE(dcg_top_10 / NULLIF(ideal_run_dcg_top_10, 0), 0) AS ndcg_ideal_run_tie_break_expected_at_10
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN ideal_run_dcg ON ideal_run_dcg.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.ndcg_ideal_run_tie_break_expected ORDER BY per_query.query_id))
               / COUNT(per_query.ndcg_ideal_run_tie_break_expected) AS ndcg_ideal_run_tie_break_expected,
           list_sum(list(per_query.ndcg_ideal_run_tie_break_expected_at_10 ORDER BY per_query.query_id))
               / COUNT(per_query.ndcg_ideal_run_tie_break_expected_at_10) AS ndcg_ideal_run_tie_break_expected_at_10
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.ndcg_ideal_run_tie_break_expected
           WHEN 2 THEN summary.ndcg_ideal_run_tie_break_expected_at_10
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'nDCG(ideal=run,tie_break=expected)'),
        (2, 'nDCG(ideal=run,tie_break=expected)@10')
) AS measures (position, measure)
ORDER BY measures.position
