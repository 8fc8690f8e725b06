{#-
  RBPResid (trec_eval rbp_resid): the mass RBP (measures/RBP.sql) leaves to unjudged documents
  and the tail,
    RBPResid = p^num_ret + (1 - p) * sum over unjudged retrieved d of p^(i - 1) when some
               retrieved document is unjudged (absent from the qrels or negative), else 0
  Parameters: p (persistence, default 0.9).
  Reference: trec_eval 10 m_rbp_resid.c (docs/trec_eval_semantics.md sec. 5, 9.7).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/judging.sql' as judging %}
{% import 'measures/RBP.sql' as rbp %}

{% macro judged(m) %}{{ judging.is_unjudged_column() }}{% endmacro %}
{% macro tie(m) %}{{ rbp.weight_columns(m) }}{% endmacro %}
{#- On a sparse ranking (its rows are the judged documents) the unjudged ones are the rest: their
    count is num_ret minus the judged, and their weights the geometric sum over ranks 1..num_ret,
    (1 - p^num_ret) / (1 - p), minus the judged documents' weights. -#}
{% macro retrieved(m) %}
{{ judging.num_ret_column(m) }}
{% if m.sparse %}
{% call column("judged_retrieved") %}SUM(CASE WHEN relevance >= 0 THEN 1 ELSE 0 END){% endcall %}
{% call column(m.column ~ "_judged_weight") %}{{ dialect.sum_in_rank_order(rbp.weight(m), 'relevance >= 0') }}{% endcall %}
{% else %}
{% call column("unjudged_retrieved") %}SUM(is_unjudged){% endcall %}
{% call column(m.column ~ "_weight") %}{{ dialect.sum_in_rank_order(rbp.weight(m), 'is_unjudged = 1') }}{% endcall %}
{% endif %}
{% endmacro %}
{% macro value(m) %}
{%- set p = judging.real(m.p) -%}
{%- if m.sparse -%}
{%- set n = 'COALESCE(num_ret, 0)' -%}
CASE WHEN {{ n }} - COALESCE(judged_retrieved, 0) > 0 THEN POWER({{ p }}, {{ n }}) + (1 - {{ p }}) * ((1 - POWER({{ p }}, {{ n }})) / (1 - {{ p }}) - COALESCE({{ m.column }}_judged_weight, 0)) ELSE 0 END
{%- else -%}
CASE WHEN unjudged_retrieved > 0 THEN POWER({{ p }}, num_ret) + (1 - {{ p }}) * {{ m.column }}_weight ELSE 0 END
{%- endif -%}
{%- endmacro %}
