{#-
  nDCG, nDCG@k, DCG, DCG@k, IdealDCG, CG, CG@k, binG (trec_eval ndcg, ndcg_cut_k, dcg, ideal_dcg, binG).
    CG@k   = sum of gain(label) over the top k
    DCG@k  = sum of gain(label) * discount(rank) over the top k
    nDCG@k = DCG@k / IDCG@k, with the ideal ranking (ideal convention) of
               qrels    all judgments of the query with a positive gain, best first (trec_eval)
               run      the retrieved documents' labels only, best first (scikit-learn)
               perfect  the query's top gain at every position (k positions, or as many as
                        were retrieved without a cutoff)
             0 when the ideal DCG is 0
    binG   = (1 / R) * sum over retrieved relevant d of 1 / log2(2 + non-relevant documents above d)
  Gain and discount follow the gain, discount and log_base conventions (_macros/gain.sql,
  _macros/discount.sql); the defaults are trec_eval's: the label, 1/log2(rank + 1). The
  relevance level rel does not apply to gains, as in trec_eval (binG uses rel).
  With tie_break=expected each document's discount is the mean over its tie group's positions.
  Reads: ranked (rank, gain), ideal (rank, gain). Emits one DOUBLE per query.
  Reference: Jarvelin & Kekalainen (2002); Burges et al. (2005); trec_eval 10 m_ndcg.c,
  m_ndcg_cut.c, m_binG.c; scikit-learn ndcg_score.
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/discount.sql' as discount %}
{% import '_macros/gain.sql' as gains %}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/ties.sql' as ties %}

{% macro gain_name(m) %}gain{{ m.gain.sfx }}{% endmacro %}
{% macro gain_column(m) %}{{ gains.gain('relevance', m.gain) }} AS {{ gain_name(m) }}{% endmacro %}
{% macro dcg(m) %}dcg{{ m.gain.sfx }}{{ m.disc.key }}{{ judging.cut(m.cutoff) }}{% endmacro %}
{% macro cg(m) %}cg{{ m.gain.sfx }}{{ judging.cut(m.cutoff) }}{% endmacro %}
{% macro tie_discount(m) %}tie_discount{{ m.disc.key }}{{ judging.cut(m.cutoff) }}{% endmacro %}

{% macro dcg_parts(m) %}
[judged] {{ gain_column(m) }}
{% if m.expected %}
{{ ties.group_columns() }}
[tie] AVG({% if m.cutoff is none %}{{ discount.discounted('1', 'rank', m.disc) }}{% else %}CASE WHEN rank <= {{ m.cutoff | number }} THEN {{ discount.discounted('1', 'rank', m.disc) }} ELSE 0 END{% endif %}) OVER tie AS {{ tie_discount(m) }}
{% endif %}
[retrieved] {{ discount.dcg_column(gain_name(m), m.cutoff, dcg(m), m.disc, m.expected, tie_discount(m)) }}
{% endmacro %}

{% macro ideal_parts(m) %}
{% if m.ideal.kind == 'perfect' %}
[ideal:{{ m.ideal.spec }}] MAX(gain) AS {{ m.ideal.spec }}_top_gain
{% if m.cutoff is none %}
[retrieved] SUM({{ discount.discounted('1', 'rank', m.disc) }}) AS discount_sum{{ m.disc.key }}
{% else %}
[perfect] SUM(CASE WHEN position <= {{ m.cutoff | number }} THEN {{ discount.discounted('1', 'position', m.disc) }} ELSE 0 END) AS perfect_discount{{ m.disc.key }}{{ judging.cut(m.cutoff) }}
{% endif %}
{% else %}
[ideal:{{ m.ideal.spec }}] {{ discount.dcg_column('gain', m.cutoff, m.ideal.column, m.disc) }}
{% endif %}
{% endmacro %}
{% macro ideal_value(m) -%}
{%- if m.ideal.kind == 'perfect' -%}
{{ m.ideal.spec }}_top_gain * {% if m.cutoff is none %}discount_sum{{ m.disc.key }}{% else %}perfect_discount{{ m.disc.key }}{{ judging.cut(m.cutoff) }}{% endif %}
{%- else -%}
{{ m.ideal.column }}
{%- endif -%}
{%- endmacro %}

{% macro nDCG_parts(m) %}{{ dcg_parts(m) }}{{ ideal_parts(m) }}{% endmacro %}
{% macro nDCG_value(m) %}COALESCE({{ dcg(m) }} / NULLIF({{ ideal_value(m) }}, 0), 0){% endmacro %}

{% macro DCG_parts(m) %}{{ dcg_parts(m) }}{% endmacro %}
{% macro DCG_value(m) %}COALESCE({{ dcg(m) }}, 0){% endmacro %}

{% macro IdealDCG_parts(m) %}{% if m.ideal.kind == 'run' %}[judged] {{ gain_column(m) }}
{% endif %}{{ ideal_parts(m) }}{% endmacro %}
{% macro IdealDCG_value(m) %}COALESCE({{ ideal_value(m) }}, 0){% endmacro %}

{% macro CG_parts(m) %}
[judged] {{ gain_column(m) }}
{% if m.expected %}{{ ties.group_columns() }}{% endif %}
{% if m.cutoff is none %}
[retrieved] SUM({{ gain_name(m) }}) AS {{ cg(m) }}
{% else %}
[retrieved] SUM({{ gain_name(m) }} * {{ ties.within(m.cutoff | number, m) }}) AS {{ cg(m) }}
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
