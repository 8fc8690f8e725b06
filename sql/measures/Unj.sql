{#-
  Unj@k (trec_eval unj_k): the retrieved documents in the top k that are absent from the qrels or
  have a negative label, divided by k (averaged over queries, not summed). With
  tie_break=expected, its mean over all orders of tied documents.
  Reference: trec_eval 10 m_unjudged.c.
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/ties.sql' as ties %}

{% macro judged(m) %}{{ judging.is_unjudged_column() }}{% endmacro %}
{% macro tie(m) %}{% if m.expected %}{{ ties.group_columns() }}{% endif %}{% endmacro %}
{% macro retrieved(m) %}
{% if m.sparse %}
{% call column("judged_top_" ~ (m.cutoff | number)) %}SUM(CASE WHEN relevance >= 0 AND rank <= {{ m.cutoff | number }} THEN 1 ELSE 0 END){% endcall %}
{% else %}
{% call column("unjudged_top_" ~ (m.cutoff | number)) %}SUM(is_unjudged * {{ ties.within(m.cutoff | number, m) }}){% endcall %}
{% endif %}
{% endmacro %}
{% macro value(m) %}
{%- set k = m.cutoff | number -%}
{%- if m.sparse -%}
CAST(LEAST({{ k }}, COALESCE(num_ret, 0)) - COALESCE(judged_top_{{ k }}, 0) AS {{ DOUBLE }}) / {{ k }}
{%- else -%}
CAST(COALESCE(unjudged_top_{{ k }}, 0) AS {{ DOUBLE }}) / {{ k }}
{%- endif -%}
{% endmacro %}
