-- sqlrank 0.1.0: Rndcg
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
ideal AS (
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
                   CASE WHEN qrels.relevance > 0 THEN CAST(qrels.relevance AS DOUBLE) ELSE 0 END AS gain
            FROM qrels
            JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
        ) AS judged_gains
        WHERE gain > 0
    ) AS ideal_order
    WINDOW ideal_order AS (PARTITION BY query_id ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
ideal_dcg AS (
    SELECT query_id,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': gain / LOG2(rank + 1)}) FILTER (WHERE gain <> 0),
               'ASC', 'NULLS LAST')]), 0) AS ideal_dcg,
           SUM(gain) AS ideal_gain,
           SUM(CASE WHEN gain > 1 THEN gain - 1 ELSE 0 END) AS ideal_excess,
           COUNT(*) AS ideal_count
    FROM ideal
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
retrieved_counts AS (
    SELECT query_number, COUNT(*) AS num_ret
    FROM run_ranked
    GROUP BY query_number
),
judged AS (
    SELECT numbered_qrels.query_id AS query_id,
           numbered_qrels.query_number AS query_number,
           run_ranked.doc_id AS doc_id,
           run_ranked.rank AS rank,
           numbered_qrels.relevance AS relevance,
           CASE WHEN relevance > 0 THEN CAST(relevance AS DOUBLE) ELSE 0 END AS gain
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
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': gain / LOG2(rank + 1)}) FILTER (WHERE gain <> 0),
               'ASC', 'NULLS LAST')]), 0) AS dcg
    FROM ranked
    GROUP BY ranked.query_id
),
rndcg_points AS (
    SELECT ideal.query_id AS query_id, ideal.rank AS rank,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': ranked.rank, 'term': ranked.gain
               / LOG2(ranked.rank + 1)}) FILTER (WHERE ranked.rank IS NOT NULL), 'ASC', 'NULLS LAST')]), 0)
               / MAX(ideal.dcg_so_far) AS point
    FROM ideal AS ideal
    LEFT JOIN ranked AS ranked
      ON ranked.query_id = ideal.query_id AND ranked.rank <= ideal.rank AND ranked.gain <> 0
    WHERE ideal.next_gain IS NULL OR ideal.next_gain <> ideal.gain
    GROUP BY ideal.query_id, ideal.rank
),
rndcg AS (
    SELECT query_id,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': point}), 'ASC', 'NULLS LAST')]), 0) AS rndcg_sum,
           COUNT(*) AS rndcg_points
    FROM rndcg_points
    GROUP BY query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           CASE WHEN COALESCE(num_rel_1, 0) = 0 THEN 0
               ELSE COALESCE((rndcg_sum + CASE WHEN COALESCE(num_ret, 0) > ideal_count + 1 THEN 1 ELSE 0 END * COALESCE(dcg, 0)
               / ideal_dcg) / (rndcg_points + CASE WHEN COALESCE(num_ret, 0) > ideal_count + 1 THEN 1 ELSE 0 END), 0) END AS rndcg
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN retrieved_counts ON retrieved_counts.query_number = evaluated_queries.query_number
    LEFT JOIN judgments ON judgments.query_id = evaluated_queries.query_id
    LEFT JOIN ideal_dcg ON ideal_dcg.query_id = evaluated_queries.query_id
    LEFT JOIN rndcg ON rndcg.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.rndcg ORDER BY per_query.query_id)) / COUNT(per_query.rndcg) AS rndcg
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.rndcg
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'Rndcg')
) AS measures (position, measure)
ORDER BY measures.position
