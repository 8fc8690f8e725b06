{#-
  Utility (trec_eval utility): a * r + b * (n - r) + c * (R - r) + d * (num_docs + r - n - R),
  with the counts of _macros/retrieved_set.sql.
  Parameters: rel (minimum relevant label, default 1); a, b, c, d (default 1, -1, 0, 0); num_docs.
  Reference: trec_eval 10 m_utility.c.
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/retrieved_set.sql' as set %}

{% macro judgments(m) %}{{ set.judgments(m) }}{% endmacro %}
{% macro judged(m) %}{{ set.judged(m) }}{% endmacro %}
{% macro retrieved(m) %}{{ set.retrieved(m) }}{% endmacro %}
{% macro value(m) %}
{%- set n = 'COALESCE(num_ret, 0)' -%}{%- set r = set.r(m) -%}{%- set big_r = set.big_r(m) -%}
{{ judging.real(m.a) }} * {{ r }} + {{ judging.real(m.b) }} * ({{ n }} - {{ r }}) + {{ judging.real(m.c) }} * ({{ big_r }} - {{ r }}) + {{ judging.real(m.d) }} * ({{ m.num_docs | number }} + {{ r }} - {{ n }} - {{ big_r }})
{%- endmacro %}
