{#-
  AvgRelPos and AvgRelPos@k: the average relevant position, the ranks of the retrieved documents (in the top k)
  averaged with their gains as weights: sum(gain * rank) / sum(gain), the sum of gains being CG@k; 0 where no
  retrieved document has a gain. Lower is better. With the linear gain, pytorchltr's arp (each document weighed by
  its label).
  Reference: pytorchltr, pytorchltr/evaluation/arp.py (Jagerman).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/ties.sql' as ties %}
{% import 'measures/CG.sql' as cumulative %}
{% import 'measures/DCG.sql' as dcg %}

{% macro weighted(m) %}arp_ranks{{ m.gain.sfx }}{{ judging.cut(m.cutoff) }}{% endmacro %}

{% macro judged(m) %}{{ dcg.judged(m) }}{% endmacro %}
{% macro retrieved(m) %}
{% if m.cutoff is none %}
{% call column(weighted(m)) %}{{ dialect.sum_in_rank_order(dcg.gain_name(m) ~ ' * rank') }}{% endcall %}
{% else %}
{% call column(weighted(m)) %}{{ dialect.sum_in_rank_order(dcg.gain_name(m) ~ ' * rank * ' ~ ties.within(m.cutoff | number, m)) }}{% endcall %}
{% endif %}
{{ cumulative.retrieved(m) }}
{% endmacro %}
{% macro value(m) %}COALESCE({{ weighted(m) }} / NULLIF({{ cumulative.cg(m) }}, 0), 0){% endmacro %}
