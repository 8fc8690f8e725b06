{#-
  nDCG, nDCG@k, DCG, DCG@k, CG, CG@k (trec_eval ndcg, ndcg_cut_k, dcg).
    CG@k   = sum of gain(label) over the top k
    DCG@k  = sum of gain(label) / log2(rank + 1) over the top k
    nDCG@k = DCG@k / IDCG@k, where IDCG@k is the DCG@k of the ideal ranking: all judgments of
             the query with a positive gain, sorted by gain (0 when there is none)
  Gains are the labels themselves (0 for labels <= 0 and unjudged documents); the relevance
  level rel does not apply, as in trec_eval.
  Reads: ranked (rank, gain), ideal (rank, gain). Emits one DOUBLE per query.
  Reference: Jarvelin & Kekalainen (2002); trec_eval 10 m_ndcg.c, m_ndcg_cut.c (SEMANTICS.md sec. 6).
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/discount.sql' as discount %}
{% import '_macros/gain.sql' as gains %}

{% macro gain_column() %}{{ gains.gain('relevance') }} AS gain{% endmacro %}

{% macro dcg(m) %}dcg{{ judging.cut(m.cutoff) }}{% endmacro %}
{% macro ideal_dcg(m) %}ideal_dcg{{ judging.cut(m.cutoff) }}{% endmacro %}
{% macro cg(m) %}cg{{ judging.cut(m.cutoff) }}{% endmacro %}

{% macro nDCG_judged(m) %}{{ gain_column() }}{% endmacro %}
{% macro nDCG_retrieved(m) %}{{ discount.dcg_column(m.cutoff, dcg(m)) }}{% endmacro %}
{% macro nDCG_ideal(m) %}{{ discount.dcg_column(m.cutoff, ideal_dcg(m)) }}{% endmacro %}
{% macro nDCG_value(m) %}COALESCE({{ dcg(m) }} / NULLIF({{ ideal_dcg(m) }}, 0), 0){% endmacro %}

{% macro DCG_judged(m) %}{{ gain_column() }}{% endmacro %}
{% macro DCG_retrieved(m) %}{{ discount.dcg_column(m.cutoff, dcg(m)) }}{% endmacro %}
{% macro DCG_value(m) %}COALESCE({{ dcg(m) }}, 0){% endmacro %}

{% macro CG_judged(m) %}{{ gain_column() }}{% endmacro %}
{% macro CG_retrieved(m) %}
{% if m.cutoff is none %}
SUM(gain) AS {{ cg(m) }}
{% else %}
SUM(CASE WHEN rank <= {{ m.cutoff | number }} THEN gain ELSE 0 END) AS {{ cg(m) }}
{% endif %}
{% endmacro %}
{% macro CG_value(m) %}COALESCE({{ cg(m) }}, 0){% endmacro %}
