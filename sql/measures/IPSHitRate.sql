{#-
  IPSHitRate@k (RecPack's IPSHitRateK): the hits of the user's top k, each weighted by its item's
  inverse propensity, summed per user and averaged over users. An item's propensity is its share
  of the history's interactions, p(i) = interactions of i / all interactions (RecPack fits it on the
  interactions given, the judgments in its own tests: give them as --history); its inverse 1 / p(i)
  is at most ip_cap, and 0 for an item without interactions.
  Parameters: rel (minimum relevant label, default 1); ip_cap (default 10000, RecPack's).
  Reference: RecPack, recpack/metrics/ips.py (IPSMetric, IPSHitRateK).
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/dialect.sql' as dialect %}
{% macro key(m) %}{{ m.level | key }}_{{ m.ip_cap | key }}{{ judging.cut(m.cutoff) }}{% endmacro %}
{% macro judged(m) %}
{% call column("item_interactions") %}popularity.interactions{% endcall %}
{% call column("all_interactions") %}popularity.all_interactions{% endcall %}
{{ judging.is_relevant_column(m.level) }}
{% endmacro %}
{% macro retrieved(m) %}
{%- set inverse = 'LEAST(CAST(all_interactions AS ' ~ DOUBLE ~ ') / item_interactions, ' ~ judging.real(m.ip_cap) ~ ')' -%}
{% call column('ips_hits_' ~ key(m)) %}{{ dialect.sum_in_rank_order(inverse, judging.is_relevant(m.level) ~ ' = 1 AND item_interactions > 0', m.cutoff) }}{% endcall %}
{% endmacro %}
{% macro value(m) %}COALESCE(ips_hits_{{ key(m) }}, 0){% endmacro %}
