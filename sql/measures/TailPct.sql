{#-
  TailPct@k: the share of the user's top k in the long tail, averaged over users. The tail: items
  with at most `tail` interactions (tail > 1), or the floor(n * tail) (at least 1) least popular
  of the n catalog items, ordered by interactions, then item id (tail <= 1). Items outside the
  catalog are not in the tail.
  Parameters: tail (default 0.1, RecBole's tail_ratio).
  Reference: RecBole TailPercentage.
-#}
{% import '_macros/recommended.sql' as recommended %}
{% macro judged(m) %}
{% call column("item_interactions") %}popularity.interactions{% endcall %}
{% call column("popularity_rank") %}popularity.popularity_rank{% endcall %}
{% call column("catalog_size") %}popularity.catalog_size{% endcall %}
{% endmacro %}
{% macro in_tail(m) -%}
{%- if m.tail > 1 -%}item_interactions <= {{ m.tail | number }}{%- else -%}popularity_rank <= GREATEST(FLOOR(catalog_size * {{ m.tail | number }}), 1){%- endif -%}
{%- endmacro %}
{% macro retrieved(m) %}
{{ recommended.listed_column(m) }}
{{ recommended.total(m, m.column ~ '_tail', in_tail(m)) }}
{% endmacro %}
{% macro value(m) %}CAST({{ m.column }}_tail_{{ recommended.cut(m) }} AS {{ DOUBLE }}) / NULLIF(listed_{{ recommended.cut(m) }}, 0){% endmacro %}
