{#-
  DCG and DCG@k (trec_eval dcg): discounted cumulative gain, the sum of gain(label) *
  discount(rank) over the top k. Gain and discount follow the gain, discount and log_base
  conventions (_macros/gain.sql, _macros/discount.sql); the defaults are trec_eval's: the
  label, 1/log2(rank + 1). The relevance level rel does not apply to gains, as in trec_eval.
  With tie_break=expected each document's discount is the mean over its tie group's positions.
  Reference: Jarvelin & Kekalainen (2002); trec_eval 10 m_dcg.c.
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/discount.sql' as discount %}
{% import '_macros/gain.sql' as gains %}
{% import '_macros/ties.sql' as ties %}

{% macro gain_name(m) %}gain{{ m.gain.sfx }}{% endmacro %}
{% macro gain_column(m) %}{% call column(gain_name(m)) %}{{ gains.gain('relevance', m.gain) }}{% endcall %}{% endmacro %}
{% macro dcg(m) %}dcg{{ m.gain.sfx }}{{ m.disc.key }}{{ judging.cut(m.cutoff) }}{% endmacro %}
{% macro tie_discount(m) %}tie_discount{{ m.disc.key }}{{ judging.cut(m.cutoff) }}{% endmacro %}

{% macro judged(m) %}{{ gain_column(m) }}{% endmacro %}
{% macro tie(m) %}
{% if m.expected %}
{{ ties.group_columns() }}
{% set one = discount.discounted('1', 'rank', m.disc) %}
{% call column(tie_discount(m)) %}AVG({% if m.cutoff is none %}{{ one }}{% else %}CASE WHEN rank <= {{ m.cutoff | number }} THEN {{ one }} ELSE 0 END{% endif %}) OVER tie{% endcall %}
{% endif %}
{% endmacro %}
{% macro retrieved(m) %}{{ discount.dcg_column(gain_name(m), m.cutoff, dcg(m), m.disc, m.expected, tie_discount(m)) }}{% endmacro %}
{% macro value(m) %}COALESCE({{ dcg(m) }}, 0){% endmacro %}
