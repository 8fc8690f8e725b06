{#- The few places DuckDB and Spark SQL differ. Everything else is the portable subset. -#}
{% macro log2(x) %}LOG2({{ x }}){% endmacro %}
{% macro double(x) %}CAST({{ x }} AS DOUBLE){% endmacro %}
