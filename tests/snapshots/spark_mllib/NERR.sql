-- sqlrank 0.1.0: NERR(missing_queries=zero,unjudged_queries=zero,eq=8)@10,
--   NERR(missing_queries=zero,unjudged_queries=zero,eq=9)@10,
--   NERR(missing_queries=zero,unjudged_queries=zero,eq=10,p=0.9), NERR(missing_queries=zero,unjudged_queries=zero,T=1.0,eq=11)
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
           SUM(CASE WHEN COALESCE(cwl_gain_1, 0) >= 1 THEN 1 ELSE 0 END) OVER ranking AS nerr_8_0_1_stops_through,
           SUM(CASE WHEN COALESCE(cwl_gain_1, 0) < 1 THEN LN(1 - COALESCE(cwl_gain_1, 0)) ELSE 0 END) OVER ranking AS nerr_8_0_1_ln_through,
           SUM(CASE WHEN COALESCE(cwl_gain_1, 0) >= 1 THEN 1 ELSE 0 END) OVER ranking AS nerr_9_0_1_stops_through,
           SUM(CASE WHEN COALESCE(cwl_gain_1, 0) < 1 THEN LN(1 - COALESCE(cwl_gain_1, 0)) ELSE 0 END) OVER ranking AS nerr_9_0_1_ln_through,
           SUM(CASE WHEN COALESCE(cwl_gain_1, 0) >= 1 THEN 1 ELSE 0 END) OVER ranking AS nerr_10_0p9_1_stops_through,
           SUM(CASE WHEN COALESCE(cwl_gain_1, 0) < 1 THEN LN(1 - COALESCE(cwl_gain_1, 0)) ELSE 0 END) OVER ranking
               AS nerr_10_0p9_1_ln_through,
           SUM(CASE WHEN COALESCE(cwl_gain_1, 0) >= 1 THEN 1 ELSE 0 END) OVER ranking AS nerr_11_1p0_1_stops_through,
           SUM(CASE WHEN COALESCE(cwl_gain_1, 0) < 1 THEN LN(1 - COALESCE(cwl_gain_1, 0)) ELSE 0 END) OVER ranking
               AS nerr_11_1p0_1_ln_through
    FROM judged
    WINDOW ranking AS (PARTITION BY query_number ORDER BY score DESC NULLS LAST, doc_id DESC
                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
retrieved AS (
    SELECT ranked.query_id AS query_id,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': CASE WHEN nerr_8_0_1_stops_through
               - (CASE WHEN COALESCE(cwl_gain_1, 0) >= 1 THEN 1 ELSE 0 END) = 0
THEN 1 * EXP(nerr_8_0_1_ln_through - (CASE WHEN COALESCE(cwl_gain_1, 0) < 1 THEN LN(1 - COALESCE(cwl_gain_1, 0)) ELSE 0 END)) ELSE 0 END
    * COALESCE(cwl_gain_1, 0)}) FILTER (WHERE COALESCE(cwl_gain_1, 0) > 0), 'ASC', 'NULLS LAST') IF x.rank <= 10]), 0)
    AS nerr_8_0_1_read_gain_top_10,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': CASE WHEN nerr_8_0_1_stops_through
               - (CASE WHEN COALESCE(cwl_gain_1, 0) >= 1 THEN 1 ELSE 0 END) = 0
THEN 1 * EXP(nerr_8_0_1_ln_through - (CASE WHEN COALESCE(cwl_gain_1, 0) < 1 THEN LN(1 - COALESCE(cwl_gain_1, 0)) ELSE 0 END))
    ELSE 0 END}) FILTER (WHERE rank <= 10), 'ASC', 'NULLS LAST') IF x.rank <= 10]), 0) AS nerr_8_0_1_reached_top_10,
           MAX(rank) AS nerr_8_0_1_last,
           SUM(CASE WHEN COALESCE(cwl_gain_1, 0) >= 1 THEN 1 ELSE 0 END) AS nerr_8_0_1_stops,
           SUM(CASE WHEN COALESCE(cwl_gain_1, 0) < 1 THEN LN(1 - COALESCE(cwl_gain_1, 0)) ELSE 0 END) AS nerr_8_0_1_ln,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': CASE WHEN nerr_9_0_1_stops_through
               - (CASE WHEN COALESCE(cwl_gain_1, 0) >= 1 THEN 1 ELSE 0 END) = 0
