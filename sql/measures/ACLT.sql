{#-
  ACLT@k: how many of the user's top k are in the long tail (as APLT defines it), averaged over users.
  Parameters: head_share (default 0.8).
  Reference: Abdollahpouri, Burke & Mobasher (FLAIRS 2019); Elliot's ACLT.
-#}
{% import '_macros/recommended.sql' as recommended %}
{% import 'measures/APLT.sql' as aplt %}
{% macro judged(m) %}{{ aplt.judged(m) }}{% endmacro %}
{% macro retrieved(m) %}
{{ recommended.listed_column(m) }}
{{ recommended.total(m, 'long_tail_' ~ (m.head_share | key), aplt.in_tail(m)) }}
{% endmacro %}
{% macro value(m) %}CASE WHEN listed_{{ recommended.cut(m) }} > 0 THEN CAST(long_tail_{{ m.head_share | key }}_{{ recommended.cut(m) }} AS {{ DOUBLE }}) END{% endmacro %}
