{#-
  The counts the set measures (SetP, SetR, SetAP, SetF, Utility) read: r = relevant retrieved,
  n = retrieved, R = relevant judged; each set measure is 0 where its denominator is 0.
  Reference: trec_eval 10 m_set_P.c, m_set_recall.c, m_set_map.c, m_set_F.c, m_utility.c.
-#}
{% import '_macros/judging.sql' as judging %}

{% macro judgments(m) %}{{ judging.num_rel_column(m.level) }}{% endmacro %}
{% macro judged(m) %}{{ judging.is_relevant_column(m.level) }}{% endmacro %}
{% macro retrieved(m) %}
{{ judging.relevant_in_top_column(m.level, none, m) }}
{{ judging.num_ret_column(m) }}
{% endmacro %}
{% macro r(m) %}CAST(COALESCE({{ judging.relevant_in_top(m.level, none) }}, 0) AS {{ DOUBLE }}){% endmacro %}
{% macro big_r(m) %}COALESCE({{ judging.num_rel(m.level) }}, 0){% endmacro %}
