-- sqlrank 0.1.0: ExposureGini(missing_queries=zero,unjudged_queries=zero,browse=log),
--   ExposureGini(missing_queries=zero,unjudged_queries=zero,browse=log)@10
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
    SELECT query_ids.query_id AS query_id,
           CAST(ROW_NUMBER() OVER (ORDER BY query_ids.query_id) AS INTEGER) AS query_number,
           answered_ids.query_id IS NOT NULL AS answered
    FROM (
        SELECT DISTINCT query_id FROM qrels
        UNION
        SELECT DISTINCT query_id FROM run
    ) AS query_ids
    LEFT JOIN (SELECT DISTINCT query_id FROM run) AS answered_ids ON answered_ids.query_id = query_ids.query_id
),
history AS (
    SELECT query_id, doc_id FROM history
),
history_pairs AS (
    SELECT DISTINCT query_id, doc_id FROM history
),
item_users AS (
    SELECT doc_id, COUNT(*) AS users FROM history_pairs GROUP BY doc_id
),
popularity AS (
    SELECT catalog_ids.doc_id AS doc_id,
           COALESCE(counts.interactions, 0) AS interactions,
           ROW_NUMBER() OVER (ORDER BY COALESCE(counts.interactions, 0), catalog_ids.doc_id) AS popularity_rank,
           COUNT(*) OVER () AS catalog_size,
           COALESCE(SUM(COALESCE(counts.interactions, 0)) OVER (ORDER BY COALESCE(counts.interactions, 0) DESC, catalog_ids.doc_id
                                                                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
                                                                     AS more_popular_interactions,
           SUM(COALESCE(counts.interactions, 0)) OVER () AS all_interactions
    FROM (
        SELECT DISTINCT doc_id FROM history
        UNION
        SELECT doc_id FROM (
            SELECT doc_id FROM items
        ) AS listed_items
    ) AS catalog_ids
    LEFT JOIN (SELECT doc_id, COUNT(*) AS interactions FROM history GROUP BY doc_id) AS counts
      ON counts.doc_id = catalog_ids.doc_id
),
catalog_items AS (
    SELECT COUNT(*) AS catalog_size, SUM(interactions) AS all_interactions FROM popularity
),
item_features AS (
    SELECT doc_id, feature, weight FROM item_features
),
item_norms AS (
    SELECT doc_id, SQRT(SUM(weight * weight)) AS norm FROM item_features GROUP BY doc_id
),
item_groups AS (
    SELECT doc_id, feature AS group_id, CAST(1 AS DOUBLE) / COUNT(*) OVER (PARTITION BY doc_id) AS share
    FROM (
        SELECT doc_id, feature, weight FROM item_features
    ) AS grouped
),
group_names AS (
    SELECT DISTINCT group_id FROM item_groups
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
    SELECT ranked.query_id AS query_id
    FROM ranked
    GROUP BY ranked.query_id
),
exposure_log_0p5_1_all_weights AS (
    SELECT query_id, doc_id, 1 / LOG2(rank + 1) AS weight
    FROM ranked
),
exposure_log_0p5_1_all_exposed AS (
    SELECT weights.query_id AS query_id, item_groups.group_id AS group_id, SUM(weights.weight * item_groups.share) AS exposure
    FROM exposure_log_0p5_1_all_weights AS weights
    JOIN item_groups ON item_groups.doc_id = weights.doc_id
    GROUP BY weights.query_id, item_groups.group_id
),
exposure_log_0p5_1_all_relevant AS (
    SELECT qrels.query_id AS query_id, item_groups.group_id AS group_id, SUM(item_groups.share) AS relevant
    FROM qrels
    JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
    JOIN item_groups ON item_groups.doc_id = qrels.doc_id
    WHERE qrels.relevance >= 1
    GROUP BY qrels.query_id, item_groups.group_id
),
exposure_log_0p5_1_all_groups AS (
    SELECT evaluated_queries.query_id AS query_id, group_names.group_id AS group_id,
           COALESCE(exposed.exposure, 0) AS exposure,
           COALESCE(relevant.relevant, 0) AS relevant,
           totals.total AS total,
           COUNT(*) OVER (PARTITION BY evaluated_queries.query_id) AS groups,
           SUM(COALESCE(exposed.exposure, 0)) OVER (PARTITION BY evaluated_queries.query_id) AS grouped_exposure,
           SUM(COALESCE(relevant.relevant, 0)) OVER (PARTITION BY evaluated_queries.query_id) AS grouped_relevant,
           ROW_NUMBER() OVER (PARTITION BY evaluated_queries.query_id ORDER BY COALESCE(exposed.exposure, 0), group_names.group_id)
               AS exposure_order
    FROM evaluated_queries
    CROSS JOIN group_names
    LEFT JOIN exposure_log_0p5_1_all_exposed AS exposed ON exposed.query_id = evaluated_queries.query_id
        AND exposed.group_id = group_names.group_id
    LEFT JOIN exposure_log_0p5_1_all_relevant AS relevant ON relevant.query_id = evaluated_queries.query_id
        AND relevant.group_id = group_names.group_id
    LEFT JOIN (SELECT query_id, SUM(weight) AS total FROM exposure_log_0p5_1_all_weights GROUP BY query_id) AS totals
      ON totals.query_id = evaluated_queries.query_id
),
exposure_log_0p5_1_all AS (
    SELECT query_id,
           SUM(exposure_order * exposure) AS exposure_log_0p5_all_ordered,
           MAX(grouped_exposure) AS exposure_log_0p5_all_grouped,
           MAX(groups) AS exposure_log_0p5_all_groups
    FROM exposure_log_0p5_1_all_groups
    GROUP BY query_id
),
exposure_log_0p5_1_top_10_weights AS (
    SELECT query_id, doc_id, 1 / LOG2(rank + 1) AS weight
    FROM ranked
    WHERE rank <= 10
),
exposure_log_0p5_1_top_10_exposed AS (
    SELECT weights.query_id AS query_id, item_groups.group_id AS group_id, SUM(weights.weight * item_groups.share) AS exposure
    FROM exposure_log_0p5_1_top_10_weights AS weights
    JOIN item_groups ON item_groups.doc_id = weights.doc_id
    GROUP BY weights.query_id, item_groups.group_id
),
exposure_log_0p5_1_top_10_relevant AS (
    SELECT qrels.query_id AS query_id, item_groups.group_id AS group_id, SUM(item_groups.share) AS relevant
    FROM qrels
    JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
    JOIN item_groups ON item_groups.doc_id = qrels.doc_id
    WHERE qrels.relevance >= 1
    GROUP BY qrels.query_id, item_groups.group_id
),
exposure_log_0p5_1_top_10_groups AS (
    SELECT evaluated_queries.query_id AS query_id, group_names.group_id AS group_id,
           COALESCE(exposed.exposure, 0) AS exposure,
           COALESCE(relevant.relevant, 0) AS relevant,
           totals.total AS total,
           COUNT(*) OVER (PARTITION BY evaluated_queries.query_id) AS groups,
           SUM(COALESCE(exposed.exposure, 0)) OVER (PARTITION BY evaluated_queries.query_id) AS grouped_exposure,
           SUM(COALESCE(relevant.relevant, 0)) OVER (PARTITION BY evaluated_queries.query_id) AS grouped_relevant,
           ROW_NUMBER() OVER (PARTITION BY evaluated_queries.query_id ORDER BY COALESCE(exposed.exposure, 0), group_names.group_id)
               AS exposure_order
    FROM evaluated_queries
    CROSS JOIN group_names
    LEFT JOIN exposure_log_0p5_1_top_10_exposed AS exposed ON exposed.query_id = evaluated_queries.query_id
        AND exposed.group_id = group_names.group_id
    LEFT JOIN exposure_log_0p5_1_top_10_relevant AS relevant ON relevant.query_id = evaluated_queries.query_id
        AND relevant.group_id = group_names.group_id
    LEFT JOIN (SELECT query_id, SUM(weight) AS total FROM exposure_log_0p5_1_top_10_weights GROUP BY query_id) AS totals
      ON totals.query_id = evaluated_queries.query_id
),
exposure_log_0p5_1_top_10 AS (
    SELECT query_id,
           SUM(exposure_order * exposure) AS exposure_log_0p5_top_10_ordered,
           MAX(grouped_exposure) AS exposure_log_0p5_top_10_grouped,
           MAX(groups) AS exposure_log_0p5_top_10_groups
    FROM exposure_log_0p5_1_top_10_groups
    GROUP BY query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           CASE WHEN evaluated_queries.answered THEN CAST(2 AS DOUBLE) * exposure_log_0p5_all_ordered
               / (exposure_log_0p5_all_groups * NULLIF(exposure_log_0p5_all_grouped, 0)) - CAST(exposure_log_0p5_all_groups + 1 AS DOUBLE)
               / exposure_log_0p5_all_groups ELSE 0 END AS exposuregini_missing_queries_zero_unjudged_queries_zero_brow,
           CASE WHEN evaluated_queries.answered THEN CAST(2 AS DOUBLE) * exposure_log_0p5_top_10_ordered
               / (exposure_log_0p5_top_10_groups * NULLIF(exposure_log_0p5_top_10_grouped, 0))
               - CAST(exposure_log_0p5_top_10_groups + 1 AS DOUBLE) / exposure_log_0p5_top_10_groups ELSE 0 END
               AS exposuregini_missing_queries_zero_unjudged_queries_zero_brow_2
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN exposure_log_0p5_1_all ON exposure_log_0p5_1_all.query_id = evaluated_queries.query_id
    LEFT JOIN exposure_log_0p5_1_top_10 ON exposure_log_0p5_1_top_10.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.exposuregini_missing_queries_zero_unjudged_queries_zero_brow ORDER BY per_query.query_id))
               / COUNT(per_query.exposuregini_missing_queries_zero_unjudged_queries_zero_brow)
               AS exposuregini_missing_queries_zero_unjudged_queries_zero_brow,
           COUNT(per_query.exposuregini_missing_queries_zero_unjudged_queries_zero_brow)
               AS exposuregini_missing_queries_zero_unjudged_queries_zero_brow_3,
           list_sum(list(per_query.exposuregini_missing_queries_zero_unjudged_queries_zero_brow_2 ORDER BY per_query.query_id))
               / COUNT(per_query.exposuregini_missing_queries_zero_unjudged_queries_zero_brow_2)
               AS exposuregini_missing_queries_zero_unjudged_queries_zero_brow_2,
           COUNT(per_query.exposuregini_missing_queries_zero_unjudged_queries_zero_brow_2)
               AS exposuregini_missing_queries_zero_unjudged_queries_zero_brow_4
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.exposuregini_missing_queries_zero_unjudged_queries_zero_brow
           WHEN 2 THEN summary.exposuregini_missing_queries_zero_unjudged_queries_zero_brow_2
       END AS value,
       CASE measures.position
           WHEN 1 THEN summary.exposuregini_missing_queries_zero_unjudged_queries_zero_brow_3
           WHEN 2 THEN summary.exposuregini_missing_queries_zero_unjudged_queries_zero_brow_4
       END AS queries
FROM summary
CROSS JOIN (
    VALUES
        (1, 'ExposureGini(missing_queries=zero,unjudged_queries=zero,browse=log)'),
        (2, 'ExposureGini(missing_queries=zero,unjudged_queries=zero,browse=log)@10')
) AS measures (position, measure)
ORDER BY measures.position
