{#-
  Pieces the recommender measures beyond accuracy share: a cut of the ranking to the top k
  (all retrieved items without a cutoff) and the names of per-cutoff columns.
-#}
{#- "top_10", or "all" without a cutoff. -#}
{% macro cut(m) %}{{ 'top_' ~ m.cutoff if m.cutoff is not none else 'all' }}{% endmacro %}
{#- Whether a ranked row is within the measure's top k (and meets `also`). -#}
{% macro within(m, also='') -%}
{%- set parts = (['rank <= ' ~ (m.cutoff | number)] if m.cutoff is not none else []) + ([also] if also else []) -%}
{{ parts | join(' AND ') if parts else 'TRUE' }}
{%- endmacro %}
{#- The rows within the top k (and meeting `also`) counted, or `value` summed over them. -#}
{% macro total(m, name, also='', value='1') -%}
{% call column(name ~ "_" ~ cut(m)) %}
{%- if m.cutoff is none and not also -%}{{ 'COUNT(*)' if value == '1' else 'SUM(' ~ value ~ ')' }}
{%- else -%}SUM(CASE WHEN {{ within(m, also) }} THEN {{ value }} ELSE 0 END){%- endif %}
{%- endcall %}
{%- endmacro %}
{#- The window over the items of listed{v} that one value is computed from: all of them, or with
    segments each segment's (segment NULL: all queries'), with runs stored together each run's. -#}
{% macro items_window(m, then='') %}{% if m.group_key %}PARTITION BY {{ m.group_key }}{{ then }}{% endif %}{% endmacro %}
{#- A measure that is one value over all recommendations: its column of catalog{v}. -#}
{% macro catalog_value(m) %}catalog{{ m.ranking }}.{{ m.column }}{% endmacro %}
{#- How often each item is in the top k of all queries (a column of listed{v}, one row per item). -#}
{% macro times_column(m) %}{{ total(m, 'times') }}{% endmacro %}
{#- The items in each query's top k (per-query count of a retrieved{v} column). -#}
{% macro listed_column(m) %}{{ total(m, 'listed') }}{% endmacro %}
