{#-
  SetP (trec_eval set_P, set_relative_P): r / n over the whole retrieved list (relative=True:
  r / min(n, R)), with the counts of _macros/retrieved_set.sql; 0 when the denominator is 0.
  Parameters: rel (minimum relevant label, default 1); relative.
  Reference: trec_eval 10 m_set_P.c, m_set_rel_P.c.
-#}
{% import '_macros/retrieved_set.sql' as set %}

{% macro judgments(m) %}{{ set.judgments(m) }}{% endmacro %}
{% macro judged(m) %}{{ set.judged(m) }}{% endmacro %}
{% macro retrieved(m) %}{{ set.retrieved(m) }}{% endmacro %}
{% macro value(m) %}
{%- if m.relative -%}
COALESCE({{ set.r(m) }} / NULLIF(LEAST(COALESCE(num_ret, 0), {{ set.big_r(m) }}), 0), 0)
{%- else -%}
COALESCE({{ set.r(m) }} / NULLIF(num_ret, 0), 0)
{%- endif -%}
{% endmacro %}
