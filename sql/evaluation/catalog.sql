{#-
  The shared step "catalog" of a ranking: how often each item is in the top k of all queries
  (listed), then the measures that are one value over all recommendations (coverage, Gini,
  entropy, novelty), aggregated over those items.
-#}
{% import '_macros/evaluation.sql' as evaluation %}
{% set v = piece.ranking %}
listed{{ v.sfx }} AS (
    SELECT counted.*{{ evaluation.columns(v.ordered) }}
    FROM (
        SELECT doc_id{% for column in v.listed %},
               {{ column }}{% endfor %}

        FROM ranked{{ v.sfx }}
        GROUP BY doc_id
    ) AS counted
),
catalog{{ v.sfx }} AS (
    SELECT {{ v.catalog | join(',\n           ') }}
    FROM listed{{ v.sfx }}
    LEFT JOIN popularity ON popularity.doc_id = listed{{ v.sfx }}.doc_id
    CROSS JOIN catalog_items
)
