{#- The few places the dialects differ (DuckDB, Spark SQL, PostgreSQL, DataFusion, ClickHouse, Trino,
    BigQuery, Snowflake, SQLite). The rest is the
    portable subset; type names are the globals DOUBLE, FLOAT, INTEGER (each Dialect's types, rendering/dialects.py).
    dialect_name() is the dialect being rendered: 'duckdb' (default), 'spark', 'postgres', 'datafusion'
    (DuckDB's spelling but for LGAMMA), 'clickhouse', 'sqlite' (GREATEST, LEAST, LGAMMA, isnan and chr are
    Python functions its engine registers), 'trino', 'bigquery' or 'snowflake'. -#}
{#- PostgreSQL's LOG takes numeric; the natural logarithms keep double precision. -#}
{% macro log2(x) %}{% if dialect_name() == 'postgres' %}(LN({{ x }}) / LN(CAST(2 AS {{ DOUBLE }}))){% elif dialect_name() == 'bigquery' %}LOG({{ x }}, 2){% elif dialect_name() == 'snowflake' %}LOG(2, {{ x }}){% else %}LOG2({{ x }}){% endif %}{% endmacro %}
{#- Positive infinity as a double (SQLite has no such literal: an overflowing one is infinite; Java's and PostgreSQL's parsers spell it Infinity). -#}
{% macro infinity() %}{% if dialect_name() == 'sqlite' %}9e999{% elif dialect_name() in ('postgres', 'spark', 'trino') %}CAST('Infinity' AS {{ DOUBLE }}){% else %}CAST('inf' AS {{ DOUBLE }}){% endif %}{% endmacro %}
{% macro double(x) %}CAST({{ x }} AS DOUBLE){% endmacro %}
{#- x is NaN (PostgreSQL's NaN equals itself; ClickHouse casts NULL only to a Nullable type) -#}
{% macro is_nan(x) %}{% if dialect_name() == 'postgres' %}CAST({{ x }} AS {{ DOUBLE }}) = CAST('NaN' AS {{ DOUBLE }}){% elif dialect_name() == 'clickhouse' %}isNaN(CAST({{ x }} AS Nullable(Float64))){% else %}isnan(CAST({{ x }} AS {{ DOUBLE }})){% endif %}{% endmacro %}
{#- Ids ordered as bytes, as trec_eval's strcmp (PostgreSQL's text order follows the database's
    collation unless told COLLATE "C"). -#}
{% macro byte_order(x) %}{{ x }}{% if dialect_variant() == 'postgres' %} COLLATE "C"{% endif %}{% endmacro %}
{#- The text type: Spark's VARCHAR needs a length, its STRING has none; ClickHouse's String is not
    nullable unless said so. -#}
{% macro text() %}{% if dialect_name() in ('spark', 'bigquery') %}STRING{% elif dialect_name() == 'clickhouse' %}String{% else %}VARCHAR{% endif %}{% endmacro %}
{% macro null_text() %}CAST(NULL AS {% if dialect_name() == 'clickhouse' %}Nullable(String){% else %}{{ text() }}{% endif %}){% endmacro %}
{#- The positions 1..n as rows of one column, position. -#}
{% macro positions(n) -%}
{% if dialect_name() == 'spark' %}(SELECT explode(sequence(1, {{ n | number }})) AS position) AS positions
{%- elif dialect_variant() == 'postgres' %}generate_series(1, {{ n | number }}) AS positions (position)
{%- elif dialect_name() == 'clickhouse' %}(SELECT number AS position FROM numbers(1, {{ n | number }})) AS positions
{%- elif dialect_name() == 'trino' %}UNNEST(sequence(1, {{ n | number }})) AS positions (position)
{%- elif dialect_name() == 'bigquery' %}UNNEST(GENERATE_ARRAY(1, {{ n | number }})) AS position
{%- elif dialect_name() == 'snowflake' %}(SELECT ROW_NUMBER() OVER (ORDER BY SEQ4()) AS position FROM TABLE(GENERATOR(ROWCOUNT => {{ n | number }}))) AS positions
{%- elif dialect_name() == 'sqlite' or dialect_variant() == 'redshift' %}(WITH RECURSIVE counted (position) AS (SELECT 1 UNION ALL SELECT position + 1 FROM counted WHERE position < {{ n | number }}) SELECT position FROM counted) AS positions
{%- else %}range(1, {{ n | number }} + 1) AS positions (position){% endif %}
{%- endmacro %}
{#- ln of the binomial coefficient C(n, k), for n >= k >= 0. Spark and PostgreSQL have no LGAMMA:
    there it is the sum over i = 1..k of ln(n - k + i) - ln(i). -#}
{% macro ln_choose(n, k) %}{% if dialect_name() == 'trino' %}reduce(sequence(1, CAST({{ k }} AS BIGINT)), CAST(0 AS DOUBLE), (acc, i) -> acc + LN(({{ n }}) - ({{ k }}) + i) - LN(i), acc -> acc){% elif dialect_name() == 'bigquery' %}(SELECT COALESCE(SUM(LN(({{ n }}) - ({{ k }}) + i) - LN(i)), 0) FROM UNNEST(GENERATE_ARRAY(1, CAST({{ k }} AS INT64))) AS i){% elif dialect_name() == 'postgres' %}(SELECT COALESCE(SUM(LN(({{ n }}) - ({{ k }}) + i) - LN(i)), 0) FROM generate_series(1, {{ k }}) AS i){% elif dialect_name() == 'spark' %}(CASE WHEN ({{ k }}) = 0 THEN CAST(0 AS DOUBLE) ELSE aggregate(sequence(1, CAST({{ k }} AS INT)), CAST(0 AS DOUBLE), (acc, i) -> acc + LN(({{ n }}) - ({{ k }}) + i) - LN(i)) END){% elif dialect_name() == 'clickhouse' %}(lgamma(({{ n }}) + 1) - lgamma(({{ k }}) + 1) - lgamma(({{ n }}) - ({{ k }}) + 1)){% else %}(LGAMMA(({{ n }}) + 1) - LGAMMA(({{ k }}) + 1) - LGAMMA(({{ n }}) - ({{ k }}) + 1)){% endif %}{% endmacro %}
{#- The unit separator chr(31) that joins run_id and query_id in the query keys of runs stored
    together (ClickHouse spells chr char), and the text before and after its first occurrence
    (BigQuery has no split_part, Snowflake no strpos). -#}
{% macro separator() %}{% if dialect_name() in ('clickhouse', 'sqlite') %}char(31){% else %}chr(31){% endif %}{% endmacro %}
{% macro before_separator(x) %}{% if dialect_name() == 'sqlite' %}substr({{ x }}, 1, instr({{ x }}, char(31)) - 1){% elif dialect_name() == 'clickhouse' %}substring({{ x }}, 1, position({{ x }}, char(31)) - 1){% elif dialect_name() == 'bigquery' %}SPLIT({{ x }}, chr(31))[OFFSET(0)]{% else %}split_part({{ x }}, chr(31), 1){% endif %}{% endmacro %}
{% macro after_separator(x) %}{% if dialect_name() == 'sqlite' %}substr({{ x }}, instr({{ x }}, char(31)) + 1){% elif dialect_name() == 'spark' %}substr({{ x }}, instr({{ x }}, chr(31)) + 1){% elif dialect_name() == 'clickhouse' %}substring({{ x }}, position({{ x }}, char(31)) + 1){% elif dialect_name() == 'snowflake' %}substr({{ x }}, CHARINDEX(chr(31), {{ x }}) + 1){% else %}substr({{ x }}, strpos({{ x }}, chr(31)) + 1){% endif %}{% endmacro %}
{#- The file each row was read from (DuckDB: read_parquet(..., filename = true); Spark: a
    file: URI), and its name without folders and suffix. -#}
{% macro file_name() %}{% if dialect_name() == 'spark' %}input_file_name(){% else %}filename{% endif %}{% endmacro %}
{% macro file_stem(x) %}regexp_extract({{ x }}, '([^/]+?)([.][^./]*)?$', 1){% endmacro %}
{#- A CTE DuckDB reads again where it is used instead of materializing it: the inputs, whose
    scans are cheap next to holding ten million rows in memory. -#}
{% macro inline() %}{% if dialect_variant() in ('duckdb', 'postgres') %}NOT MATERIALIZED {% endif %}{% endmacro %}
{#- A CTE DuckDB computes once, where inlining it lets the optimiser reorder its joins for the worse. -#}
{% macro materialized() %}{% if dialect_variant() == 'duckdb' %}MATERIALIZED {% endif %}{% endmacro %}
{#- A whole number from a rank column (NULL where it is none). PostgreSQL has no TRY_CAST. -#}
{% macro try_bigint(x) %}{% if dialect_name() in ('postgres', 'sqlite') %}CAST({{ x }} AS BIGINT){% elif dialect_name() == 'clickhouse' %}CAST({{ x }} AS Nullable(Int64)){% elif dialect_name() == 'bigquery' %}SAFE_CAST({{ x }} AS INT64){% else %}TRY_CAST({{ x }} AS BIGINT){% endif %}{% endmacro %}
{#- x >= 0 rounded half away from zero, as C's lround (trec_eval): PostgreSQL's and ClickHouse's
    ROUND of a double round half to even (38.5 -> 38), so there it is the floor plus one where the
    fraction is >= 0.5 (both exact in floating point). -#}
{% macro round_half_away(x) %}{% if dialect_name() in ('postgres', 'clickhouse') %}(FLOOR({{ x }}) + CASE WHEN ({{ x }}) - FLOOR({{ x }}) >= 0.5 THEN 1 ELSE 0 END){% else %}ROUND({{ x }}){% endif %}{% endmacro %}
{#- x rounded to n decimal places: PostgreSQL's ROUND takes places for NUMERIC only. -#}
{% macro round_to(x, n) %}{% if dialect_name() == 'postgres' %}ROUND(CAST({{ x }} AS NUMERIC), {{ n }}){% else %}ROUND({{ x }}, {{ n }}){% endif %}{% endmacro %}
{#- The settings a statement needs: ClickHouse fills a row an outer join does not find with 0 or ''
    and refuses CAST(NULL AS Float64) unless told standard SQL's NULLs. -#}
{% macro settings() %}{% if dialect_name() == 'clickhouse' %}

SETTINGS join_use_nulls = 1, cast_keep_nullable = 1{% endif %}{% endmacro %}
{#- x, a sum or count, as a double where the dialect may type it a whole number (SQLite sums whole numbers
    as a whole number; the others type these sums by their terms), so that a quotient never divides
    as integers. -#}
{% macro as_double(x) %}{% if dialect_name() == 'sqlite' %}CAST({{ x }} AS {{ DOUBLE }}){% else %}{{ x }}{% endif %}{% endmacro %}
{#- UNION of distinct rows (ClickHouse and BigQuery spell the DISTINCT out). -#}
{% macro union() %}{% if dialect_name() in ('clickhouse', 'bigquery') %}UNION DISTINCT{% else %}UNION{% endif %}{% endmacro %}
{#- INTERSECT of distinct rows (BigQuery spells the DISTINCT out). -#}
{% macro intersect() %}{% if dialect_name() == 'bigquery' %}INTERSECT DISTINCT{% else %}INTERSECT{% endif %}{% endmacro %}
{#- The sum of ``term`` over the rows (where ``condition`` holds, and ``rank`` <= cutoff), added one row after the
    other in rank order, as trec_eval adds: the same bits on every run, and trec_eval's (in another order a sum
    of doubles may differ in its last bit, and a value printed to four decimals then in its last digit: bpref
    351/800 prints 0.4387 added in rank order, 0.4388 in others). DuckDB's SUM adds in whatever order its
    threads deliver the rows; its list of (rank, term), sorted, is added in order by list_sum. The list does not
    depend on the cutoff, so that DuckDB builds one for AP and every AP@k, one for DCG and every DCG@k.
    Elsewhere a plain SUM. -#}
{% macro sum_in_rank_order(term, condition=none, cutoff=none, rank='rank') -%}
{%- if dialect_name() == 'duckdb' -%}
COALESCE(list_sum([x.term FOR x IN list_sort(list({'rank': {{ rank }}, 'term': {{ term }}}){% if condition is not none %} FILTER (WHERE {{ condition }}){% endif %}, 'ASC', 'NULLS LAST'){% if cutoff is not none %} IF x.rank <= {{ cutoff | number }}{% endif %}]), 0)
{%- else -%}
{%- set when = ([condition] if condition is not none else []) + ([rank ~ ' <= ' ~ (cutoff | number)] if cutoff is not none else []) -%}
{% if when %}SUM(CASE WHEN {{ when | join(' AND ') }} THEN {{ term }} ELSE 0 END){% else %}SUM({{ term }}){% endif %}
{%- endif -%}
{%- endmacro %}
{#- AP's sum of precisions: over the rows where ``condition`` holds (and rank <= cutoff), in rank order, how many
    such rows up to this one (``so_far``, a running count over the ranking) over its rank. In DuckDB the running
    count is the index of the rank in the sorted list of those rows' ranks: no window, the same terms added in the
    same order as sum_in_rank_order adds them, so the same bits. The list does not depend on the cutoff (one for
    AP and every AP@k). Elsewhere sum_in_rank_order of the running count over the rank. -#}
{% macro precision_sum_in_rank_order(condition, so_far, cutoff=none) -%}
{%- if dialect_name() == 'duckdb' -%}
COALESCE(list_sum([CAST(i AS {{ DOUBLE }}) / r FOR r, i IN list_sort(list(rank) FILTER (WHERE {{ condition }})){% if cutoff is not none %} IF r <= {{ cutoff | number }}{% endif %}]), 0)
{%- else -%}
{{ sum_in_rank_order('CAST(' ~ so_far ~ ' AS ' ~ DOUBLE ~ ') / rank', condition, cutoff) }}
{%- endif -%}
{%- endmacro %}
{#- The sum of ``x`` over the rows (NULLs left out), added in the order of ``key``: in DuckDB an ordered list
    added by list_sum, so that a sum over queries has the same bits on every run (SUM adds in the order its
    threads deliver the rows) and trec_eval's, which adds each query's value in query order. -#}
{% macro sum_in_order(x, key) -%}
{%- if dialect_name() == 'duckdb' -%}
list_sum(list({{ x }} ORDER BY {{ key }}))
{%- else -%}
SUM({{ x }})
{%- endif -%}
{%- endmacro %}
{#- The mean of ``x`` over the rows (NULLs left out), its sum added in the order of ``key`` (sum_in_order). -#}
{% macro mean_in_order(x, key) -%}
{%- if dialect_name() == 'duckdb' -%}
{{ sum_in_order(x, key) }} / COUNT({{ x }})
{%- else -%}
AVG({{ x }})
{%- endif -%}
{%- endmacro %}
