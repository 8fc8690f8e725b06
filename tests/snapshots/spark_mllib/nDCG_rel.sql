-- sqlrank 0.1.0: nDCG_rel(gain=exponential,missing_queries=zero,unjudged_queries=zero)
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
ideal_exp AS (
    SELECT query_id,
           gain,
           rank,
           SUM(gain / LOG2(rank + 1)) OVER ideal_order AS dcg_so_far,
           SUM(CASE WHEN gain > 1 THEN gain - 1 ELSE 0 END) OVER ideal_order AS excess_so_far,
           LEAD(gain) OVER (PARTITION BY query_id ORDER BY rank) AS next_gain
    FROM (
        SELECT query_id,
               gain,
               ROW_NUMBER() OVER (PARTITION BY query_number ORDER BY gain DESC) AS rank
        FROM (
            SELECT qrels.query_id AS query_id, evaluated_queries.query_number AS query_number,
                   CASE WHEN qrels.relevance > 0 THEN POWER(CAST(2 AS DOUBLE), qrels.relevance) - 1 ELSE 0 END AS gain
            FROM qrels
            JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
        ) AS judged_gains
        WHERE gain > 0
    ) AS ideal_order
    WINDOW ideal_order AS (PARTITION BY query_id ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
ideal_exp_dcg AS (
    SELECT query_id,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': gain / LOG2(rank + 1)}) FILTER (WHERE gain <> 0),
               'ASC', 'NULLS LAST')]), 0) AS ideal_dcg_exp,
           SUM(gain) AS ideal_gain_exp,
           SUM(CASE WHEN gain > 1 THEN gain - 1 ELSE 0 END) AS ideal_excess_exp,
           COUNT(*) AS ideal_count_exp
    FROM ideal_exp
    GROUP BY query_id
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
           CASE WHEN relevance > 0 THEN POWER(CAST(2 AS DOUBLE), relevance) - 1 ELSE 0 END AS gain_exp
    FROM run_ranked
    JOIN numbered_qrels ON numbered_qrels.query_number = run_ranked.query_number
                       AND numbered_qrels.doc_id = run_ranked.doc_id
),
ranked AS (
    SELECT judged.*
    FROM judged
),
retrieved AS (
    SELECT ranked.query_id AS query_id,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': gain_exp
               / LOG2(rank + 1)}) FILTER (WHERE gain_exp <> 0), 'ASC', 'NULLS LAST')]), 0) AS dcg_exp
    FROM ranked
    GROUP BY ranked.query_id
),
graded_exp_gained AS (
    SELECT query_id, rank, gain_exp,
           SUM(gain_exp / LOG2(rank + 1)) OVER gained AS dcg_exp_so_far,
           SUM(gain_exp) OVER gained AS gain_exp_so_far
    FROM ranked
    WHERE gain_exp <> 0
    WINDOW gained AS (PARTITION BY query_id ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
graded_exp AS (
    SELECT ranked.query_id AS query_id,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': ranked.rank, 'term': ranked.dcg_exp_so_far
               / COALESCE(ideal_exp.dcg_so_far, ideal_exp_dcg.ideal_dcg_exp)}) FILTER (WHERE ranked.gain_exp > 0), 'ASC',
               'NULLS LAST')]), 0) AS ndcg_rel_points_exp,
           SUM(CASE WHEN ranked.gain_exp > 0 THEN 1 ELSE 0 END) AS positive_retrieved_exp
    FROM graded_exp_gained AS ranked
    JOIN ideal_exp_dcg ON ideal_exp_dcg.query_id = ranked.query_id
    LEFT JOIN ideal_exp ON ideal_exp.query_id = ranked.query_id AND ideal_exp.rank = ranked.rank
    GROUP BY ranked.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           COALESCE(CASE WHEN COALESCE(ndcg_rel_points_exp, 0) + (ideal_count_exp - COALESCE(positive_retrieved_exp, 0))
               * COALESCE(dcg_exp, 0) / ideal_dcg_exp > 0
               THEN (COALESCE(ndcg_rel_points_exp, 0) + (ideal_count_exp - COALESCE(positive_retrieved_exp, 0)) * COALESCE(dcg_exp, 0)
               / ideal_dcg_exp) / ideal_count_exp ELSE 0 END, 0) AS ndcg_rel_gain_exponential_missing_queries_zero_unjudged_quer
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN ideal_exp_dcg ON ideal_exp_dcg.query_id = evaluated_queries.query_id
    LEFT JOIN graded_exp ON graded_exp.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.ndcg_rel_gain_exponential_missing_queries_zero_unjudged_quer ORDER BY per_query.query_id))
               / COUNT(per_query.ndcg_rel_gain_exponential_missing_queries_zero_unjudged_quer)
               AS ndcg_rel_gain_exponential_missing_queries_zero_unjudged_quer
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.ndcg_rel_gain_exponential_missing_queries_zero_unjudged_quer
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'nDCG_rel(gain=exponential,missing_queries=zero,unjudged_queries=zero)')
) AS measures (position, measure)
ORDER BY measures.position
