{#-
  NumNonRelJudgedRet (trec_eval num_nonrel_judged_ret): the retrieved documents with
  0 <= label < rel, summed over queries.
  Reference: trec_eval 10 m_num_nonrel_judged_ret.c.
-#}
{% import '_macros/judging.sql' as judging %}

{% macro judged(m) %}{{ judging.is_nonrelevant_column(m.level) }}{% endmacro %}
{% macro retrieved(m) %}{% call column("nonrel_" ~ (m.level | key) ~ "_retrieved") %}SUM({{ judging.is_nonrelevant(m.level) }}){% endcall %}{% endmacro %}
{% macro value(m) %}CAST(COALESCE(nonrel_{{ m.level | key }}_retrieved, 0) AS {{ DOUBLE }}){% endmacro %}
