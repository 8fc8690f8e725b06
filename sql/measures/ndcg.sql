{#-
  nDCG, nDCG@k, DCG, DCG@k, IdealDCG, CG, CG@k, binG (trec_eval ndcg, ndcg_cut_k, dcg, ideal_dcg, binG).
    CG@k   = sum of gain(label) over the top k
    DCG@k  = sum of gain(label) / log2(rank + 1) over the top k
    nDCG@k = DCG@k / IDCG@k, where IDCG@k is the DCG@k of the ideal ranking: all judgments of
             the query with a positive gain, sorted by gain (0 when there is none)
    binG   = (1 / R) * sum over retrieved relevant d of 1 / log2(2 + non-relevant documents above d)
  Gains are the labels (0 for labels <= 0 and unjudged documents) unless a gain map is given;
  the relevance level rel does not apply to them, as in trec_eval (binG uses rel).
  Reads: ranked (rank, gain), ideal (rank, gain). Emits one DOUBLE per query.
  Reference: Jarvelin & Kekalainen (2002); trec_eval 10 m_ndcg.c, m_ndcg_cut.c, m_binG.c.
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/discount.sql' as discount %}
{% import '_macros/gain.sql' as gains %}
{% import '_macros/dialect.sql' as dialect %}

{% macro gain_column(m) %}{{ gains.gain('relevance', m.gain) }} AS gain{{ m.gain.sfx }}{% endmacro %}
{% macro dcg(m) %}dcg{{ m.gain.sfx }}{{ judging.cut(m.cutoff) }}{% endmacro %}
{% macro ideal_dcg(m) %}ideal_dcg{{ m.gain.sfx }}{{ judging.cut(m.cutoff) }}{% endmacro %}
{% macro cg(m) %}cg{{ m.gain.sfx }}{{ judging.cut(m.cutoff) }}{% endmacro %}

{% macro nDCG_parts(m) %}
[judged] {{ gain_column(m) }}
[retrieved] {{ discount.dcg_column('gain' ~ m.gain.sfx, m.cutoff, dcg(m)) }}
[ideal:{{ m.gain.sfx }}] {{ discount.dcg_column('gain', m.cutoff, ideal_dcg(m)) }}
{% endmacro %}
{% macro nDCG_value(m) %}COALESCE({{ dcg(m) }} / NULLIF({{ ideal_dcg(m) }}, 0), 0){% endmacro %}

{% macro DCG_parts(m) %}
[judged] {{ gain_column(m) }}
[retrieved] {{ discount.dcg_column('gain' ~ m.gain.sfx, m.cutoff, dcg(m)) }}
{% endmacro %}
{% macro DCG_value(m) %}COALESCE({{ dcg(m) }}, 0){% endmacro %}

{% macro IdealDCG_parts(m) %}
[ideal:{{ m.gain.sfx }}] {{ discount.dcg_column('gain', m.cutoff, ideal_dcg(m)) }}
{% endmacro %}
{% macro IdealDCG_value(m) %}COALESCE({{ ideal_dcg(m) }}, 0){% endmacro %}

{% macro CG_parts(m) %}
[judged] {{ gain_column(m) }}
{% if m.cutoff is none %}
[retrieved] SUM(gain{{ m.gain.sfx }}) AS {{ cg(m) }}
{% else %}
[retrieved] SUM(CASE WHEN rank <= {{ m.cutoff | number }} THEN gain{{ m.gain.sfx }} ELSE 0 END) AS {{ cg(m) }}
{% endif %}
{% endmacro %}
{% macro CG_value(m) %}COALESCE({{ cg(m) }}, 0){% endmacro %}

{% macro binG_parts(m) %}
[judged] {{ judging.is_relevant_column(m.level) }}
[ranked] {{ judging.relevant_so_far_column(m.level) }}
[judgments] {{ judging.num_rel_column(m.level) }}
[retrieved] SUM(CASE WHEN {{ judging.is_relevant(m.level) }} = 1 THEN 1 / {{ dialect.log2('2 + rank - ' ~ judging.relevant_so_far(m.level)) }} ELSE 0 END) AS bing_sum_{{ m.level | number }}
{% endmacro %}
{% macro binG_value(m) %}COALESCE(bing_sum_{{ m.level | number }} / NULLIF({{ judging.num_rel(m.level) }}, 0), 0){% endmacro %}
