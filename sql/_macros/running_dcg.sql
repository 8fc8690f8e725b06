{#-
  The steps nDCG_rel, Rndcg and G share: each retrieved document's gain, DCG and gain so far
  (a window over the documents with a gain, in sql/evaluation/graded.sql), the DCG of the whole ranking, and per query over the ideal ranking its
  DCG, gain, excess gain (over 1 per document) and length.
  Reference: trec_eval 10 m_ndcg_rel.c, m_Rndcg.c, m_G.c.
-#}
{% import '_macros/discount.sql' as discount %}
{% import '_macros/gain.sql' as gains %}

{% macro judged(m) %}{% call column("gain" ~ m.gain.sfx) %}{{ gains.gain('relevance', m.gain) }}{% endcall %}{% endmacro %}
{#- DCG and gain so far, over the documents with a gain (the others add nothing to either): the
    window runs over those few rows, not over every retrieved document. -#}
{% macro so_far(m, window) -%}
SUM({{ discount.discounted('gain' ~ m.gain.sfx, 'rank', m.disc) }}) OVER {{ window }} AS dcg{{ m.gain.sfx }}_so_far,
           SUM(gain{{ m.gain.sfx }}) OVER {{ window }} AS gain{{ m.gain.sfx }}_so_far
{%- endmacro %}
{% macro retrieved(m) %}{{ discount.dcg_column('gain' ~ m.gain.sfx, none, 'dcg' ~ m.gain.sfx, m.disc) }}{% endmacro %}
{% macro ideal(m) %}
{{ discount.dcg_column('gain', none, 'ideal_dcg' ~ m.gain.sfx, m.disc) }}
{% call column("ideal_gain" ~ m.gain.sfx) %}SUM(gain){% endcall %}
{% call column("ideal_excess" ~ m.gain.sfx) %}SUM(CASE WHEN gain > 1 THEN gain - 1 ELSE 0 END){% endcall %}
{% call column("ideal_count" ~ m.gain.sfx) %}COUNT(*){% endcall %}
{% endmacro %}
