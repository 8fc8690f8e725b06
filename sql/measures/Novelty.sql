{#-
  Novelty@k: the mean self-information -log2(interactions(i) / all interactions) of all top-k
  recommendations of all users (the history's interactions; an item without any adds 0 but
  counts in the mean, as Microsoft Recommenders' inner join does). One value for the evaluation.
  Reference: Castells, Vargas & Wang (ECIR 2011); Microsoft Recommenders novelty.
-#}
{% import '_macros/recommended.sql' as recommended %}
{% import '_macros/dialect.sql' as dialect %}
{% macro listed(m) %}{{ recommended.times_column(m) }}{% endmacro %}
{% macro catalog(m) %}{% set c = 'times_' ~ recommended.cut(m) %}
{%- set information = 'CASE WHEN popularity.interactions > 0 THEN ' ~ c ~ ' * -' ~ dialect.log2('CAST(popularity.interactions AS ' ~ DOUBLE ~ ') / catalog_items.all_interactions') ~ ' ELSE 0 END' -%}
{% call column(m.column) %}{{ dialect.sum_in_order(information, 'listed' ~ m.ranking ~ '.doc_id') }} / NULLIF(SUM({{ c }}), 0){% endcall %}
{%- endmacro %}
{% macro value(m) %}{{ recommended.catalog_value(m) }}{% endmacro %}
