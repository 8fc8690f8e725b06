{#-
  NumRet (trec_eval num_ret): the documents retrieved (after depth and judged_only), summed over queries.
  Reference: trec_eval 10 m_num_ret.c.
-#}
{% import '_macros/judging.sql' as judging %}

{% macro retrieved(m) %}{{ judging.num_ret_column(m) }}{% endmacro %}
{% macro value(m) %}CAST(COALESCE(num_ret, 0) AS {{ DOUBLE }}){% endmacro %}
