{#-
  The extra inputs of the recommender measures beyond accuracy, typed:
    history        training interactions (query_id = user, doc_id = item), one row per interaction
    history_pairs  its distinct (user, item) pairs; item_users: users per item
    popularity     every catalog item (of --items and of the history): its interactions, its place
                   by popularity (fewest first, then item id), the catalog's size, all interactions, and
                   the interactions of the items more popular (most first, then item id: the short head)
    item_features  (doc_id, feature, weight): a category has weight 1; item_norms: each item's norm
    item_groups    (doc_id, group_id, share): the groups of the fairness measures, a document in n groups
                   with share 1 / n of each; group_names: every group
    group_targets  (query_id, group_id, share): AWRF's target shares of the groups, query_id NULL for
                   every query
-#}
{% import '_macros/dialect.sql' as dialect %}
history AS (
    {{ recommender['history'] | indent(4) }}
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
           ROW_NUMBER() OVER (ORDER BY COALESCE(counts.interactions, 0), {{ dialect.byte_order('catalog_ids.doc_id') }}) AS popularity_rank,
           COUNT(*) OVER () AS catalog_size,
           COALESCE(SUM(COALESCE(counts.interactions, 0)) OVER (ORDER BY COALESCE(counts.interactions, 0) DESC, {{ dialect.byte_order('catalog_ids.doc_id') }}
                                                                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS more_popular_interactions,
           SUM(COALESCE(counts.interactions, 0)) OVER () AS all_interactions
    FROM (
        SELECT DISTINCT doc_id FROM history
{% if recommender['items'] %}
        {{ dialect.union() }}
        SELECT doc_id FROM (
            {{ recommender['items'] | indent(12) }}
        ) AS listed_items
{% endif %}
    ) AS catalog_ids
    LEFT JOIN (SELECT doc_id, COUNT(*) AS interactions FROM history GROUP BY doc_id) AS counts
      ON counts.doc_id = catalog_ids.doc_id
),
catalog_items AS (
    SELECT COUNT(*) AS catalog_size, SUM(interactions) AS all_interactions FROM popularity
){% if recommender['features'] %},
item_features AS (
    {{ recommender['features'] | indent(4) }}
),
item_norms AS (
    SELECT doc_id, SQRT(SUM(weight * weight)) AS norm FROM item_features GROUP BY doc_id
){% endif %}{% if recommender.get('groups') %},
item_groups AS (
    SELECT doc_id, feature AS group_id, CAST(1 AS {{ DOUBLE }}) / COUNT(*) OVER (PARTITION BY doc_id) AS share
    FROM (
        {{ recommender['groups'] | indent(8) }}
    ) AS grouped
),
group_names AS (
    SELECT DISTINCT group_id FROM item_groups
){% endif %}{% if recommender.get('targets') %},
group_targets AS (
    SELECT query_id, feature AS group_id, weight AS share
    FROM (
        {{ recommender['targets'] | indent(8) }}
    ) AS targets
){% endif %}
