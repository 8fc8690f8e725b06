{#- The few places DuckDB and Spark SQL differ. Everything else is the portable subset.
    dialect_name() is the dialect being rendered: 'duckdb' (default) or 'spark'. -#}
{% macro log2(x) %}LOG2({{ x }}){% endmacro %}
{% macro double(x) %}CAST({{ x }} AS DOUBLE){% endmacro %}
{#- The text type: Spark's VARCHAR needs a length, its STRING has none. -#}
{% macro text() %}{% if dialect_name() == 'spark' %}STRING{% else %}VARCHAR{% endif %}{% endmacro %}
{#- The positions 1..n as rows of one column, position. -#}
{% macro positions(n) %}{% if dialect_name() == 'spark' %}(SELECT id AS position FROM range(1, {{ n | number }} + 1)) AS positions{% else %}range(1, {{ n | number }} + 1) AS positions (position){% endif %}{% endmacro %}
{#- ln of the binomial coefficient C(n, k), for n >= k >= 0. Spark has no LGAMMA: there it is
    the sum over i = 1..k of ln(n - k + i) - ln(i). -#}
{% macro ln_choose(n, k) %}{% if dialect_name() == 'spark' %}(CASE WHEN ({{ k }}) = 0 THEN CAST(0 AS DOUBLE) ELSE aggregate(sequence(1, {{ k }}), CAST(0 AS DOUBLE), (acc, i) -> acc + LN(({{ n }}) - ({{ k }}) + i) - LN(i)) END){% else %}(LGAMMA(({{ n }}) + 1) - LGAMMA(({{ k }}) + 1) - LGAMMA(({{ n }}) - ({{ k }}) + 1)){% endif %}{% endmacro %}
{#- The text before the first unit separator chr(31) (run_id || chr(31) || query_id keys). -#}
{% macro before_separator(x) %}{% if dialect_name() == 'spark' %}substring_index({{ x }}, chr(31), 1){% else %}split_part({{ x }}, chr(31), 1){% endif %}{% endmacro %}
{% macro after_separator(x) %}{% if dialect_name() == 'spark' %}substr({{ x }}, instr({{ x }}, chr(31)) + 1){% else %}substr({{ x }}, strpos({{ x }}, chr(31)) + 1){% endif %}{% endmacro %}
{#- The file each row was read from (DuckDB: read_parquet(..., filename = true); Spark: a
    file: URI), and its name without folders and suffix. -#}
{% macro file_name() %}{% if dialect_name() == 'spark' %}input_file_name(){% else %}filename{% endif %}{% endmacro %}
{% macro file_stem(x) %}regexp_extract({{ x }}, '([^/]+?)([.][^./]*)?$', 1){% endmacro %}
{#- A CTE DuckDB reads again where it is used instead of materializing it: the inputs, whose
    scans are cheap next to holding ten million rows in memory. -#}
{% macro inline() %}{% if dialect_name() != 'spark' %}NOT MATERIALIZED {% endif %}{% endmacro %}
