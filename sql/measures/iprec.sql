{#-
  IPrec@x and IPrecAvg (trec_eval iprec_at_recall_x, 11pt_avg): interpolated precision.
    interpolated precision at the c-th relevant document = max of P@i over ranks i at or below it
    IPrec@x  = interpolated precision at the c-th relevant document, c = round(x * R)
               (trec_eval_version=9: c = floor(x * R + 0.9)); c = 0 counts as the first;
               0 when fewer than c relevant documents are retrieved
    IPrecAvg = mean of IPrec over its recall levels (default 0, 0.1, ..., 1: the 11-point average)
  Parameters: rel (minimum relevant label, default 1); recall level x; levels.
  Reads: ranked (rank, is_rel_L, rel_L_so_far), judgments (num_rel_L).
  Reference: trec_eval 10 m_iprec_at_recall.c, m_11pt_avg.c (SEMANTICS.md sec. 5, 9.2).
-#}
{% import '_macros/judging.sql' as judging %}

{% macro relevant_count(x, m) -%}
{%- if m.version == 9 -%}
FLOOR({{ judging.real(x) }} * {{ judging.num_rel(m.level) }} + CAST(0.9 AS DOUBLE))
{%- else -%}
ROUND({{ judging.real(x) }} * {{ judging.num_rel(m.level) }})
{%- endif -%}
{%- endmacro %}
{% macro at_level(x, m) %}COALESCE(MAX(CASE WHEN relevant_seen = GREATEST({{ relevant_count(x, m) }}, 1) THEN precision END), 0){% endmacro %}

{% macro common_parts(m) %}
[judged] {{ judging.is_relevant_column(m.level) }}
[ranked] {{ judging.relevant_so_far_column(m.level) }}
[judgments] {{ judging.num_rel_column(m.level) }}
{% endmacro %}

{% macro IPrec_parts(m) %}{{ common_parts(m) }}
[iprec:{{ m.cte.iprec }}] {{ at_level(m.cutoff, m) }} AS {{ m.column }}_at_level
{% endmacro %}
{% macro IPrec_value(m) %}COALESCE({{ m.column }}_at_level, 0){% endmacro %}

{% macro IPrecAvg_parts(m) %}{{ common_parts(m) }}
[iprec:{{ m.cte.iprec }}] ({% for x in m.levels %}{{ at_level(x, m) }}{% if not loop.last %} + {% endif %}{% endfor %}) / {{ m.levels | length }} AS {{ m.column }}_average
{% endmacro %}
{% macro IPrecAvg_value(m) %}COALESCE({{ m.column }}_average, 0){% endmacro %}

{% macro cte_iprec(name, columns, m) %}
{{ name }}_interpolated AS (
    SELECT query_id,
           {{ judging.relevant_so_far(m.level) }} AS relevant_seen,
           MAX(CAST({{ judging.relevant_so_far(m.level) }} AS DOUBLE) / rank) OVER (
               PARTITION BY query_id ORDER BY rank DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS precision
    FROM {{ m.ranked }}
    WHERE {{ judging.is_relevant(m.level) }} = 1
),
{{ name }} AS (
    SELECT interpolated.query_id{% for column in columns %},
           {{ column }}{% endfor %}

    FROM {{ name }}_interpolated AS interpolated
    JOIN judgments ON judgments.query_id = interpolated.query_id
    GROUP BY interpolated.query_id
)
{% endmacro %}
