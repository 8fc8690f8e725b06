-- sqlrank 0.1.0: IPSHitRate, IPSHitRate@10
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
           qrels.relevance AS relevance,
           popularity.interactions AS item_interactions,
           popularity.all_interactions AS all_interactions,
           CASE WHEN relevance >= 1 THEN 1 ELSE 0 END AS is_rel_1
    FROM run
    JOIN evaluated_queries ON evaluated_queries.query_id = run.query_id
    LEFT JOIN qrels ON qrels.query_id = run.query_id AND qrels.doc_id = run.doc_id
    LEFT JOIN popularity ON popularity.doc_id = run.doc_id
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
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank,
               'term': LEAST(CAST(all_interactions AS DOUBLE) / item_interactions, CAST(10000.0 AS DOUBLE))}) FILTER (WHERE is_rel_1 = 1
               AND item_interactions > 0), 'ASC', 'NULLS LAST')]), 0) AS ips_hits_1_10000p0,
           COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': rank,
               'term': LEAST(CAST(all_interactions AS DOUBLE) / item_interactions, CAST(10000.0 AS DOUBLE))}) FILTER (WHERE is_rel_1 = 1
               AND item_interactions > 0), 'ASC', 'NULLS LAST') IF x.rank <= 10]), 0) AS ips_hits_1_10000p0_top_10
    FROM ranked
    GROUP BY ranked.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           COALESCE(ips_hits_1_10000p0, 0) AS ipshitrate,
           COALESCE(ips_hits_1_10000p0_top_10, 0) AS ipshitrate_at_10
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.ipshitrate ORDER BY per_query.query_id)) / COUNT(per_query.ipshitrate) AS ipshitrate,
           list_sum(list(per_query.ipshitrate_at_10 ORDER BY per_query.query_id)) / COUNT(per_query.ipshitrate_at_10) AS ipshitrate_at_10
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.ipshitrate
           WHEN 2 THEN summary.ipshitrate_at_10
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'IPSHitRate'),
        (2, 'IPSHitRate@10')
) AS measures (position, measure)
ORDER BY measures.position
