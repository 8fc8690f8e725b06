{#-
  SetR (trec_eval set_recall): r / R over the whole retrieved list, with the counts of
  _macros/retrieved_set.sql; 0 when R = 0.
  Parameters: rel (minimum relevant label, default 1).
  Reference: trec_eval 10 m_set_recall.c.
-#}
{% import '_macros/retrieved_set.sql' as set %}

{% macro judgments(m) %}{{ set.judgments(m) }}{% endmacro %}
{% macro judged(m) %}{{ set.judged(m) }}{% endmacro %}
{% macro retrieved(m) %}{{ set.retrieved(m) }}{% endmacro %}
{% macro value(m) %}COALESCE({{ set.r(m) }} / NULLIF({{ set.big_r(m) }}, 0), 0){% endmacro %}
