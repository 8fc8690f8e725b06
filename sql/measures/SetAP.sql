{#-
  SetAP (trec_eval set_map): r^2 / (n * R) over the whole retrieved list, with the counts of
  _macros/retrieved_set.sql; 0 when n * R = 0.
  Parameters: rel (minimum relevant label, default 1).
  Reference: trec_eval 10 m_set_map.c.
-#}
{% import '_macros/retrieved_set.sql' as set %}

{% macro judgments(m) %}{{ set.judgments(m) }}{% endmacro %}
{% macro judged(m) %}{{ set.judged(m) }}{% endmacro %}
{% macro retrieved(m) %}{{ set.retrieved(m) }}{% endmacro %}
{% macro value(m) %}COALESCE({{ set.r(m) }} * {{ set.r(m) }} / NULLIF(COALESCE(num_ret, 0) * {{ set.big_r(m) }}, 0), 0){% endmacro %}
