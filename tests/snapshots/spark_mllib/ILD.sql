-- sqlrank 0.1.0: ILD(missing_queries=zero,unjudged_queries=zero), ILD(missing_queries=zero,unjudged_queries=zero)@10
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
similar_cooccurrence_all_top AS (
    SELECT query_id, doc_id, relevance
    FROM ranked
    WHERE TRUE
),
similar_cooccurrence_all_needed AS (
    SELECT DISTINCT first.doc_id AS item, second.doc_id AS other
    FROM similar_cooccurrence_all_top AS first
    JOIN similar_cooccurrence_all_top AS second ON second.query_id = first.query_id AND second.doc_id > first.doc_id
),
similar_cooccurrence_all_similarity AS (
    SELECT needed.item AS item, needed.other AS other,
           COUNT(*) / SQRT(CAST(MAX(first_users.users) AS DOUBLE) * MAX(second_users.users)) AS similarity
    FROM similar_cooccurrence_all_needed AS needed
    JOIN history_pairs AS first ON first.doc_id = needed.item
    JOIN history_pairs AS second ON second.doc_id = needed.other AND second.query_id = first.query_id
    JOIN item_users AS first_users ON first_users.doc_id = needed.item
    JOIN item_users AS second_users ON second_users.doc_id = needed.other
    GROUP BY needed.item, needed.other
),
similar_cooccurrence_all_ild AS (
    SELECT first.query_id AS query_id,
           1 - AVG(COALESCE(pair.similarity, 0)) AS ild
    FROM similar_cooccurrence_all_top AS first
    JOIN similar_cooccurrence_all_top AS second ON second.query_id = first.query_id AND second.doc_id > first.doc_id
    LEFT JOIN similar_cooccurrence_all_similarity AS pair ON pair.item = first.doc_id AND pair.other = second.doc_id
    GROUP BY first.query_id
),
similar_cooccurrence_all AS (
    SELECT evaluated_queries.query_id AS query_id,
           similar_cooccurrence_all_ild.ild AS ild
    FROM evaluated_queries
    LEFT JOIN similar_cooccurrence_all_ild ON similar_cooccurrence_all_ild.query_id = evaluated_queries.query_id
),
similar_cooccurrence_top_10_top AS (
    SELECT query_id, doc_id, relevance
    FROM ranked
    WHERE rank <= 10
),
similar_cooccurrence_top_10_needed AS (
    SELECT DISTINCT first.doc_id AS item, second.doc_id AS other
    FROM similar_cooccurrence_top_10_top AS first
    JOIN similar_cooccurrence_top_10_top AS second ON second.query_id = first.query_id AND second.doc_id > first.doc_id
),
similar_cooccurrence_top_10_similarity AS (
    SELECT needed.item AS item, needed.other AS other,
           COUNT(*) / SQRT(CAST(MAX(first_users.users) AS DOUBLE) * MAX(second_users.users)) AS similarity
    FROM similar_cooccurrence_top_10_needed AS needed
    JOIN history_pairs AS first ON first.doc_id = needed.item
    JOIN history_pairs AS second ON second.doc_id = needed.other AND second.query_id = first.query_id
    JOIN item_users AS first_users ON first_users.doc_id = needed.item
    JOIN item_users AS second_users ON second_users.doc_id = needed.other
    GROUP BY needed.item, needed.other
),
similar_cooccurrence_top_10_ild AS (
    SELECT first.query_id AS query_id,
           1 - AVG(COALESCE(pair.similarity, 0)) AS ild
    FROM similar_cooccurrence_top_10_top AS first
    JOIN similar_cooccurrence_top_10_top AS second ON second.query_id = first.query_id AND second.doc_id > first.doc_id
    LEFT JOIN similar_cooccurrence_top_10_similarity AS pair ON pair.item = first.doc_id AND pair.other = second.doc_id
    GROUP BY first.query_id
),
similar_cooccurrence_top_10 AS (
    SELECT evaluated_queries.query_id AS query_id,
           similar_cooccurrence_top_10_ild.ild AS ild
    FROM evaluated_queries
    LEFT JOIN similar_cooccurrence_top_10_ild ON similar_cooccurrence_top_10_ild.query_id = evaluated_queries.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           CASE WHEN evaluated_queries.answered THEN similar_cooccurrence_all.ild ELSE 0 END
               AS ild_missing_queries_zero_unjudged_queries_zero,
           CASE WHEN evaluated_queries.answered THEN similar_cooccurrence_top_10.ild ELSE 0 END
               AS ild_missing_queries_zero_unjudged_queries_zero_at_10
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN similar_cooccurrence_all ON similar_cooccurrence_all.query_id = evaluated_queries.query_id
    LEFT JOIN similar_cooccurrence_top_10 ON similar_cooccurrence_top_10.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.ild_missing_queries_zero_unjudged_queries_zero ORDER BY per_query.query_id))
               / COUNT(per_query.ild_missing_queries_zero_unjudged_queries_zero) AS ild_missing_queries_zero_unjudged_queries_zero,
           COUNT(per_query.ild_missing_queries_zero_unjudged_queries_zero) AS ild_missing_queries_zero_unjudged_queries_zero_queries,
           list_sum(list(per_query.ild_missing_queries_zero_unjudged_queries_zero_at_10 ORDER BY per_query.query_id))
               / COUNT(per_query.ild_missing_queries_zero_unjudged_queries_zero_at_10)
               AS ild_missing_queries_zero_unjudged_queries_zero_at_10,
           COUNT(per_query.ild_missing_queries_zero_unjudged_queries_zero_at_10)
               AS ild_missing_queries_zero_unjudged_queries_zero_at_10_queries
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.ild_missing_queries_zero_unjudged_queries_zero
           WHEN 2 THEN summary.ild_missing_queries_zero_unjudged_queries_zero_at_10
       END AS value,
       CASE measures.position
           WHEN 1 THEN summary.ild_missing_queries_zero_unjudged_queries_zero_queries
           WHEN 2 THEN summary.ild_missing_queries_zero_unjudged_queries_zero_at_10_queries
       END AS queries
FROM summary
CROSS JOIN (
    VALUES
        (1, 'ILD(missing_queries=zero,unjudged_queries=zero)'),
        (2, 'ILD(missing_queries=zero,unjudged_queries=zero)@10')
) AS measures (position, measure)
ORDER BY measures.position
