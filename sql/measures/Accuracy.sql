{#-
  Accuracy and Accuracy@k (ir_measures' Accuracy): the share of (relevant, not relevant) pairs of
  the top k in which the relevant document ranks higher, unjudged documents not relevant:
    Accuracy@k = 1 - (sum over relevant d in the top k of the documents not relevant above d) / (P N)
  P, N = the relevant and the not relevant documents in the top k (the whole ranking without k).
  Empty (NULL) where the top k holds no relevant document, so the mean is over the queries that
  have one (ir_measures reports none there); 1 where it holds no other (ir_measures divides by 0).
  Unlike AUC, unjudged documents count as not relevant, and tied documents as ranked.
  Parameters: rel (minimum relevant label, default 1); cutoff k (default: whole ranking).
  Reference: ir_measures, measures/accuracy.py and providers/accuracy_provider.py.
-#}
{% import '_macros/judging.sql' as judging %}
{% macro key(m) %}{{ m.level | key }}{{ judging.cut(m.cutoff) }}{% endmacro %}
{% macro within(m) %}{% if m.cutoff is not none %} AND rank <= {{ m.cutoff | number }}{% endif %}{% endmacro %}
{% macro judged(m) %}{{ judging.is_relevant_column(m.level) }}{% endmacro %}
{% macro ranked(m) %}{{ judging.relevant_so_far_column(m.level) }}{% endmacro %}
{% macro retrieved(m) %}
{% call column('accuracy_above_' ~ key(m)) %}SUM(CASE WHEN {{ judging.is_relevant(m.level) }} = 1{{ within(m) }} THEN rank - {{ judging.relevant_so_far(m.level) }} ELSE 0 END){% endcall %}
{% call column('accuracy_other_' ~ key(m)) %}SUM(CASE WHEN {{ judging.is_relevant(m.level) }} = 0{{ within(m) }} THEN 1 ELSE 0 END){% endcall %}
{{ judging.relevant_in_top_column(m.level, m.cutoff, m) }}
{% endmacro %}
{% macro value(m) %}
{%- set positive = judging.relevant_in_top(m.level, m.cutoff) -%}
CASE WHEN COALESCE({{ positive }}, 0) = 0 THEN NULL WHEN accuracy_other_{{ key(m) }} = 0 THEN 1 ELSE 1 - CAST(accuracy_above_{{ key(m) }} AS {{ DOUBLE }}) / (CAST(accuracy_other_{{ key(m) }} AS {{ DOUBLE }}) * {{ positive }}) END
{%- endmacro %}
