{#-
  The family step "exposure" of the fairness measures, for one browsing model and cutoff:
    {name}_exposed   each group's exposure in the top k of each query: the sum over its documents of
                     the attention of their rank (browse=log: 1 / log2(rank + 1); rbp: p^(rank - 1);
                     jarvelin: 1 / log2(max(rank, 2))), a
                     document in n groups giving each 1/n of it (item_groups.share)
    {name}_relevant  each group's share of the query's relevant judged documents (labels >= rel)
    {name}_groups    every group of the groups table for every evaluated query, with its exposure, its
                     relevant documents, the query's grouped totals and the groups' order by exposure,
                     and with --targets its target share (the query's own, else the one for every query)
    {name}_elsewhere with --targets, the shares of the groups that have a target but no document of the
                     groups table (they get no exposure, and keep their share of the target)
  then per query the columns the measures ask for; total is the exposure of the whole top k (documents
  without a group too).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/judging.sql' as judging %}
{% set name, columns, m = piece.name, piece.columns, piece.measure %}
{% set attention = {'log': '1 / ' ~ dialect.log2('rank + 1'), 'rbp': 'POWER(' ~ judging.real(m.p) ~ ', rank - 1)',
                     'jarvelin': 'CASE WHEN rank <= 2 THEN 1 ELSE 1 / ' ~ dialect.log2('rank') ~ ' END'}[m.browse] %}
{{ name }}_weights AS (
    SELECT query_id, doc_id, {{ attention }} AS weight
    FROM {{ m.ranked }}{% if m.cutoff is not none %}

    WHERE rank <= {{ m.cutoff | number }}{% endif %}

),
{{ name }}_exposed AS (
    SELECT weights.query_id AS query_id, item_groups.group_id AS group_id, SUM(weights.weight * item_groups.share) AS exposure
    FROM {{ name }}_weights AS weights
    JOIN item_groups ON item_groups.doc_id = weights.doc_id
    GROUP BY weights.query_id, item_groups.group_id
),
{{ name }}_relevant AS (
    SELECT qrels.query_id AS query_id, item_groups.group_id AS group_id, SUM(item_groups.share) AS relevant
    FROM qrels
    JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
    JOIN item_groups ON item_groups.doc_id = qrels.doc_id
    WHERE qrels.relevance >= {{ m.level | number }}
    GROUP BY qrels.query_id, item_groups.group_id
),
{% if recommender.get('targets') %}
{{ name }}_elsewhere AS (
    SELECT evaluated_queries.query_id AS query_id, SUM(COALESCE(own.share, every_query.share, 0)) AS target
    FROM evaluated_queries
    CROSS JOIN (SELECT DISTINCT group_id FROM group_targets
                WHERE group_id NOT IN (SELECT group_id FROM group_names)) AS absent
    LEFT JOIN group_targets AS own ON own.query_id = evaluated_queries.query_id AND own.group_id = absent.group_id
    LEFT JOIN group_targets AS every_query ON every_query.query_id IS NULL AND every_query.group_id = absent.group_id
    GROUP BY evaluated_queries.query_id
),
{% endif %}
{{ name }}_groups AS (
    SELECT evaluated_queries.query_id AS query_id, group_names.group_id AS group_id,
           COALESCE(exposed.exposure, 0) AS exposure,
           COALESCE(relevant.relevant, 0) AS relevant,
           totals.total AS total,
           COUNT(*) OVER (PARTITION BY evaluated_queries.query_id) AS groups,
           SUM(COALESCE(exposed.exposure, 0)) OVER (PARTITION BY evaluated_queries.query_id) AS grouped_exposure,
           SUM(COALESCE(relevant.relevant, 0)) OVER (PARTITION BY evaluated_queries.query_id) AS grouped_relevant,
           ROW_NUMBER() OVER (PARTITION BY evaluated_queries.query_id ORDER BY COALESCE(exposed.exposure, 0), {{ dialect.byte_order('group_names.group_id') }}) AS exposure_order{% if recommender.get('targets') %},
           COALESCE(own.share, every_query.share, 0) AS target,
           COALESCE(elsewhere.target, 0) AS target_elsewhere,
           SUM(COALESCE(own.share, every_query.share, 0)) OVER (PARTITION BY evaluated_queries.query_id)
           + COALESCE(elsewhere.target, 0) AS grouped_target{% endif %}

    FROM evaluated_queries
    CROSS JOIN group_names
    LEFT JOIN {{ name }}_exposed AS exposed ON exposed.query_id = evaluated_queries.query_id AND exposed.group_id = group_names.group_id
    LEFT JOIN {{ name }}_relevant AS relevant ON relevant.query_id = evaluated_queries.query_id AND relevant.group_id = group_names.group_id
    LEFT JOIN (SELECT query_id, SUM(weight) AS total FROM {{ name }}_weights GROUP BY query_id) AS totals
      ON totals.query_id = evaluated_queries.query_id{% if recommender.get('targets') %}

    LEFT JOIN group_targets AS own ON own.query_id = evaluated_queries.query_id AND own.group_id = group_names.group_id
    LEFT JOIN group_targets AS every_query ON every_query.query_id IS NULL AND every_query.group_id = group_names.group_id
    LEFT JOIN {{ name }}_elsewhere AS elsewhere ON elsewhere.query_id = evaluated_queries.query_id{% endif %}

),
{{ name }} AS (
    SELECT query_id{% for column in columns %},
           {{ column }}{% endfor %}

    FROM {{ name }}_groups
    GROUP BY query_id
)
