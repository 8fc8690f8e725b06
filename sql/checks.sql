{#-
  The checks an evaluation runs on the engine that runs its statement (diagnostics.py, plan.py), in
  the portable subset: COUNT(CASE ...) rather than FILTER, MAX(CASE ...) rather than bool_or.
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/inputs.sql' as inputs %}
{#- The queries of each side: (in both, qrels only, run only, an example of each side alone, those
    in both and in the qrels only whose best label is below rel, an example of each). -#}
{% macro overlap(qrels_sql, run_sql, rel) -%}
WITH qrels_queries AS (SELECT query_id, max(relevance) AS best FROM ({{ qrels_sql }}) AS qrels GROUP BY query_id),
     run_queries AS (SELECT DISTINCT query_id FROM ({{ run_sql }}) AS run)
SELECT COUNT(CASE WHEN q.query_id IS NOT NULL AND r.query_id IS NOT NULL THEN 1 END),
       COUNT(CASE WHEN r.query_id IS NULL THEN 1 END),
       COUNT(CASE WHEN q.query_id IS NULL THEN 1 END),
       MIN(CASE WHEN r.query_id IS NULL THEN q.query_id END),
       MIN(CASE WHEN q.query_id IS NULL THEN r.query_id END),
       COUNT(CASE WHEN r.query_id IS NOT NULL AND q.best < {{ rel | number }} THEN 1 END),
       COUNT(CASE WHEN r.query_id IS NULL AND q.best < {{ rel | number }} THEN 1 END),
       MIN(CASE WHEN r.query_id IS NOT NULL AND q.best < {{ rel | number }} THEN q.query_id END),
       MIN(CASE WHEN r.query_id IS NULL AND q.best < {{ rel | number }} THEN q.query_id END)
FROM qrels_queries AS q FULL OUTER JOIN run_queries AS r ON q.query_id = r.query_id
{%- endmacro %}
{#- With a query table: (listed, listed on neither side, an example, run queries not listed, an
    example, judged queries not listed, an example, the queries evaluated: `counted`). -#}
{% macro listed_overlap(listed_sql, qrels_sql, run_sql, rel, counted) -%}
WITH sides AS (
    SELECT query_id, 'listed' AS side FROM ({{ listed_sql }}) AS listed
    UNION ALL SELECT DISTINCT query_id, 'run' FROM ({{ run_sql }}) AS run
    UNION ALL SELECT DISTINCT query_id, CASE WHEN relevance >= {{ rel | number }} THEN 'relevant' ELSE 'judged' END
    FROM ({{ qrels_sql }}) AS qrels
), queries AS (
    SELECT query_id, MAX(CASE WHEN side = 'listed' THEN 1 ELSE 0 END) = 1 AS listed,
           MAX(CASE WHEN side = 'run' THEN 1 ELSE 0 END) = 1 AS in_run,
           MAX(CASE WHEN side IN ('judged', 'relevant') THEN 1 ELSE 0 END) = 1 AS judged,
           MAX(CASE WHEN side = 'relevant' THEN 1 ELSE 0 END) = 1 AS relevant
    FROM sides GROUP BY query_id
)
SELECT COUNT(CASE WHEN listed THEN 1 END),
       COUNT(CASE WHEN listed AND NOT in_run AND NOT judged THEN 1 END),
       MIN(CASE WHEN listed AND NOT in_run AND NOT judged THEN query_id END),
       COUNT(CASE WHEN in_run AND NOT listed THEN 1 END), MIN(CASE WHEN in_run AND NOT listed THEN query_id END),
       COUNT(CASE WHEN judged AND NOT listed THEN 1 END), MIN(CASE WHEN judged AND NOT listed THEN query_id END),
       COUNT(CASE WHEN {{ 'listed AND relevant' if counted == 'relevant' else 'listed' }} THEN 1 END)
FROM queries
{%- endmacro %}
{#- (rows without an integer rank, rows) of a run, for tie_break=input_rank. -#}
{% macro ranks(run_sql) -%}
SELECT COUNT(CASE WHEN input_rank IS NULL THEN 1 END), COUNT(*) FROM ({{ run_sql }}) AS run
{%- endmacro %}
{#- The highest label of the judgments. -#}
{% macro top_label(qrels_sql) -%}
SELECT max(relevance) FROM ({{ qrels_sql }}) AS qrels
{%- endmacro %}
{#- The checks of a table an engine reads where it is, in its own SQL (inputs/validate.py says what
    each count means): rows without an id or a value (NULL or NaN), all rows, distinct (query,
    document) pairs, values that are no whole number (`fraction`: 'rank', a run ranked by its rank,
    the typed score being the rank negated; 'label', judgments whose label column can hold a
    fraction, read from `table` as stored; none), and rows of runs stored together without a usable
    run name (`run_id`: its column). -#}
{% macro table_counts(typed, value, table, fraction, label, boolean_labels, run_id) -%}
SELECT SUM(CASE WHEN query_id IS NULL OR doc_id IS NULL THEN 1 ELSE 0 END) AS missing_ids,
       SUM(CASE WHEN {{ value }} IS NULL OR {{ dialect.is_nan(value) }} THEN 1 ELSE 0 END) AS missing_values,
       count(*) AS total_rows,
       (SELECT count(*) FROM (SELECT DISTINCT query_id, doc_id FROM ({{ typed }}) AS d) AS pairs) AS distinct_pairs,
{% if fraction == 'rank' %}
       SUM(CASE WHEN {{ value }} > 0 OR {{ value }} <> FLOOR({{ value }}) THEN 1 ELSE 0 END) AS not_whole,
{% elif fraction == 'label' %}
{% set raw = label | ident %}
       (SELECT SUM(CASE WHEN {% if boolean_labels %}lower(trim(CAST({{ raw }} AS {{ dialect.text() }}))) IN ('true', 'false') THEN 0
                        WHEN {% endif %}CAST({{ raw }} AS {{ DOUBLE }}) = FLOOR(CAST({{ raw }} AS {{ DOUBLE }})) THEN 0 ELSE 1 END)
        FROM {{ table }} AS labels WHERE {{ raw }} IS NOT NULL) AS not_whole,
{% else %}
       0 AS not_whole,
{% endif %}
{% if run_id %}
       (SELECT SUM(CASE WHEN {{ unnamed_run('CAST(' ~ (run_id | ident) ~ ' AS ' ~ dialect.text() ~ ')') }} THEN 1 ELSE 0 END)
        FROM {{ table }} AS runs) AS bad_run_ids
{% else %}
       0 AS bad_run_ids
{% endif %}
FROM ({{ typed }}) AS typed
{%- endmacro %}
{#- A row of runs stored together without a usable name (run_id: its text): none, empty, or one
    holding the separator of the statement's query keys. -#}
{% macro unnamed_run(run_id) -%}
{{ run_id }} IS NULL OR {{ run_id }} = '' OR {{ run_id }} LIKE '%' || {{ dialect.separator() }} || '%'
{%- endmacro %}
{#- (how many labels of `table`'s column `label` are NaN, infinite or beyond `limit` either way, one of
    them as text), read as stored. -#}
{% macro label_range(table, label, limit) -%}
{% set bad = 'NOT (abs(CAST(' ~ (label | ident) ~ ' AS ' ~ DOUBLE ~ ')) <= ' ~ (limit | number) ~ ')' %}
SELECT SUM(CASE WHEN {{ bad }} THEN 1 ELSE 0 END), MIN(CASE WHEN {{ bad }} THEN CAST({{ label | ident }} AS {{ dialect.text() }}) END)
FROM {{ table }} AS labels WHERE {{ label | ident }} IS NOT NULL
{%- endmacro %}
{#- How many labels of `table`'s column `label` are written true or false. -#}
{% macro boolean_labels(table, label) -%}
SELECT count(*) FROM {{ table }} AS labels WHERE lower(trim(CAST({{ label | ident }} AS {{ dialect.text() }}))) IN ('true', 'false')
{%- endmacro %}
{#- Per cutoff k, the queries whose documents at positions k and k + 1 by score have the same score (which
    documents are in the top k depends on the tie-break): diagnostics.count_ties in the portable subset. -#}
{% macro ties_across(run_sql, cutoffs) -%}
SELECT {% for k in cutoffs %}COUNT(CASE WHEN at_{{ k }} = after_{{ k }} THEN 1 END){% if not loop.last %}, {% endif %}{% endfor %}

FROM (
    SELECT query_id{% for k in cutoffs %},
           MAX(CASE WHEN position = {{ k | number }} THEN score END) AS at_{{ k }},
           MAX(CASE WHEN position = {{ (k + 1) | number }} THEN score END) AS after_{{ k }}{% endfor %}

    FROM (SELECT query_id, score, ROW_NUMBER() OVER (PARTITION BY query_id ORDER BY score DESC) AS position
          FROM ({{ run_sql }}) AS run) AS ranked
    WHERE position <= {{ (cutoffs | max + 1) | number }}
    GROUP BY query_id
) AS per_query
{%- endmacro %}
{#- (judged queries without a document labelled >= rel, an example, judged queries). -#}
{% macro no_relevant(qrels_sql, rel) -%}
SELECT COUNT(CASE WHEN best < {{ rel | number }} THEN 1 END), MIN(CASE WHEN best < {{ rel | number }} THEN query_id END),
       COUNT(*)
FROM (SELECT query_id, MAX(relevance) AS best FROM ({{ qrels_sql }}) AS qrels GROUP BY query_id) AS per_query
{%- endmacro %}
