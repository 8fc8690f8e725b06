{#- The few places DuckDB and Spark SQL differ. Everything else is the portable subset. -#}
{% macro log2(x) %}LOG2({{ x }}){% endmacro %}
{% macro double(x) %}CAST({{ x }} AS DOUBLE){% endmacro %}
{#- The positions 1..n as rows of one column, position. -#}
{% macro positions(n) %}range(1, {{ n | number }} + 1) AS positions (position){% endmacro %}
{#- ln of the binomial coefficient C(n, k), for n >= k >= 0. -#}
{% macro ln_choose(n, k) %}(LGAMMA(({{ n }}) + 1) - LGAMMA(({{ k }}) + 1) - LGAMMA(({{ n }}) - ({{ k }}) + 1)){% endmacro %}
