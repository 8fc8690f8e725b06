{#-
  The family step "pooled" of GlobalAUC: for one ranking and relevance level, the judged
  documents of every query counted per score (pooled_scores), then the one AUC of them all, a
  pair of equal scores counting 1/2. One row, joined to every query's row; with segments, one
  row per segment too (segment NULL: all queries), each over its own queries' documents; with
  runs stored together, one row per run.
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/judging.sql' as judging %}
{% set name, m = piece.name, piece.measure %}
{% macro counted(key) %}
    SELECT {% if key %}{{ key }} AS {{ group_key }}, {% endif %}{{ m.score }} AS pooled_score,
           SUM({{ judging.is_relevant(m.level) }}) AS positive,
           SUM({{ judging.is_nonrelevant(m.level) }}) AS negative
    FROM {{ m.ranked }}
{%- endmacro %}
{{ name }}_scores AS (
{% if grouped == 'segment' %}
{{ counted(dialect.null_text()) }}
    GROUP BY {{ m.score }}
    UNION ALL
{{ counted('segments.segment') }}
    JOIN segments ON segments.query_id = {{ m.ranked }}.query_id
    GROUP BY segments.segment, {{ m.score }}
{% elif grouped == 'run' %}
{{ counted(dialect.before_separator('query_id')) }}
    GROUP BY {{ dialect.before_separator('query_id') }}, {{ m.score }}
{% else %}
{{ counted(none) }}
    GROUP BY {{ m.score }}
{% endif %}
),
{{ name }} AS (
    SELECT {% if grouped %}{{ group_key }}, {% endif %}{{ piece.columns[0] }}
    FROM (
        SELECT {% if grouped %}{{ group_key }}, {% endif %}positive, negative,
               COALESCE(SUM(negative) OVER ({% if grouped %}PARTITION BY {{ group_key }} {% endif %}ORDER BY pooled_score DESC
                                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS negative_above
        FROM {{ name }}_scores
    ) AS pooled_counts{% if grouped %}

    GROUP BY {{ group_key }}{% endif %}

)
