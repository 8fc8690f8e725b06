{#-
  The shared step "catalog" of a ranking: how often each item is in the top k of all queries
  (listed), then the measures that are one value over all recommendations (coverage, Gini,
  entropy, novelty), aggregated over those items. With segments, the items are counted over all
  queries (segment NULL) and over each segment's queries, and the measures are one row per
  segment (a segment whose users have no recommendation too: Coverage 0, the others none); with
  runs stored together, one row per run. The catalog, its size and the items' popularity stay
  those of every user. Evaluated in slices (outputs "slices" and "slices_summary"), the items'
  counts are the sums of each slice's, read from the slices' table (rows of doc_id, measure: the
  count's name, value).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/evaluation.sql' as evaluation %}
{% set v = piece.ranking %}
{% macro counted(key) %}
        SELECT {{ (([key ~ ' AS ' ~ group_key] if key else []) + ['doc_id'] + v.listed) | join(',\n               ') }}
        FROM ranked{{ v.sfx }}
{%- endmacro %}
listed{{ v.sfx }} AS (
    SELECT counted.*{{ evaluation.columns(v.ordered) }}
    FROM (
{% if slices_table %}
        SELECT doc_id{% for t in v.times %},
               CAST(SUM(CASE WHEN measure = {{ t.name | literal }} THEN value ELSE 0 END) AS BIGINT) AS {{ t.column }}{% endfor %}

        FROM {{ slices_table }}
        WHERE doc_id IS NOT NULL
        GROUP BY doc_id
{% elif grouped == 'segment' %}
{{ counted(dialect.null_text()) }}
        GROUP BY doc_id
        UNION ALL
{{ counted('segments.segment') }}
        JOIN segments ON segments.query_id = ranked{{ v.sfx }}.query_id
        GROUP BY segments.segment, doc_id
{% elif grouped == 'run' %}
{{ counted(dialect.before_separator('query_id')) }}
        GROUP BY {{ dialect.before_separator('query_id') }}, doc_id
{% else %}
{{ counted(none) }}
        GROUP BY doc_id
{% endif %}
    ) AS counted
),
{% set key = 'segment_names.segment' if grouped == 'segment' else group_key %}
catalog{{ v.sfx }} AS (
    SELECT {{ (([key ~ ' AS ' ~ group_key] if grouped else []) + v.catalog) | join(',\n           ') }}
{% if grouped == 'segment' %}
    FROM (SELECT {{ dialect.null_text() }} AS segment UNION ALL SELECT DISTINCT segment FROM segments) AS segment_names
    LEFT JOIN listed{{ v.sfx }} ON listed{{ v.sfx }}.segment IS NOT DISTINCT FROM segment_names.segment
{% else %}
    FROM listed{{ v.sfx }}
{% endif %}
    LEFT JOIN popularity ON popularity.doc_id = listed{{ v.sfx }}.doc_id
    CROSS JOIN catalog_items{% if grouped %}

    GROUP BY {{ key }}{% endif %}

)
