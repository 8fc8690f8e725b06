{#-
  RBPResid (trec_eval rbp_resid): the mass RBP (measures/RBP.sql) leaves to unjudged documents
  and the tail,
    RBPResid = p^num_ret + (1 - p) * sum over unjudged retrieved d of p^(i - 1) when some
               retrieved document is unjudged (absent from the qrels or negative), else 0
  Parameters: p (persistence, default 0.9).
  Reference: trec_eval 10 m_rbp_resid.c (docs/trec_eval_semantics.md sec. 5, 9.7).
-#}
{% import '_macros/judging.sql' as judging %}
{% import 'measures/RBP.sql' as rbp %}

{% macro judged(m) %}{{ judging.is_unjudged_column() }}{% endmacro %}
{% macro tie(m) %}{{ rbp.weight_columns(m) }}{% endmacro %}
{% macro retrieved(m) %}
{{ judging.num_ret_column() }}
SUM(is_unjudged) AS unjudged_retrieved
SUM(CASE WHEN is_unjudged = 1 THEN {{ rbp.weight(m) }} ELSE 0 END) AS {{ m.column }}_weight
{% endmacro %}
{% macro value(m) %}
{%- set p = judging.real(m.p) -%}
CASE WHEN unjudged_retrieved > 0 THEN POWER({{ p }}, num_ret) + (1 - {{ p }}) * {{ m.column }}_weight ELSE 0 END
{%- endmacro %}
