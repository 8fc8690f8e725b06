{#-
  Gain of a document from its label. Linear by default: the label itself, 0 for labels <= 0
  and for unjudged documents. A gain map (trec_eval ndcg.1=3,2=9) replaces the gain of the
  labels it names; other labels >= 0 keep gain = label; unjudged and negative labels gain 0.
  Reference: trec_eval 10 m_ndcg.c, gain_init.c (SEMANTICS.md sec. 6).
-#}
{% macro gain(relevance, spec) %}
{%- if spec.map -%}
CASE{% for label, value in spec.map %} WHEN {{ relevance }} = {{ label | number }} THEN CAST({{ value | number }} AS DOUBLE){% endfor %} WHEN {{ relevance }} > 0 THEN CAST({{ relevance }} AS DOUBLE) ELSE 0 END
{%- else -%}
CASE WHEN {{ relevance }} > 0 THEN CAST({{ relevance }} AS DOUBLE) ELSE 0 END
{%- endif -%}
{% endmacro %}
