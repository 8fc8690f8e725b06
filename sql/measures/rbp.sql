{#-
  RBP and RBPResid (trec_eval rbp, rbp_resid): rank-biased precision (Moffat & Zobel, 2008).
    RBP      = (1 - p) * sum over retrieved d at rank i of gain(d) * p^(i - 1)
               gain = label / (the query's highest label) when that is above 1, else the label;
               0 for labels <= 0 and unjudged documents (trec_eval's intended rescaling to [0, 1])
    RBPResid = p^num_ret + (1 - p) * sum over unjudged retrieved d of p^(i - 1) when some
               retrieved document is unjudged (absent from the qrels or negative), else 0
  Parameters: p (persistence, default 0.9).
  Reference: trec_eval 10 m_rbp.c, m_rbp_resid.c (SEMANTICS.md sec. 5, 9.4, 9.7).
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/ties.sql' as ties %}

{#- p^(rank - 1), or with tie_break=expected its mean over the tie group's positions. -#}
{% macro weight(m) %}{% if m.expected %}tie_weight_{{ m.column }}{% else %}POWER({{ judging.real(m.p) }}, rank - 1){% endif %}{% endmacro %}
{% macro weight_parts(m) %}{% if m.expected %}{{ ties.group_columns() }}
[tie] AVG(POWER({{ judging.real(m.p) }}, rank - 1)) OVER tie AS tie_weight_{{ m.column }}
{% endif %}{% endmacro %}

{% macro RBP_parts(m) %}
[judgments] MAX(CASE WHEN relevance >= 0 THEN relevance END) AS max_label
[join] judgments
{{ weight_parts(m) }}
[retrieved] SUM(CASE WHEN relevance > 0 THEN CAST(relevance AS DOUBLE) / CASE WHEN judgments.max_label > 1 THEN judgments.max_label ELSE 1 END * {{ weight(m) }} ELSE 0 END) AS {{ m.column }}_sum
{% endmacro %}
{% macro RBP_value(m) %}(1 - {{ judging.real(m.p) }}) * COALESCE({{ m.column }}_sum, 0){% endmacro %}

{% macro RBPResid_parts(m) %}
[judged] {{ judging.is_unjudged_column() }}
[retrieved] {{ judging.num_ret_column() }}
[retrieved] SUM(is_unjudged) AS unjudged_retrieved
{{ weight_parts(m) }}
[retrieved] SUM(CASE WHEN is_unjudged = 1 THEN {{ weight(m) }} ELSE 0 END) AS {{ m.column }}_weight
{% endmacro %}
{% macro RBPResid_value(m) %}CASE WHEN unjudged_retrieved > 0 THEN POWER({{ judging.real(m.p) }}, num_ret) + (1 - {{ judging.real(m.p) }}) * {{ m.column }}_weight ELSE 0 END{% endmacro %}
