{#-
  nDCG and nDCG@k (trec_eval ndcg, ndcg_cut_k): DCG@k (measures/DCG.sql) divided by the ideal
  DCG@k, with the ideal ranking (ideal convention) of
    qrels    all judgments of the query with a positive gain, best first (trec_eval)
    run      the retrieved documents' labels only, best first (scikit-learn)
    perfect  the query's top gain at every position (k positions, or as many as were
             retrieved without a cutoff)
  0 when the ideal DCG is 0.
  Reference: Jarvelin & Kekalainen (2002); Burges et al. (2005); trec_eval 10 m_ndcg.c,
  m_ndcg_cut.c; scikit-learn ndcg_score.
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/discount.sql' as discount %}
{% import 'measures/DCG.sql' as dcg %}

{% macro judged(m) %}{{ dcg.judged(m) }}{% endmacro %}
{% macro tie(m) %}{{ dcg.tie(m) }}{% endmacro %}
{#- The perfect ranking without a cutoff has as many positions as were retrieved. -#}
{% macro discount_sum(m) %}
{% if m.ideal.kind == 'perfect' and m.cutoff is none %}
{% call column("discount_sum" ~ m.disc.key) %}{{ dialect.sum_in_rank_order(discount.discounted('1', 'rank', m.disc)) }}{% endcall %}
{% endif %}
{% endmacro %}
{% macro retrieved(m) %}
{{ dcg.retrieved(m) }}
{{ discount_sum(m) }}
{% endmacro %}
{#- The ideal ranking's DCG (of the judgments or of the retrieved documents), or its top gain. -#}
{% macro ideal(m) %}
{% if m.ideal.kind == 'perfect' %}
{% call column(m.ideal.spec ~ "_top_gain") %}MAX(gain){% endcall %}
{% else %}
{{ discount.dcg_column('gain', m.cutoff, m.ideal.column, m.disc) }}
{% endif %}
{% endmacro %}
{#- The perfect ranking's discounts at positions 1..k. -#}
{% macro perfect(m) %}
{% if m.ideal.kind == 'perfect' and m.cutoff is not none %}
{% call column("perfect_discount" ~ m.disc.key ~ judging.cut(m.cutoff)) %}{{ dialect.sum_in_rank_order(discount.discounted('1', 'position', m.disc), none, m.cutoff,
                                                                                                      'position') }}{% endcall %}
{% endif %}
{% endmacro %}
{% macro ideal_dcg(m) -%}
{%- if m.ideal.kind == 'perfect' -%}
{{ m.ideal.spec }}_top_gain * {% if m.cutoff is none %}discount_sum{{ m.disc.key }}{% else %}perfect_discount{{ m.disc.key }}{{ judging.cut(m.cutoff) }}{% endif %}
{%- else -%}
{{ m.ideal.column }}
{%- endif -%}
{%- endmacro %}
{% macro value(m) %}COALESCE({{ dcg.dcg(m) }} / NULLIF({{ ideal_dcg(m) }}, 0), 0){% endmacro %}
