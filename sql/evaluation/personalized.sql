{#-
  The shared step "personalized" of Personalization: for the top k of every user, how many users have each item in
  their top k and how many users have a top k (with runs stored together, within each run), then one row per user
  with the columns its measures ask.
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/recommended.sql' as recommended %}
{% set name, columns, m = piece.name, piece.columns, piece.measure %}
{{ name }}_top AS (
    SELECT query_id, doc_id, {{ dialect.before_separator('query_id') if by_run else "''" }} AS run_key
    FROM {{ m.ranked }}
    WHERE {{ recommended.within(m) }}
),
{{ name }}_items AS (
    SELECT run_key, doc_id, COUNT(*) AS holders
    FROM {{ name }}_top
    GROUP BY run_key, doc_id
),
{{ name }}_users AS (
    SELECT run_key, COUNT(DISTINCT query_id) AS users
    FROM {{ name }}_top
    GROUP BY run_key
),
{{ name }} AS (
    SELECT top_items.query_id AS query_id{% for column in columns %},
           {{ column }}{% endfor %}

    FROM {{ name }}_top AS top_items
    JOIN {{ name }}_items AS held ON held.run_key = top_items.run_key AND held.doc_id = top_items.doc_id
    JOIN {{ name }}_users AS users ON users.run_key = top_items.run_key
    GROUP BY top_items.query_id
)
