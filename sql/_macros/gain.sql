{#-
  Gain of a document from its label: the label itself (linear, Jarvelin & Kekalainen),
  0 for labels <= 0 and for unjudged documents.
  Reference: trec_eval 10 m_ndcg.c, gain_init.c (SEMANTICS.md sec. 6).
-#}
{% macro gain(relevance) %}CASE WHEN {{ relevance }} > 0 THEN CAST({{ relevance }} AS DOUBLE) ELSE 0 END{% endmacro %}
