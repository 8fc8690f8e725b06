{#-
  Discount: DCG weighs the gain at rank i by 1 / log2(i + 1), so rank 1 is undiscounted.
  Reference: Jarvelin & Kekalainen (2002); trec_eval 10 m_ndcg.c (SEMANTICS.md sec. 6).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% macro discounted(gain, rank) %}{{ gain }} / {{ dialect.log2(rank ~ ' + 1') }}{% endmacro %}

{#- Sum of discounted gains over the rows of one query up to rank k (all ranks when k is none). -#}
{% macro dcg_column(gain, k, name) %}
{% if k is none %}
SUM({{ discounted(gain, 'rank') }}) AS {{ name }}
{% else %}
SUM(CASE WHEN rank <= {{ k | number }} THEN {{ discounted(gain, 'rank') }} ELSE 0 END) AS {{ name }}
{% endif %}
{% endmacro %}
