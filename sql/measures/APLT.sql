{#-
  APLT@k: the share of the user's top k in the long tail, averaged over users. The short head: the
  catalog items by popularity (most interactions first, then item id), taken until they hold
  head_share of the history's interactions (the item that reaches it included); the long tail: the
  other catalog items (those of --items without interactions too). Items outside the catalog are in
  neither.
  Parameters: head_share (default 0.8).
  Reference: Abdollahpouri, Burke & Mobasher (FLAIRS 2019); Elliot's APLT and its popularity split.
-#}
{% import '_macros/recommended.sql' as recommended %}
{% macro judged(m) %}
{% call column("more_popular_interactions") %}popularity.more_popular_interactions{% endcall %}
{% call column("all_interactions") %}popularity.all_interactions{% endcall %}
{% endmacro %}
{% macro in_tail(m) %}more_popular_interactions >= {{ m.head_share | number }} * all_interactions{% endmacro %}
{% macro retrieved(m) %}
{{ recommended.listed_column(m) }}
{{ recommended.total(m, 'long_tail_' ~ (m.head_share | key), in_tail(m)) }}
{% endmacro %}
{% macro value(m) %}CAST(long_tail_{{ m.head_share | key }}_{{ recommended.cut(m) }} AS {{ DOUBLE }}) / NULLIF(listed_{{ recommended.cut(m) }}, 0){% endmacro %}
