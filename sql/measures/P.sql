{#-
  P@k (trec_eval P_k): precision, the relevant documents in the top k divided by k (k even when
  fewer are retrieved; denominator=retrieved: by the documents retrieved then, 0 when none, as
  Elasticsearch's precision over the hits it returns). With tie_break=expected, its mean over all
  orders of tied documents (linear in "this relevant document is within the top k").
  Parameters: rel (minimum relevant label, default 1); denominator (cutoff or retrieved); cutoff k.
  Reference: trec_eval 10 m_P.c; Elasticsearch PrecisionAtK.java.
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/ties.sql' as ties %}

{% macro judged(m) %}{{ judging.is_relevant_column(m.level) }}{% endmacro %}
{% macro tie(m) %}{% if m.expected %}{{ ties.group_columns() }}{% endif %}{% endmacro %}
{% macro retrieved(m) %}
{{ judging.relevant_in_top_column(m.level, m.cutoff, m) }}
{% if m.get('denominator') == 'retrieved' %}{{ judging.num_ret_column(m) }}{% endif %}
{% endmacro %}
{% macro value(m) %}
{%- if m.get('denominator') == 'retrieved' -%}
COALESCE(CAST({{ judging.relevant_in_top(m.level, m.cutoff) }} AS {{ DOUBLE }}) / NULLIF(LEAST(COALESCE(num_ret, 0), {{ m.cutoff | number }}), 0), 0)
{%- else -%}
CAST(COALESCE({{ judging.relevant_in_top(m.level, m.cutoff) }}, 0) AS {{ DOUBLE }}) / {{ m.cutoff | number }}
{%- endif -%}
{% endmacro %}
