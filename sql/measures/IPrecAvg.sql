{#-
  IPrecAvg (trec_eval 11pt_avg): the mean of IPrec (measures/IPrec.sql) over its recall levels
  (default 0, 0.1, ..., 1: the 11-point average).
  Parameters: rel (minimum relevant label, default 1); levels.
  Reference: trec_eval 10 m_11pt_avg.c.
-#}
{% import 'measures/IPrec.sql' as iprec %}

{% macro judgments(m) %}{{ iprec.judgments(m) }}{% endmacro %}
{% macro judged(m) %}{{ iprec.judged(m) }}{% endmacro %}
{% macro ranked(m) %}{{ iprec.ranked(m) }}{% endmacro %}
{% macro interpolated(m) %}
{% call column(m.column ~ "_average") %}({% for x in m.levels %}{{ iprec.at_level(x, m) }}{% if not loop.last %} + {% endif %}{% endfor %}) / {{ m.levels | length }}{% endcall %}
{% endmacro %}
{% macro value(m) %}COALESCE({{ m.column }}_average, 0){% endmacro %}
