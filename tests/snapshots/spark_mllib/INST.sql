-- sqlrank 0.1.0: INST(missing_queries=zero,unjudged_queries=zero)
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
    SELECT ranked.query_id AS query_id
    FROM ranked
    GROUP BY ranked.query_id
),
inst_1p0_1_positions AS (
    SELECT query_id, rank, gain, so_far,
           (SUM(CASE WHEN reading_on > 0 THEN LN(reading_on) ELSE 0 END) OVER reading)
               - (CASE WHEN reading_on > 0 THEN LN(reading_on) ELSE 0 END) AS ln_reached,
           (SUM(CASE WHEN reading_on = 0 THEN 1 ELSE 0 END) OVER reading) - (CASE WHEN reading_on = 0 THEN 1 ELSE 0 END) AS stops_above,
           SUM(CASE WHEN reading_on > 0 THEN LN(reading_on) ELSE 0 END) OVER reading AS ln_past,
           SUM(CASE WHEN reading_on = 0 THEN 1 ELSE 0 END) OVER reading AS stops_through,
           MAX(rank) OVER (PARTITION BY query_id) AS last_rank
    FROM (
        SELECT query_id, rank, cwl_gain_1 AS gain, cwl_gain_1_so_far AS so_far,
               POWER((rank + 2 * CAST(1.0 AS DOUBLE) - cwl_gain_1_so_far - 1) / (rank + 2 * CAST(1.0 AS DOUBLE) - cwl_gain_1_so_far), 2)
                   AS reading_on
        FROM ranked
        WHERE rank <= 1000
    ) AS chances
    WINDOW reading AS (PARTITION BY query_id ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
inst_1p0_1 AS (
    SELECT query_id,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': EXP(ln_reached)
               * gain}) FILTER (WHERE stops_above = 0), 'ASC', 'NULLS LAST')]), 0) AS inst_read_gain_1p0_1,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': EXP(ln_reached)}) FILTER (WHERE stops_above = 0),
               'ASC', 'NULLS LAST')]), 0) AS inst_reached_1p0_1,
           MAX(CASE WHEN rank = last_rank AND stops_through = 0 THEN EXP(ln_past) ELSE 0 END) AS inst_past_last_1p0_1,
           MAX(rank) AS inst_last_rank_1p0_1,
           MAX(so_far) AS inst_gain_1p0_1
    FROM inst_1p0_1_positions
    GROUP BY query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           COALESCE(inst_read_gain_1p0_1 / (inst_reached_1p0_1 + CASE WHEN inst_last_rank_1p0_1 < 1000 THEN inst_past_last_1p0_1
               * POWER((inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1), 2)
               * ((1 / POWER(CAST((inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1) AS DOUBLE) + 0, 2) + 1
               / POWER(CAST((inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1) AS DOUBLE) + 1, 2) + 1
               / POWER(CAST((inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1) AS DOUBLE) + 2, 2) + 1
               / POWER(CAST((inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1) AS DOUBLE) + 3, 2) + 1
               / POWER(CAST((inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1) AS DOUBLE) + 4, 2) + 1
               / POWER(CAST((inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1) AS DOUBLE) + 5, 2) + 1
               / POWER(CAST((inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1) AS DOUBLE) + 6, 2) + 1
               / POWER(CAST((inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1) AS DOUBLE) + 7, 2) + 1
               / POWER(CAST((inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1) AS DOUBLE) + 8, 2) + 1
               / POWER(CAST((inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1) AS DOUBLE) + 9, 2)
               + (1 / (CAST((inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1) AS DOUBLE) + 10) + 1
               / (2 * POWER((CAST((inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1) AS DOUBLE) + 10), 2)) + 1
               / (6 * POWER((CAST((inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1) AS DOUBLE) + 10), 3)) - 1
               / (30 * POWER((CAST((inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1) AS DOUBLE) + 10), 5)) + 1
               / (42 * POWER((CAST((inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1) AS DOUBLE) + 10), 7)) - 1
               / (30 * POWER((CAST((inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1) AS DOUBLE) + 10), 9)) + 5
               / (66 * POWER((CAST((inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1) AS DOUBLE) + 10), 11))))
               - (1 / POWER(CAST((1000 - inst_last_rank_1p0_1 + (inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1))
               AS DOUBLE) + 0, 2) + 1
               / POWER(CAST((1000 - inst_last_rank_1p0_1 + (inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1)) AS DOUBLE)
               + 1, 2) + 1 / POWER(CAST((1000 - inst_last_rank_1p0_1
               + (inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1)) AS DOUBLE) + 2, 2) + 1
               / POWER(CAST((1000 - inst_last_rank_1p0_1 + (inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1)) AS DOUBLE)
               + 3, 2) + 1 / POWER(CAST((1000 - inst_last_rank_1p0_1
               + (inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1)) AS DOUBLE) + 4, 2) + 1
               / POWER(CAST((1000 - inst_last_rank_1p0_1 + (inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1)) AS DOUBLE)
               + 5, 2) + 1 / POWER(CAST((1000 - inst_last_rank_1p0_1
               + (inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1)) AS DOUBLE) + 6, 2) + 1
               / POWER(CAST((1000 - inst_last_rank_1p0_1 + (inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1)) AS DOUBLE)
               + 7, 2) + 1 / POWER(CAST((1000 - inst_last_rank_1p0_1
               + (inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1)) AS DOUBLE) + 8, 2) + 1
               / POWER(CAST((1000 - inst_last_rank_1p0_1 + (inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1)) AS DOUBLE)
               + 9, 2) + (1 / (CAST((1000 - inst_last_rank_1p0_1 + (inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1))
               AS DOUBLE) + 10) + 1 / (2
               * POWER((CAST((1000 - inst_last_rank_1p0_1 + (inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1)) AS DOUBLE)
               + 10), 2)) + 1 / (6
               * POWER((CAST((1000 - inst_last_rank_1p0_1 + (inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1)) AS DOUBLE)
               + 10), 3)) - 1 / (30
               * POWER((CAST((1000 - inst_last_rank_1p0_1 + (inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1)) AS DOUBLE)
               + 10), 5)) + 1 / (42
               * POWER((CAST((1000 - inst_last_rank_1p0_1 + (inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1)) AS DOUBLE)
               + 10), 7)) - 1 / (30
               * POWER((CAST((1000 - inst_last_rank_1p0_1 + (inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1)) AS DOUBLE)
               + 10), 9)) + 5 / (66
               * POWER((CAST((1000 - inst_last_rank_1p0_1 + (inst_last_rank_1p0_1 + 2 * CAST(1.0 AS DOUBLE) - inst_gain_1p0_1)) AS DOUBLE)
               + 10), 11))))) ELSE 0 END), 0) AS inst_missing_queries_zero_unjudged_queries_zero
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN inst_1p0_1 ON inst_1p0_1.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.inst_missing_queries_zero_unjudged_queries_zero ORDER BY per_query.query_id))
               / COUNT(per_query.inst_missing_queries_zero_unjudged_queries_zero) AS inst_missing_queries_zero_unjudged_queries_zero
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.inst_missing_queries_zero_unjudged_queries_zero
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'INST(missing_queries=zero,unjudged_queries=zero)')
) AS measures (position, measure)
ORDER BY measures.position