THEN 1 / CAST(rank AS DOUBLE) * EXP(nerr_9_0_1_ln_through
    - (CASE WHEN COALESCE(cwl_gain_1, 0) < 1 THEN LN(1 - COALESCE(cwl_gain_1, 0)) ELSE 0 END)) ELSE 0 END
    * COALESCE(cwl_gain_1, 0)}) FILTER (WHERE COALESCE(cwl_gain_1, 0) > 0), 'ASC', 'NULLS LAST') IF x.rank <= 10]), 0)
    AS nerr_9_0_1_read_gain_top_10,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': CASE WHEN nerr_9_0_1_stops_through
               - (CASE WHEN COALESCE(cwl_gain_1, 0) >= 1 THEN 1 ELSE 0 END) = 0
THEN 1 / CAST(rank AS DOUBLE) * EXP(nerr_9_0_1_ln_through
    - (CASE WHEN COALESCE(cwl_gain_1, 0) < 1 THEN LN(1 - COALESCE(cwl_gain_1, 0)) ELSE 0 END))
    ELSE 0 END}) FILTER (WHERE rank <= 10), 'ASC', 'NULLS LAST') IF x.rank <= 10]), 0) AS nerr_9_0_1_reached_top_10,
           MAX(rank) AS nerr_9_0_1_last,
           SUM(CASE WHEN COALESCE(cwl_gain_1, 0) >= 1 THEN 1 ELSE 0 END) AS nerr_9_0_1_stops,
           SUM(CASE WHEN COALESCE(cwl_gain_1, 0) < 1 THEN LN(1 - COALESCE(cwl_gain_1, 0)) ELSE 0 END) AS nerr_9_0_1_ln,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': CASE WHEN nerr_10_0p9_1_stops_through
               - (CASE WHEN COALESCE(cwl_gain_1, 0) >= 1 THEN 1 ELSE 0 END) = 0
THEN POWER(CAST(0.9 AS DOUBLE), rank - 1)
    * EXP(nerr_10_0p9_1_ln_through - (CASE WHEN COALESCE(cwl_gain_1, 0) < 1 THEN LN(1 - COALESCE(cwl_gain_1, 0)) ELSE 0 END)) ELSE 0 END
    * COALESCE(cwl_gain_1, 0)}) FILTER (WHERE COALESCE(cwl_gain_1, 0) > 0), 'ASC', 'NULLS LAST') IF x.rank <= 1000]), 0)
    AS nerr_10_0p9_1_read_gain,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': CASE WHEN nerr_10_0p9_1_stops_through
               - (CASE WHEN COALESCE(cwl_gain_1, 0) >= 1 THEN 1 ELSE 0 END) = 0
THEN POWER(CAST(0.9 AS DOUBLE), rank - 1)
    * EXP(nerr_10_0p9_1_ln_through - (CASE WHEN COALESCE(cwl_gain_1, 0) < 1 THEN LN(1 - COALESCE(cwl_gain_1, 0)) ELSE 0 END))
    ELSE 0 END}) FILTER (WHERE rank <= 1000), 'ASC', 'NULLS LAST') IF x.rank <= 1000]), 0) AS nerr_10_0p9_1_reached,
           MAX(rank) AS nerr_10_0p9_1_last,
           SUM(CASE WHEN COALESCE(cwl_gain_1, 0) >= 1 THEN 1 ELSE 0 END) AS nerr_10_0p9_1_stops,
           SUM(CASE WHEN COALESCE(cwl_gain_1, 0) < 1 THEN LN(1 - COALESCE(cwl_gain_1, 0)) ELSE 0 END) AS nerr_10_0p9_1_ln,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': CASE WHEN nerr_11_1p0_1_stops_through
               - (CASE WHEN COALESCE(cwl_gain_1, 0) >= 1 THEN 1 ELSE 0 END) = 0
