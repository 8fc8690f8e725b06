{#-
  P@k (trec_eval P_k): precision, the relevant documents in the top k divided by k (k even when
  fewer are retrieved). With tie_break=expected, its mean over all orders of tied documents
  (linear in "this relevant document is within the top k").
  Parameters: rel (minimum relevant label, default 1); cutoff k.
  Reference: trec_eval 10 m_P.c.
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/ties.sql' as ties %}

{% macro judged(m) %}{{ judging.is_relevant_column(m.level) }}{% endmacro %}
{% macro tie(m) %}{% if m.expected %}{{ ties.group_columns() }}{% endif %}{% endmacro %}
{% macro retrieved(m) %}{{ judging.relevant_in_top_column(m.level, m.cutoff, m) }}{% endmacro %}
{% macro value(m) %}CAST(COALESCE({{ judging.relevant_in_top(m.level, m.cutoff) }}, 0) AS {{ DOUBLE }}) / {{ m.cutoff | number }}{% endmacro %}
