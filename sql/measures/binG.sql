{#-
  binG (trec_eval binG): binary G, (1 / R) * sum over retrieved relevant d of
  1 / log2(2 + non-relevant documents above d) (every document above d that is not relevant).
  Parameters: rel (minimum relevant label, default 1).
  Reference: trec_eval 10 m_binG.c.
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/dialect.sql' as dialect %}

{% macro judgments(m) %}{{ judging.num_rel_column(m.level) }}{% endmacro %}
{% macro judged(m) %}{{ judging.is_relevant_column(m.level) }}{% endmacro %}
{% macro ranked(m) %}{{ judging.relevant_so_far_column(m.level) }}{% endmacro %}
{% macro retrieved(m) %}
{%- set term = '1 / ' ~ dialect.log2('2 + rank - ' ~ judging.relevant_so_far(m.level)) -%}
{% call column("bing_sum_" ~ (m.level | key)) %}{{ dialect.sum_in_rank_order(term, judging.is_relevant(m.level) ~ ' = 1') }}{% endcall %}
{% endmacro %}
{% macro value(m) %}COALESCE(bing_sum_{{ m.level | key }} / NULLIF({{ judging.num_rel(m.level) }}, 0), 0){% endmacro %}