THEN POWER(2 * CAST(1.0 AS DOUBLE) / (rank + 2 * CAST(1.0 AS DOUBLE) - 1), 2)
    * EXP(nerr_11_1p0_1_ln_through - (CASE WHEN COALESCE(cwl_gain_1, 0) < 1 THEN LN(1 - COALESCE(cwl_gain_1, 0)) ELSE 0 END)) ELSE 0 END
    * COALESCE(cwl_gain_1, 0)}) FILTER (WHERE COALESCE(cwl_gain_1, 0) > 0), 'ASC', 'NULLS LAST') IF x.rank <= 1000]), 0)
    AS nerr_11_1p0_1_read_gain,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank, 'term': CASE WHEN nerr_11_1p0_1_stops_through
               - (CASE WHEN COALESCE(cwl_gain_1, 0) >= 1 THEN 1 ELSE 0 END) = 0
THEN POWER(2 * CAST(1.0 AS DOUBLE) / (rank + 2 * CAST(1.0 AS DOUBLE) - 1), 2)
    * EXP(nerr_11_1p0_1_ln_through - (CASE WHEN COALESCE(cwl_gain_1, 0) < 1 THEN LN(1 - COALESCE(cwl_gain_1, 0)) ELSE 0 END))
    ELSE 0 END}) FILTER (WHERE rank <= 1000), 'ASC', 'NULLS LAST') IF x.rank <= 1000]), 0) AS nerr_11_1p0_1_reached,
           MAX(rank) AS nerr_11_1p0_1_last,
           SUM(CASE WHEN COALESCE(cwl_gain_1, 0) >= 1 THEN 1 ELSE 0 END) AS nerr_11_1p0_1_stops,
           SUM(CASE WHEN COALESCE(cwl_gain_1, 0) < 1 THEN LN(1 - COALESCE(cwl_gain_1, 0)) ELSE 0 END) AS nerr_11_1p0_1_ln
    FROM ranked
    GROUP BY ranked.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           COALESCE(nerr_8_0_1_read_gain_top_10 / (nerr_8_0_1_reached_top_10 + CASE WHEN nerr_8_0_1_last < 10 AND nerr_8_0_1_stops = 0
               THEN EXP(nerr_8_0_1_ln) * (10 - nerr_8_0_1_last) ELSE 0 END), 0)
               AS nerr_missing_queries_zero_unjudged_queries_zero_eq_8_at_10,
           COALESCE(nerr_9_0_1_read_gain_top_10 / (nerr_9_0_1_reached_top_10 + CASE WHEN nerr_9_0_1_last < 10 AND nerr_9_0_1_stops = 0
               THEN EXP(nerr_9_0_1_ln) * ((LN((CAST(10 + 1 AS DOUBLE) + 10)) - 1 / (2 * (CAST(10 + 1 AS DOUBLE) + 10)) - 1
               / (12 * POWER((CAST(10 + 1 AS DOUBLE) + 10), 2)) + 1 / (120 * POWER((CAST(10 + 1 AS DOUBLE) + 10), 4)) - 1
               / (252 * POWER((CAST(10 + 1 AS DOUBLE) + 10), 6)) + 1 / (240 * POWER((CAST(10 + 1 AS DOUBLE) + 10), 8)) - 1
               / (132 * POWER((CAST(10 + 1 AS DOUBLE) + 10), 10)) - 1 / (CAST(10 + 1 AS DOUBLE) + 0) - 1 / (CAST(10 + 1 AS DOUBLE) + 1)
               - 1 / (CAST(10 + 1 AS DOUBLE) + 2) - 1 / (CAST(10 + 1 AS DOUBLE) + 3) - 1 / (CAST(10 + 1 AS DOUBLE) + 4) - 1
               / (CAST(10 + 1 AS DOUBLE) + 5) - 1 / (CAST(10 + 1 AS DOUBLE) + 6) - 1 / (CAST(10 + 1 AS DOUBLE) + 7) - 1
               / (CAST(10 + 1 AS DOUBLE) + 8) - 1 / (CAST(10 + 1 AS DOUBLE) + 9))
               - (LN((CAST(nerr_9_0_1_last + 1 AS DOUBLE) + 10)) - 1 / (2 * (CAST(nerr_9_0_1_last + 1 AS DOUBLE) + 10)) - 1
               / (12 * POWER((CAST(nerr_9_0_1_last + 1 AS DOUBLE) + 10), 2)) + 1
               / (120 * POWER((CAST(nerr_9_0_1_last + 1 AS DOUBLE) + 10), 4)) - 1
               / (252 * POWER((CAST(nerr_9_0_1_last + 1 AS DOUBLE) + 10), 6)) + 1
               / (240 * POWER((CAST(nerr_9_0_1_last + 1 AS DOUBLE) + 10), 8)) - 1
               / (132 * POWER((CAST(nerr_9_0_1_last + 1 AS DOUBLE) + 10), 10)) - 1 / (CAST(nerr_9_0_1_last + 1 AS DOUBLE) + 0) - 1
               / (CAST(nerr_9_0_1_last + 1 AS DOUBLE) + 1) - 1 / (CAST(nerr_9_0_1_last + 1 AS DOUBLE) + 2) - 1
               / (CAST(nerr_9_0_1_last + 1 AS DOUBLE) + 3) - 1 / (CAST(nerr_9_0_1_last + 1 AS DOUBLE) + 4) - 1
               / (CAST(nerr_9_0_1_last + 1 AS DOUBLE) + 5) - 1 / (CAST(nerr_9_0_1_last + 1 AS DOUBLE) + 6) - 1
               / (CAST(nerr_9_0_1_last + 1 AS DOUBLE) + 7) - 1 / (CAST(nerr_9_0_1_last + 1 AS DOUBLE) + 8) - 1
               / (CAST(nerr_9_0_1_last + 1 AS DOUBLE) + 9))) ELSE 0 END), 0) AS nerr_missing_queries_zero_unjudged_queries_zero_eq_9_at_10,
           COALESCE(nerr_10_0p9_1_read_gain / (nerr_10_0p9_1_reached + CASE WHEN nerr_10_0p9_1_last < 1000 AND nerr_10_0p9_1_stops = 0
               THEN EXP(nerr_10_0p9_1_ln) * (POWER(CAST(0.9 AS DOUBLE), nerr_10_0p9_1_last)
               * (1 - POWER(CAST(0.9 AS DOUBLE), 1000 - nerr_10_0p9_1_last)) / (1 - CAST(0.9 AS DOUBLE))) ELSE 0 END), 0)
               AS nerr_missing_queries_zero_unjudged_queries_zero_eq_10_p_0_9,
           COALESCE(nerr_11_1p0_1_read_gain / (nerr_11_1p0_1_reached + CASE WHEN nerr_11_1p0_1_last < 1000 AND nerr_11_1p0_1_stops = 0
               THEN EXP(nerr_11_1p0_1_ln) * (POWER(2 * CAST(1.0 AS DOUBLE), 2)
               * ((1 / POWER(CAST(nerr_11_1p0_1_last + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 0, 2) + 1
               / POWER(CAST(nerr_11_1p0_1_last + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 1, 2) + 1
               / POWER(CAST(nerr_11_1p0_1_last + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 2, 2) + 1
               / POWER(CAST(nerr_11_1p0_1_last + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 3, 2) + 1
               / POWER(CAST(nerr_11_1p0_1_last + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 4, 2) + 1
               / POWER(CAST(nerr_11_1p0_1_last + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 5, 2) + 1
               / POWER(CAST(nerr_11_1p0_1_last + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 6, 2) + 1
               / POWER(CAST(nerr_11_1p0_1_last + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 7, 2) + 1
               / POWER(CAST(nerr_11_1p0_1_last + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 8, 2) + 1
               / POWER(CAST(nerr_11_1p0_1_last + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 9, 2)
               + (1 / (CAST(nerr_11_1p0_1_last + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 10) + 1
               / (2 * POWER((CAST(nerr_11_1p0_1_last + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 10), 2)) + 1
               / (6 * POWER((CAST(nerr_11_1p0_1_last + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 10), 3)) - 1
               / (30 * POWER((CAST(nerr_11_1p0_1_last + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 10), 5)) + 1
               / (42 * POWER((CAST(nerr_11_1p0_1_last + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 10), 7)) - 1
               / (30 * POWER((CAST(nerr_11_1p0_1_last + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 10), 9)) + 5
               / (66 * POWER((CAST(nerr_11_1p0_1_last + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 10), 11))))
               - (1 / POWER(CAST(1000 + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 0, 2) + 1
               / POWER(CAST(1000 + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 1, 2) + 1
               / POWER(CAST(1000 + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 2, 2) + 1
               / POWER(CAST(1000 + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 3, 2) + 1
               / POWER(CAST(1000 + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 4, 2) + 1
               / POWER(CAST(1000 + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 5, 2) + 1
               / POWER(CAST(1000 + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 6, 2) + 1
               / POWER(CAST(1000 + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 7, 2) + 1
               / POWER(CAST(1000 + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 8, 2) + 1
               / POWER(CAST(1000 + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 9, 2)
               + (1 / (CAST(1000 + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 10) + 1
               / (2 * POWER((CAST(1000 + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 10), 2)) + 1
               / (6 * POWER((CAST(1000 + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 10), 3)) - 1
               / (30 * POWER((CAST(1000 + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 10), 5)) + 1
               / (42 * POWER((CAST(1000 + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 10), 7)) - 1
               / (30 * POWER((CAST(1000 + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 10), 9)) + 5
               / (66 * POWER((CAST(1000 + 2 * CAST(1.0 AS DOUBLE) AS DOUBLE) + 10), 11)))))) ELSE 0 END), 0)
               AS nerr_missing_queries_zero_unjudged_queries_zero_t_1_0_eq_11
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.nerr_missing_queries_zero_unjudged_queries_zero_eq_8_at_10 ORDER BY per_query.query_id))
               / COUNT(per_query.nerr_missing_queries_zero_unjudged_queries_zero_eq_8_at_10)
               AS nerr_missing_queries_zero_unjudged_queries_zero_eq_8_at_10,
           list_sum(list(per_query.nerr_missing_queries_zero_unjudged_queries_zero_eq_9_at_10 ORDER BY per_query.query_id))
               / COUNT(per_query.nerr_missing_queries_zero_unjudged_queries_zero_eq_9_at_10)
               AS nerr_missing_queries_zero_unjudged_queries_zero_eq_9_at_10,
           list_sum(list(per_query.nerr_missing_queries_zero_unjudged_queries_zero_eq_10_p_0_9 ORDER BY per_query.query_id))
               / COUNT(per_query.nerr_missing_queries_zero_unjudged_queries_zero_eq_10_p_0_9)
               AS nerr_missing_queries_zero_unjudged_queries_zero_eq_10_p_0_9,
           list_sum(list(per_query.nerr_missing_queries_zero_unjudged_queries_zero_t_1_0_eq_11 ORDER BY per_query.query_id))
               / COUNT(per_query.nerr_missing_queries_zero_unjudged_queries_zero_t_1_0_eq_11)
               AS nerr_missing_queries_zero_unjudged_queries_zero_t_1_0_eq_11
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.nerr_missing_queries_zero_unjudged_queries_zero_eq_8_at_10
           WHEN 2 THEN summary.nerr_missing_queries_zero_unjudged_queries_zero_eq_9_at_10
           WHEN 3 THEN summary.nerr_missing_queries_zero_unjudged_queries_zero_eq_10_p_0_9
           WHEN 4 THEN summary.nerr_missing_queries_zero_unjudged_queries_zero_t_1_0_eq_11
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'NERR(missing_queries=zero,unjudged_queries=zero,eq=8)@10'),
        (2, 'NERR(missing_queries=zero,unjudged_queries=zero,eq=9)@10'),
        (3, 'NERR(missing_queries=zero,unjudged_queries=zero,eq=10,p=0.9)'),
        (4, 'NERR(missing_queries=zero,unjudged_queries=zero,T=1.0,eq=11)')
) AS measures (position, measure)
ORDER BY measures.position
