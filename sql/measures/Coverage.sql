{#-
  Coverage@k (item coverage, catalog coverage): the distinct items in the top k of all users,
  divided by the size of the catalog (every item of --items and of --history). One value for
  the whole evaluation, none per user. Without a cutoff, every retrieved item counts.
  Reference: Shani & Gunawardana (2011); RecBole ItemCoverage (its num_items also counts the
  padding item 0); Microsoft Recommenders catalog_coverage (catalog = the training items).
-#}
{% import '_macros/recommended.sql' as recommended %}
{% macro listed(m) %}{{ recommended.times_column(m) }}{% endmacro %}
{% macro catalog(m) %}{% call column(m.column) %}CAST(COUNT(CASE WHEN times_{{ recommended.cut(m) }} > 0 THEN 1 END) AS {{ DOUBLE }}) / NULLIF(MAX(catalog_items.catalog_size), 0){% endcall %}{% endmacro %}
{% macro value(m) %}{{ recommended.catalog_value(m) }}{% endmacro %}
