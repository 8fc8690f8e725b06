{#-
  One column per requested measure of one ranking, for every evaluated query: the measures'
  values from the per-query steps. With mixed query-set rules, a measure that skips queries
  the run does not answer (missing_queries=skip), or queries without judgments (unjudged_queries=skip),
  is NULL there. A measure that may have no value for a query scores 0 where the run does not answer the query
  at all, under missing_queries=zero (m.zero_when_unanswered); a measure of relevance scores 1 where the query has no
  relevant judgment, under no_relevant=one (m.one_when_no_relevant).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% set v = piece.ranking %}
{% macro population(m) -%}
{%- set conditions = (['answered_queries.answered'] if mixed_missing and m.missing_queries == 'skip' else [])
                    + (['answered_queries.judged'] if mixed_unjudged and m.unjudged_queries == 'skip' else []) -%}
{%- set value = ('CASE WHEN evaluated_queries.answered THEN ' ~ m.value ~ ' ELSE 0 END')
                if m.zero_when_unanswered else m.value -%}
{%- set value = ('CASE WHEN evaluated_queries.relevant THEN ' ~ value ~ ' ELSE 1 END')
                if m.one_when_no_relevant else value -%}
{%- if conditions -%}
CASE WHEN {{ conditions | join(' AND ') }} THEN {{ value }} END
{%- else -%}
{{ value }}
{%- endif -%}
{%- endmacro %}
{#- A step of one row for all queries; with segments, its row of all queries (segment NULL); with
    runs stored together, the row of the query's run. -#}
{% macro one_row(step) -%}
{% if grouped == 'segment' %}LEFT JOIN {{ step }} ON {{ step }}.{{ group_key }} IS NULL
{%- elif grouped == 'run' %}LEFT JOIN {{ step }} ON {{ step }}.{{ group_key }} = {{ dialect.before_separator('evaluated_queries.query_id') }}
{%- else %}CROSS JOIN {{ step }}{% endif %}
{%- endmacro %}
{{ v.part }} AS (
    SELECT evaluated_queries.query_id AS query_id{% for m in v.measures %},
           {{ population(m) }} AS {{ m.column }}{% if m.weight_column %},
           {{ m.weight }} AS {{ m.weight_column }}{% endif %}{% endfor %}

    FROM evaluated_queries
    LEFT JOIN retrieved{{ v.sfx }} ON retrieved{{ v.sfx }}.query_id = evaluated_queries.query_id
{% if v.counts %}
    LEFT JOIN retrieved_counts{{ v.sfx }} ON retrieved_counts{{ v.sfx }}.query_number = evaluated_queries.query_number
{% endif %}
{% if judgment_columns %}
    LEFT JOIN judgments ON judgments.query_id = evaluated_queries.query_id
{% endif %}
{% if mixed_population %}
    LEFT JOIN answered_queries ON answered_queries.query_id = evaluated_queries.query_id
{% endif %}
{% for spec in ideals if spec.source == 'qrels' or spec.ranking == v.sfx %}
    LEFT JOIN {{ spec.name }}_dcg ON {{ spec.name }}_dcg.query_id = evaluated_queries.query_id
{% endfor %}
{% if perfect_columns %}
    CROSS JOIN perfect_discounts
{% endif %}
{% if v.catalog %}
    {{ one_row('catalog' ~ v.sfx) }}
{% endif %}
{% for cte in v.ctes %}
{% if cte.one_row %}
    {{ one_row(cte.name) }}
{% else %}
    LEFT JOIN {{ cte.name }} ON {{ cte.name }}.query_id = evaluated_queries.query_id
{% endif %}
{% endfor %}
)
