-- sqlrank 0.1.0: IdealDCG(gain=exponential,missing_queries=zero,unjudged_queries=zero),
--   IdealDCG(gain=exponential,missing_queries=zero,unjudged_queries=zero)@10
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
           rank
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
),
ideal_exp_dcg AS (
    SELECT query_id,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': gain / LOG2(rank + 1)}) FILTER (WHERE gain <> 0),
               'ASC', 'NULLS LAST')]), 0) AS ideal_exp_dcg,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': gain / LOG2(rank + 1)}) FILTER (WHERE gain <> 0),
               'ASC', 'NULLS LAST') IF x.rank <= 10]), 0) AS ideal_exp_dcg_top_10
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
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           COALESCE(ideal_exp_dcg, 0) AS idealdcg_gain_exponential_missing_queries_zero_unjudged_quer,
           COALESCE(ideal_exp_dcg_top_10, 0) AS idealdcg_gain_exponential_missing_queries_zero_unjudged_quer_2
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN ideal_exp_dcg ON ideal_exp_dcg.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.idealdcg_gain_exponential_missing_queries_zero_unjudged_quer ORDER BY per_query.query_id))
               / COUNT(per_query.idealdcg_gain_exponential_missing_queries_zero_unjudged_quer)
               AS idealdcg_gain_exponential_missing_queries_zero_unjudged_quer,
           list_sum(list(per_query.idealdcg_gain_exponential_missing_queries_zero_unjudged_quer_2 ORDER BY per_query.query_id))
               / COUNT(per_query.idealdcg_gain_exponential_missing_queries_zero_unjudged_quer_2)
               AS idealdcg_gain_exponential_missing_queries_zero_unjudged_quer_2
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.idealdcg_gain_exponential_missing_queries_zero_unjudged_quer
           WHEN 2 THEN summary.idealdcg_gain_exponential_missing_queries_zero_unjudged_quer_2
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'IdealDCG(gain=exponential,missing_queries=zero,unjudged_queries=zero)'),
        (2, 'IdealDCG(gain=exponential,missing_queries=zero,unjudged_queries=zero)@10')
) AS measures (position, measure)
ORDER BY measures.position
