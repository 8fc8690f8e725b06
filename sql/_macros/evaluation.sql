{#-
  Pieces of SQL the parts of an evaluation share (sql/evaluation/, sql/output/).
-#}
{#- A measure's aggregate over queries (the registry's aggregate); a "catalog" value is one value
    for all queries, the same on every per-query row (per segment: its value over the segment's
    queries, from its one-row step joined by segment); a "weighted" one weighs each query's value by
    the weight beside it (GAUC: the query's judged documents). Sums of values are added in query
    order (dialect.sum_in_order): the same bits on every run, and trec_eval's. -#}
{% macro aggregate(m, per_segment=false) -%}
{% import '_macros/dialect.sql' as dialect %}
{%- if m.aggregate == 'sum' -%}
SUM({{ m.column }})
{%- elif m.aggregate == 'catalog' -%}
MAX({{ m.value if per_segment else m.column }})
{%- elif m.aggregate == 'weighted' -%}
{{ dialect.sum_in_order('per_query.' ~ m.column ~ ' * per_query.' ~ m.weight_column, 'per_query.query_id') }} / NULLIF(SUM(CASE WHEN per_query.{{ m.column }} IS NOT NULL THEN per_query.{{ m.weight_column }} END), 0)
{%- elif m.aggregate == 'geometric' -%}
{{ geometric_mean(m.column, 'per_query.query_id') }}
{%- else -%}
{{ dialect.mean_in_order('per_query.' ~ m.column, 'per_query.query_id') }}
{%- endif -%}
{%- endmacro %}

{#- The geometric mean of x over the rows, each value at least GEOMETRIC_FLOOR (trec_eval's gm_map and
    gm_bpref; measures/family.py), its logarithms added in the order of key. -#}
{% macro geometric_mean(x, key) -%}
{% import '_macros/dialect.sql' as dialect %}
EXP({{ dialect.mean_in_order('LN(CASE WHEN ' ~ x ~ ' > CAST(' ~ GEOMETRIC_FLOOR ~ ' AS ' ~ DOUBLE ~ ') THEN ' ~ x ~ ' ELSE CAST(' ~ GEOMETRIC_FLOOR ~ ' AS ' ~ DOUBLE ~ ') END)', key) }})
{%- endmacro %}

{#- Columns after a first one, one per line. -#}
{% macro columns(items) -%}
{% for column in items %},
           {{ column }}{% endfor %}
{%- endmacro %}

{#- Results one row per (.., measure): the measure's column picked by its position among the
    requested measures; per query, a "catalog" measure has no value. -#}
{% macro measure_case(source, measures) -%}
CASE measures.position{% for m in measures %}

           WHEN {{ loop.index }} THEN {% if m.aggregate == 'catalog' and source == 'per_query' %}NULL{% else %}{{ source }}.{{ m.column }}{% endif %}{% endfor %}

       END
{%- endmacro %}
{#- The requested measures as rows (position, measure); BigQuery has no VALUES table. -#}
{% macro measure_rows(measures) -%}
{% if dialect_name() == 'bigquery' %}
CROSS JOIN UNNEST([{% for m in measures %}

    STRUCT({{ loop.index }} AS position, {{ m.name | literal }} AS measure){% if not loop.last %},{% endif %}{% endfor %}

]) AS measures
{%- elif dialect_name() == 'sqlite' %}
{#- SQLite names no columns in a table alias: the first row names them. -#}
CROSS JOIN ({% for m in measures %}

    {% if not loop.first %}UNION ALL {% endif %}SELECT {{ loop.index }}{% if loop.first %} AS position{% endif %}, {{ m.name | literal }}{% if loop.first %} AS measure{% endif %}{% endfor %}

) AS measures
{%- else %}
CROSS JOIN (
    VALUES{% for m in measures %}

        ({{ loop.index }}, {{ m.name | literal }}){% if not loop.last %},{% endif %}{% endfor %}

) AS measures (position, measure)
{%- endif %}
{%- endmacro %}
{% macro summary_columns(measures, per_segment=false) -%}
{% for m in measures %},
           {{ aggregate(m, per_segment) }} AS {{ m.column }}{{ count_column(m) }}{% endfor %}
{%- endmacro %}
{#- How many queries have a value of a measure that may have none for some (AUC with one class). -#}
{% macro count_column(m) -%}
{% if m.count_column %},
           COUNT(per_query.{{ m.column }}) AS {{ m.count_column }}{% endif %}
{%- endmacro %}
{#- The queries each summary row's value is over: the count of a measure that may have no value,
    the queries evaluated for the others. -#}
{% macro count_case(source, measures) -%}
CASE measures.position{% for m in measures %}

           WHEN {{ loop.index }} THEN {{ source }}.{{ m.count_column or 'num_queries' }}{% endfor %}

       END
{%- endmacro %}

{#- Judgments keyed by query (sql: query_id and the columns named), repeated for each run of runs stored
    together, under the runs' keys run_id || chr(31) || query_id (judgment_sources, subtopic_judgments). -#}
{% macro keyed_by_run(sql, names) %}
{% import '_macros/dialect.sql' as dialect %}
SELECT run_ids.run_id || {{ dialect.separator() }} || judged.query_id AS query_id{% for name in names %},
       judged.{{ name }} AS {{ name }}{% endfor %}

FROM (
    {{ sql | indent(4) }}
) AS judged
CROSS JOIN (SELECT DISTINCT {{ dialect.before_separator('query_id') }} AS run_id FROM run) AS run_ids
{%- endmacro %}
