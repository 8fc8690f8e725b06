{#-
  Entropy@k: Shannon entropy -sum p log_base p over the items recommended, p the item's share of
  all top-k recommendations of all users; with per_item, divided by the number of distinct items
  recommended. One value for the evaluation.
  Parameters: base (2: Microsoft Recommenders' distributional_coverage; e with per_item=True:
  RecBole's ShannonEntropy), per_item.
  Reference: Shani & Gunawardana (2011); the two libraries above.
-#}
{% import '_macros/recommended.sql' as recommended %}
{% import '_macros/dialect.sql' as dialect %}
{% macro listed(m) %}{{ recommended.times_column(m) }}{% endmacro %}
{% macro ordered(m) %}{% call column("total_" ~ recommended.cut(m)) %}SUM(times_{{ recommended.cut(m) }}) OVER ({{ recommended.items_window(m) }}){% endcall %}{% endmacro %}
{% macro catalog(m) %}{% set share = 'CAST(times_' ~ recommended.cut(m) ~ ' AS ' ~ DOUBLE ~ ') / total_' ~ recommended.cut(m) %}
{% call column(m.column) %}-{{ dialect.sum_in_order('CASE WHEN times_' ~ recommended.cut(m) ~ ' > 0 THEN ' ~ share ~ ' * LN(' ~ share ~ ') END', 'listed' ~ m.ranking ~ '.doc_id') }} / LN({{ m.base | number }}){% if m.per_item %} / NULLIF(COUNT(CASE WHEN times_{{ recommended.cut(m) }} > 0 THEN 1 END), 0){% endif %}{% endcall %}
{%- endmacro %}
{% macro value(m) %}{{ recommended.catalog_value(m) }}{% endmacro %}
