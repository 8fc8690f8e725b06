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
{% macro retrieved(m) %}SUM(is_unjudged * {{ ties.within(m.cutoff | number, m) }}) AS unjudged_top_{{ m.cutoff | number }}{% endmacro %}
{% macro value(m) %}CAST(COALESCE(unjudged_top_{{ m.cutoff | number }}, 0) AS {{ DOUBLE }}) / {{ m.cutoff | number }}{% endmacro %}
