{#-
  IPrec@x (trec_eval iprec_at_recall_x): interpolated precision at recall level x.
    interpolated precision at the c-th relevant document = max of P@i over ranks i at or below it
    IPrec@x = interpolated precision at the c-th relevant document, c = round(x * R)
              (trec_eval_version=9: c = floor(x * R + 0.9)); c = 0 counts as the first;
              0 when fewer than c relevant documents are retrieved
  The interpolated precisions are the shared step "interpolated" (sql/evaluation/interpolated.sql).
  Parameters: rel (minimum relevant label, default 1); recall level x.
  Reference: trec_eval 10 m_iprec_at_recall.c (docs/trec_eval_semantics.md sec. 5, 9.2).
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/dialect.sql' as dialect %}

{% macro relevant_count(x, m) -%}
{%- if m.version == 9 -%}
FLOOR({{ judging.real(x) }} * {{ judging.num_rel(m.level) }} + CAST(0.9 AS {{ DOUBLE }}))
{%- else -%}
{{ dialect.round_half_away(judging.real(x) ~ ' * ' ~ judging.num_rel(m.level)) }}
{%- endif -%}
{%- endmacro %}
{% macro at_level(x, m) %}COALESCE(MAX(CASE WHEN relevant_seen = GREATEST({{ relevant_count(x, m) }}, 1) THEN precision END), 0){% endmacro %}

{% macro judgments(m) %}{{ judging.num_rel_column(m.level) }}{% endmacro %}
{% macro judged(m) %}{{ judging.is_relevant_column(m.level) }}{% endmacro %}
{% macro ranked(m) %}{{ judging.relevant_so_far_column(m.level) }}{% endmacro %}
{% macro interpolated(m) %}{% call column(m.column ~ "_at_level") %}{{ at_level(m.cutoff, m) }}{% endcall %}{% endmacro %}
{% macro value(m) %}COALESCE({{ m.column }}_at_level, 0){% endmacro %}
