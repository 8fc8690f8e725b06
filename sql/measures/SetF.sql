{#-
  SetF (trec_eval set_F): (beta + 1) * P * Rc / (beta * P + Rc) with P = r / n, Rc = r / R over
  the whole retrieved list (the counts of _macros/retrieved_set.sql); 0 when r = 0. beta is not
  squared, as in trec_eval.
  Parameters: rel (minimum relevant label, default 1); beta (default 1).
  Reference: trec_eval 10 m_set_F.c.
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/retrieved_set.sql' as set %}

{% macro judgments(m) %}{{ set.judgments(m) }}{% endmacro %}
{% macro judged(m) %}{{ set.judged(m) }}{% endmacro %}
{% macro retrieved(m) %}{{ set.retrieved(m) }}{% endmacro %}
{% macro value(m) %}
{%- set p = set.r(m) ~ ' / num_ret' -%}
{%- set rc = set.r(m) ~ ' / ' ~ set.big_r(m) -%}
{%- set beta = judging.real(m.beta) -%}
CASE WHEN {{ set.r(m) }} > 0 THEN ({{ beta }} + 1) * ({{ p }}) * ({{ rc }}) / ({{ beta }} * ({{ p }}) + ({{ rc }})) ELSE 0 END
{%- endmacro %}
