{#-
  Gini@k: the Gini index of how often each of the n catalog items is in the top k of all
  users: with the counts c sorted ascending at positions i = 1..n (items never recommended
  count 0), sum (2i - n - 1) c / (n sum c). The item with the d-th largest count sits at
  i = n + 1 - d, so only recommended items need a position. One value for the evaluation.
  Reference: RecBole GiniIndex (num_items: the catalog's size).
-#}
{% import '_macros/recommended.sql' as recommended %}
{% import '_macros/dialect.sql' as dialect %}
{% macro listed(m) %}{{ recommended.times_column(m) }}{% endmacro %}
{% macro ordered(m) %}{% call column("descending_" ~ recommended.cut(m)) %}ROW_NUMBER() OVER ({{ recommended.items_window(m, ' ') }}ORDER BY times_{{ recommended.cut(m) }} DESC, {{ dialect.byte_order('doc_id') }}){% endcall %}{% endmacro %}
{% macro catalog(m) %}{% set c = 'times_' ~ recommended.cut(m) %}
{% call column(m.column) %}CAST(SUM((catalog_items.catalog_size + 1 - 2 * descending_{{ recommended.cut(m) }}) * {{ c }}) AS {{ DOUBLE }}) / NULLIF(MAX(catalog_items.catalog_size) * SUM({{ c }}), 0){% endcall %}
{%- endmacro %}
{% macro value(m) %}{{ recommended.catalog_value(m) }}{% endmacro %}
