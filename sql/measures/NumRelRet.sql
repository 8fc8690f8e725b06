{#-
  NumRelRet (trec_eval num_rel_ret): the retrieved documents with a label >= rel, summed over queries.
  Reference: trec_eval 10 m_num_rel_ret.c.
-#}
{% import '_macros/judging.sql' as judging %}

{% macro judged(m) %}{{ judging.is_relevant_column(m.level) }}{% endmacro %}
{% macro retrieved(m) %}{{ judging.relevant_in_top_column(m.level, none, m) }}{% endmacro %}
{% macro value(m) %}CAST(COALESCE({{ judging.relevant_in_top(m.level, none) }}, 0) AS {{ DOUBLE }}){% endmacro %}
