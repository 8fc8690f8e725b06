{#-
  NumQ, NumRet, NumRel, NumRelRet (trec_eval num_q, num_ret, num_rel, num_rel_ret).
    NumQ      = 1 per evaluated query (summed over queries)
    NumRet    = documents retrieved (after depth and judged_only)
    NumRel    = R, judgments with a label >= rel
    NumRelRet = retrieved documents with a label >= rel
  Summed, not averaged, over queries. Reads: ranked, judgments.
  Reference: trec_eval 10 m_num_q.c, m_num_ret.c, m_num_rel.c, m_num_rel_ret.c.
-#}
{% import '_macros/judging.sql' as judging %}

{% macro NumQ_value(m) %}CAST(1 AS DOUBLE){% endmacro %}

{% macro NumRet_retrieved(m) %}COUNT(*) AS num_ret{% endmacro %}
{% macro NumRet_value(m) %}CAST(COALESCE(num_ret, 0) AS DOUBLE){% endmacro %}

{% macro NumRel_judgments(m) %}{{ judging.num_rel_column(m.level) }}{% endmacro %}
{% macro NumRel_value(m) %}CAST(COALESCE({{ judging.num_rel(m.level) }}, 0) AS DOUBLE){% endmacro %}

{% macro NumRelRet_judged(m) %}{{ judging.is_relevant_column(m.level) }}{% endmacro %}
{% macro NumRelRet_retrieved(m) %}{{ judging.relevant_in_top_column(m.level, none) }}{% endmacro %}
{% macro NumRelRet_value(m) %}CAST(COALESCE({{ judging.relevant_in_top(m.level, none) }}, 0) AS DOUBLE){% endmacro %}
