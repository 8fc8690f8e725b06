{#-
  NumQ, NumRet, NumRel, NumRelRet, NumNonRelJudgedRet, Unj@k (trec_eval num_q, num_ret,
  num_rel, num_rel_ret, num_nonrel_judged_ret, unj_k).
    NumQ               = 1 per evaluated query (summed over queries)
    NumRet             = documents retrieved (after depth and judged_only)
    NumRel             = R, judgments with a label >= rel
    NumRelRet          = retrieved documents with a label >= rel
    NumNonRelJudgedRet = retrieved documents with 0 <= label < rel
    Unj@k              = retrieved documents in the top k absent from the qrels or with a
                         negative label, divided by k (averaged, not summed)
  Reads: ranked, judgments.
  Reference: trec_eval 10 m_num_q.c, m_num_ret.c, m_num_rel.c, m_num_rel_ret.c,
             m_num_nonrel_judged_ret.c, m_unjudged.c.
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/ties.sql' as ties %}

{% macro NumQ_parts(m) %}{% endmacro %}
{% macro NumQ_value(m) %}CAST(1 AS DOUBLE){% endmacro %}

{% macro NumRet_parts(m) %}
[retrieved] {{ judging.num_ret_column() }}
{% endmacro %}
{% macro NumRet_value(m) %}CAST(COALESCE(num_ret, 0) AS DOUBLE){% endmacro %}

{% macro NumRel_parts(m) %}
[judgments] {{ judging.num_rel_column(m.level) }}
{% endmacro %}
{% macro NumRel_value(m) %}CAST(COALESCE({{ judging.num_rel(m.level) }}, 0) AS DOUBLE){% endmacro %}

{% macro NumRelRet_parts(m) %}
[judged] {{ judging.is_relevant_column(m.level) }}
[retrieved] {{ judging.relevant_in_top_column(m.level, none, m) }}
{% endmacro %}
{% macro NumRelRet_value(m) %}CAST(COALESCE({{ judging.relevant_in_top(m.level, none) }}, 0) AS DOUBLE){% endmacro %}

{% macro NumNonRelJudgedRet_parts(m) %}
[judged] {{ judging.is_nonrelevant_column(m.level) }}
[retrieved] SUM({{ judging.is_nonrelevant(m.level) }}) AS nonrel_{{ m.level | number }}_retrieved
{% endmacro %}
{% macro NumNonRelJudgedRet_value(m) %}CAST(COALESCE(nonrel_{{ m.level | number }}_retrieved, 0) AS DOUBLE){% endmacro %}

{% macro Unj_parts(m) %}
[judged] {{ judging.is_unjudged_column() }}
{% if m.expected %}{{ ties.group_columns() }}{% endif %}
[retrieved] SUM(is_unjudged * {{ ties.within(m.cutoff | number, m) }}) AS unjudged_top_{{ m.cutoff | number }}
{% endmacro %}
{% macro Unj_value(m) %}CAST(COALESCE(unjudged_top_{{ m.cutoff | number }}, 0) AS DOUBLE) / {{ m.cutoff | number }}{% endmacro %}
