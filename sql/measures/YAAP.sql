{#-
  YAAP (trec_eval yaap): yet another AP, ln((1 + S) / (1 + R - S)) with S = AP * R, the sum of
  the precisions at the relevant documents retrieved (measures/AP.sql).
  Parameters: rel (minimum relevant label, default 1).
  Reference: trec_eval 10 m_yaap.c.
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/dialect.sql' as dialect %}
{% import 'measures/AP.sql' as ap %}

{% macro judgments(m) %}{{ ap.judgments(m) }}{% endmacro %}
{% macro judged(m) %}{{ ap.judged(m) }}{% endmacro %}
{% macro ranked(m) %}{{ ap.ranked(m) }}{% endmacro %}
{% macro retrieved(m) %}{{ ap.retrieved(m) }}{% endmacro %}
{% macro value(m) %}
{%- set s = dialect.as_double('COALESCE(' ~ ap.precision_sum(m) ~ ', 0)') -%}
LN((1 + {{ s }}) / (1 + COALESCE({{ judging.num_rel(m.level) }}, 0) - {{ s }}))
{%- endmacro %}
