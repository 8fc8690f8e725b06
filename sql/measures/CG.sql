{#-
  CG and CG@k: cumulative gain, the sum of gain(label) over the top k (gain convention).
  With tie_break=expected, its mean over all orders of tied documents.
  Reference: Jarvelin & Kekalainen (2002).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/gain.sql' as gains %}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/ties.sql' as ties %}
{% import 'measures/DCG.sql' as dcg %}

{% macro cg(m) %}cg{{ m.gain.sfx }}{{ judging.cut(m.cutoff) }}{% endmacro %}
{#- The cumulative gain of all the query's judgments (the judgments step): what a gain-weighted recall or mean
    divides by. -#}
{% macro judged_cg(m) %}judged_cg{{ m.gain.sfx }}{% endmacro %}
{% macro judged_cg_column(m) %}{% call column(judged_cg(m)) %}SUM({{ gains.gain('relevance', m.gain) }}){% endcall %}{% endmacro %}

{% macro judged(m) %}{{ dcg.judged(m) }}{% endmacro %}
{% macro tie(m) %}{% if m.expected %}{{ ties.group_columns() }}{% endif %}{% endmacro %}
{% macro retrieved(m) %}
{% if m.cutoff is none %}
{% call column(cg(m)) %}{{ dialect.sum_in_rank_order(dcg.gain_name(m)) }}{% endcall %}
{% else %}
{% call column(cg(m)) %}{{ dialect.sum_in_rank_order(dcg.gain_name(m) ~ ' * ' ~ ties.within(m.cutoff | number, m)) }}{% endcall %}
{% endif %}
{% endmacro %}
{% macro value(m) %}COALESCE({{ cg(m) }}, 0){% endmacro %}
