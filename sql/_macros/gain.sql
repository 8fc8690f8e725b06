{#-
  Gain of a document from its label, by the gain convention:
    linear       the label itself (Jarvelin & Kekalainen; trec_eval)
    exponential  2^label - 1 (Burges et al.; common in industry)
    a mapping    the gain of each label it names; other labels keep gain = label
    signed       the label itself, negative labels too (scikit-learn's dcg_score and ndcg_score); unjudged 0
  Labels <= 0, negative labels and unjudged documents gain 0 (a mapping may give label 0 a gain; signed keeps
  negative labels' gains).
  Reference: trec_eval 10 m_ndcg.c, gain_init.c (docs/trec_eval_semantics.md sec. 6).
-#}
{% macro gain(relevance, spec) %}
{%- if spec.map -%}
CASE{% for label, value in spec.map %} WHEN {{ relevance }} = {{ label | number }} THEN CAST({{ value | number }} AS {{ DOUBLE }}){% endfor %} WHEN {{ relevance }} > 0 THEN CAST({{ relevance }} AS {{ DOUBLE }}) ELSE 0 END
{%- elif spec.kind == 'signed' -%}
COALESCE(CAST({{ relevance }} AS {{ DOUBLE }}), 0)
{%- elif spec.kind == 'exponential' -%}
CASE WHEN {{ relevance }} > 0 THEN POWER(CAST(2 AS {{ DOUBLE }}), {{ relevance }}) - 1 ELSE 0 END
{%- else -%}
CASE WHEN {{ relevance }} > 0 THEN CAST({{ relevance }} AS {{ DOUBLE }}) ELSE 0 END
{%- endif -%}
{% endmacro %}
