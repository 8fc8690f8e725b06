{#-
  G (trec_eval G, experimental): normalized gain,
    G = (1 / sum of ideal gains) * sum over retrieved d with gain g != 0 at rank i of
        g / log2(2 + cost(i) - gains of the top i), cost(i) = sum over the top i ideal
        positions of max(ideal gain, 1) (1 past the ideal list)
  The per-document terms are the shared step "graded" (sql/evaluation/graded.sql).
  Reference: trec_eval 10 m_G.c.
-#}
{% import '_macros/running_dcg.sql' as running_dcg %}
{% import '_macros/dialect.sql' as dialect %}

{% macro judged(m) %}{{ running_dcg.judged(m) }}{% endmacro %}
{% macro retrieved(m) %}{{ running_dcg.retrieved(m) }}{% endmacro %}
{% macro ideal(m) %}{{ running_dcg.ideal(m) }}{% endmacro %}
{% macro graded(m) %}
{%- set sfx = m.gain.sfx -%}
{%- set excess = 'COALESCE(' ~ m.ideal.spec ~ '.excess_so_far, ' ~ m.ideal.spec ~ '_dcg.ideal_excess' ~ sfx ~ ')' -%}
{%- set term = 'ranked.gain' ~ sfx ~ ' / ' ~ dialect.log2('2 + ranked.rank + ' ~ excess ~ ' - ranked.gain' ~ sfx ~ '_so_far') -%}
{% call column("g_sum" ~ sfx) %}{{ dialect.sum_in_rank_order(term, rank='ranked.rank') }}{% endcall %}
{% endmacro %}
{% macro value(m) %}COALESCE(g_sum{{ m.gain.sfx }} / NULLIF(ideal_gain{{ m.gain.sfx }}, 0), 0){% endmacro %}
