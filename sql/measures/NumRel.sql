{#-
  NumRel (trec_eval num_rel): R, the judgments with a label >= rel, summed over queries.
  Reference: trec_eval 10 m_num_rel.c.
-#}
{% import '_macros/judging.sql' as judging %}

{% macro judgments(m) %}{{ judging.num_rel_column(m.level) }}{% endmacro %}
{% macro value(m) %}CAST(COALESCE({{ judging.num_rel(m.level) }}, 0) AS {{ DOUBLE }}){% endmacro %}
