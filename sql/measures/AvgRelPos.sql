{#-
  AvgRelPos and AvgRelPos@k: the average relevant position, the ranks of the retrieved documents (in the top k)
  averaged with their gains as weights: sum(gain * rank) / sum(gain); 0 where no retrieved document has a gain.
  Lower is better. With the linear gain, pytorchltr's arp (each document weighed by its label).
  Reference: pytorchltr, pytorchltr/evaluation/arp.py (Jagerman).
-#}
{% import '_macros/judging.sql' as judging %}
{% import 'measures/DCG.sql' as dcg %}

{% macro weighted(m) %}arp_ranks{{ m.gain.sfx }}{{ judging.cut(m.cutoff) }}{% endmacro %}
{% macro weights(m) %}arp_gains{{ m.gain.sfx }}{{ judging.cut(m.cutoff) }}{% endmacro %}
{% macro within(m) %}{% if m.cutoff is not none %} * CASE WHEN rank <= {{ m.cutoff | number }} THEN 1 ELSE 0 END{% endif %}{% endmacro %}

{% macro judged(m) %}{{ dcg.judged(m) }}{% endmacro %}
{% macro retrieved(m) %}
{% call column(weighted(m)) %}SUM({{ dcg.gain_name(m) }} * rank{{ within(m) }}){% endcall %}
{% call column(weights(m)) %}SUM({{ dcg.gain_name(m) }}{{ within(m) }}){% endcall %}
{% endmacro %}
{% macro value(m) %}COALESCE({{ weighted(m) }} / NULLIF({{ weights(m) }}, 0), 0){% endmacro %}
