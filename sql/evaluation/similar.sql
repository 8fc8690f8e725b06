{#-
  The shared step "similar" of ILD and Serendipity: for one ranking, cutoff and similarity, each
  user's intra-list diversity (ild) and serendipity at each relevance level asked. Similarities
  are computed only for the pairs of items needed: pairs within a top k (ild), and a top-k item
  with an item of the same user's history (serendipity).
    cooccurrence: users with both items / sqrt(users with the first * users with the second),
                  over the distinct (user, item) pairs of the history
    features:     sum of the products of the items' feature weights / the product of their norms
-#}
{% import '_macros/recommended.sql' as recommended %}
{% import '_macros/dialect.sql' as dialect %}
{% set name, columns, m = piece.name, piece.columns, piece.measure %}
{% set ild = columns | selectattr('name', 'equalto', 'ild') | list %}
{% set levels = columns | rejectattr('name', 'equalto', 'ild') | list %}
{#- The user of a top-k row, as the history names users (runs stored together key queries by run). -#}
{% set user = dialect.after_separator('top_items.query_id') if by_run else 'top_items.query_id' %}
{{ name }}_top AS (
    SELECT query_id, doc_id, relevance
    FROM {{ m.ranked }}
    WHERE {{ recommended.within(m) }}
),
{{ name }}_needed AS (
{% if ild %}
    SELECT DISTINCT first.doc_id AS item, second.doc_id AS other
    FROM {{ name }}_top AS first
    JOIN {{ name }}_top AS second ON second.query_id = first.query_id AND second.doc_id > first.doc_id
{% endif %}
{% if ild and levels %}
    {{ dialect.union() }}
{% endif %}
{% if levels %}
    SELECT DISTINCT top_items.doc_id AS item, seen.doc_id AS other
    FROM {{ name }}_top AS top_items
    JOIN history_pairs AS seen ON seen.query_id = {{ user }}
{% endif %}
),
{{ name }}_similarity AS (
{% if m.similarity == 'features' %}
    SELECT needed.item AS item, needed.other AS other,
           SUM(first.weight * second.weight) / NULLIF(MAX(first_norm.norm) * MAX(second_norm.norm), 0) AS similarity
    FROM {{ name }}_needed AS needed
    JOIN item_features AS first ON first.doc_id = needed.item
    JOIN item_features AS second ON second.doc_id = needed.other AND second.feature = first.feature
    JOIN item_norms AS first_norm ON first_norm.doc_id = needed.item
    JOIN item_norms AS second_norm ON second_norm.doc_id = needed.other
    GROUP BY needed.item, needed.other
{% else %}
    SELECT needed.item AS item, needed.other AS other,
           COUNT(*) / SQRT(CAST(MAX(first_users.users) AS {{ DOUBLE }}) * MAX(second_users.users)) AS similarity
    FROM {{ name }}_needed AS needed
    JOIN history_pairs AS first ON first.doc_id = needed.item
    JOIN history_pairs AS second ON second.doc_id = needed.other AND second.query_id = first.query_id
    JOIN item_users AS first_users ON first_users.doc_id = needed.item
    JOIN item_users AS second_users ON second_users.doc_id = needed.other
    GROUP BY needed.item, needed.other
{% endif %}
){% if ild %},
{{ name }}_ild AS (
    SELECT first.query_id AS query_id,
           {{ ild[0] }}
    FROM {{ name }}_top AS first
    JOIN {{ name }}_top AS second ON second.query_id = first.query_id AND second.doc_id > first.doc_id
    LEFT JOIN {{ name }}_similarity AS pair ON pair.item = first.doc_id AND pair.other = second.doc_id
    GROUP BY first.query_id
){% endif %}{% if levels %},
{{ name }}_unexpected AS (
    SELECT top_items.query_id AS query_id,
           top_items.relevance AS relevance,
           1 - AVG(COALESCE(pair.similarity, 0)) AS unexpectedness
    FROM {{ name }}_top AS top_items
    JOIN history_pairs AS seen ON seen.query_id = {{ user }}
    LEFT JOIN {{ name }}_similarity AS pair ON pair.item = top_items.doc_id AND pair.other = seen.doc_id
    GROUP BY top_items.query_id, top_items.doc_id, top_items.relevance
),
{{ name }}_serendipity AS (
    SELECT query_id{% for level in levels %},
           {{ level }}{% endfor %}

    FROM {{ name }}_unexpected
    GROUP BY query_id
){% endif %},
{{ name }} AS (
    SELECT evaluated_queries.query_id AS query_id{% if ild %},
           {{ name }}_ild.ild AS ild{% endif %}{% for level in levels %},
           {{ name }}_serendipity.{{ level.name }} AS {{ level.name }}{% endfor %}

    FROM evaluated_queries
{% if ild %}
    LEFT JOIN {{ name }}_ild ON {{ name }}_ild.query_id = evaluated_queries.query_id
{% endif %}
{% if levels %}
    LEFT JOIN {{ name }}_serendipity ON {{ name }}_serendipity.query_id = evaluated_queries.query_id
{% endif %}
)
