{#-
  NumQ (trec_eval num_q): 1 per evaluated query, summed over queries.
  Reference: trec_eval 10 m_num_q.c.
-#}
{% macro value(m) %}CAST(1 AS {{ DOUBLE }}){% endmacro %}
