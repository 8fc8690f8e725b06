{#-
  Readers: each turns one input into rows of query_id, doc_id and the judgment or score.
  mode "typed"    -> query_id VARCHAR, doc_id VARCHAR, relevance INTEGER | score DOUBLE
  mode "raw"      -> the value as written, for validation (for TREC text: a run's score and rank
                     already as DOUBLE and BIGINT, NULL where not numbers, and bad_fields, one
                     flag for a line with the wrong number of fields or, split on one character,
                     an empty one): the narrow copy sqlrank keeps, ranked without parsing again
  mode "numbered" -> raw, plus the position (line or row number), the line and its field_count for
                     error messages
  Reference: trec_eval 10 get_qrels.c / get_trec_results.c (docs/trec_eval_semantics.md sec. 1):
  fields are split on any white space, lines starting with '#' and blank lines are skipped,
  run columns 2 (Q0) and 4 (rank) and anything after the tag are ignored (sqlrank keeps the rank
  for tie_break=input_rank unless ranks=false).
-#}

{#- With groups (trec_eval's qrels_jg), the query id is the query and the judgment group
    (column 2) joined by the unit separator chr(31).
    split "regex" splits on any run of white space (C's isspace: space, \t, \n, \v, \f, \r); "space" and "tab" split on that one
    character, which is several times faster and is used only for files where every line is
    that regular: bad_fields (the wrong number of fields, an empty field, or other white space
    in the line) tells, and the reader falls back to "regex" otherwise.
    lines "csv" reads lines with DuckDB's CSV reader, which also ends a line at a lone carriage
    return; "text" reads the whole file and splits it at line feeds only, as trec_eval does (the
    fallback for files with a carriage return inside a line). -#}
{% macro trec(path, kind, mode, groups=false, split='regex', lines='csv', ranks=true, label_type='real') %}
{% set value_field = 5 if kind == 'run' else 4 %}
{% set value_name = 'score' if kind == 'run' else 'relevance' %}
{% if dialect_name() == 'spark' %}
{{ trec_spark(path, kind, groups, label_type) }}
{%- elif lines == 'fields' and mode != 'numbered' %}
{{ trec_fields(path, kind, mode, groups, split, ranks, label_type) }}
{%- else %}
SELECT {% if mode == 'numbered' %}position, {% endif %}{% if groups %}fields[1] || chr(31) || fields[2]{% else %}fields[1]{% endif %} AS query_id,
       fields[3] AS doc_id,
{% if mode == 'typed' %}
       {% if kind == 'run' %}CAST(fields[{{ value_field }}] AS {{ DOUBLE }}){% else %}{{ label('fields[4]', false, label_type) }}{% endif %} AS {{ value_name }}{% if kind == 'run' %},
       TRY_CAST(fields[4] AS BIGINT) AS input_rank{% endif %}

{% else %}
{% if kind == 'run' and mode == 'raw' %}
       TRY_CAST(fields[{{ value_field }}] AS DOUBLE) AS {{ value_name }},
       {{ 'TRY_CAST(fields[4] AS BIGINT)' if ranks else 'CAST(NULL AS BIGINT)' }} AS input_rank,
{% else %}
       fields[{{ value_field }}] AS {{ value_name }},{% if kind == 'run' %}

       fields[4] AS input_rank,{% endif %}

{% endif %}
       len(fields) {{ '< 6 OR contains(fields[5], chr(95))' if kind == 'run' else '<> 4' }}{% if split != 'regex' %}

           OR list_contains(fields, '') OR contains(line, {{ 'chr(32)' if split == 'tab' else 'chr(9)' }})
           OR contains(line, chr(11)) OR contains(line, chr(12)){% endif %} AS bad_fields{% if mode == 'numbered' %},
       len(fields) AS field_count,
       line{% endif %}

{% endif %}
FROM (
{% if split == 'regex' %}
    SELECT {% if mode == 'numbered' %}position, line, {% endif %}string_split_regex(trim(line, chr(32) || chr(9) || chr(11) || chr(12) || chr(13)), '[ \t\n\v\f\r]+') AS fields
{% else %}
    SELECT {% if mode == 'numbered' %}position, {% endif %}line, string_split(line, {{ 'chr(9)' if split == 'tab' else 'chr(32)' }}) AS fields
{% endif %}
    FROM (
{% if lines == 'text' %}
        SELECT {% if mode == 'numbered' %}row_number() OVER () AS position, {% endif %}line
        FROM (SELECT unnest(string_split(ltrim(content, chr(65279)), chr(10))) AS line
              FROM read_text({{ path | literal }})) AS split_lines
{% else %}
        SELECT {% if mode == 'numbered' %}row_number() OVER () AS position, {% endif %}line
        FROM read_csv({{ path | literal }}, columns = {'line': 'VARCHAR'}, header = false,
                      delim = chr(0), quote = '', escape = '', auto_detect = false)
{% endif %}
    ) AS file_lines
{% if split == 'regex' %}
    WHERE NOT regexp_matches(coalesce(line, ''), '^[ \t\n\v\f\r]*(#|$)')
{% else %}
    WHERE line IS NOT NULL AND line <> '' AND NOT starts_with(line, '#')
{% endif %}
) AS data_lines
{% endif %}
{% endmacro %}

{#- TREC text whose fields DuckDB's CSV reader splits itself (lines "fields"): only for a file whose every
    line is fields split by single spaces (or single tabs) and no other white space, which sqlrank checks
    before; a line with another number of fields stops the reader (sqlrank then reads the lines as above),
    an empty field (two separators, one at either end of a line) is NULL and a comment line starts with
    '#': bad_fields, so that the file is read again with the regex. Blank lines are skipped, as trec_eval
    does. The fastest reading: no line is held as a whole nor split into a list. -#}
{% macro trec_fields(path, kind, mode, groups, split, ranks, label_type) %}
{% set count = 6 if kind == 'run' else 4 %}
SELECT {% if groups %}c1 || chr(31) || c2{% else %}c1{% endif %} AS query_id,
       c3 AS doc_id,
{% if kind == 'run' %}
       {{ 'CAST' if mode == 'typed' else 'TRY_CAST' }}(c5 AS {{ DOUBLE }}) AS score,
       {{ 'TRY_CAST(c4 AS BIGINT)' if ranks else 'CAST(NULL AS BIGINT)' }} AS input_rank{{ ',' if mode != 'typed' }}
{% elif mode == 'typed' %}
       {{ label('c4', false, label_type) }} AS relevance
{% else %}
       c4 AS relevance,
{% endif %}
{% if mode != 'typed' %}
       c1 IS NULL OR c2 IS NULL OR c3 IS NULL OR c4 IS NULL{% if kind == 'run' %} OR c5 IS NULL OR c6 IS NULL{% endif %} OR starts_with(c1, '#')
           {%- if kind == 'run' %} OR contains(c5, chr(95)){% endif %} AS bad_fields
{% endif %}
FROM read_csv({{ path | literal }}, columns = { {%- for i in range(1, count + 1) %}'c{{ i }}': 'VARCHAR'{{ ', ' if not loop.last }}{% endfor -%} },
              header = false, delim = {{ 'chr(9)' if split == 'tab' else 'chr(32)' }}, quote = '', escape = '', auto_detect = false)
{%- endmacro %}

{#- TREC text in Spark SQL (typed only: sqlrank validates inputs in DuckDB): Spark's text source
    gives one row per line in column value; arrays are read with element_at (1-based). The regex
    is Java's, its backslashes escaped once more for Spark's string literals. -#}
{% macro trec_spark(path, kind, groups, label_type) %}
{% set value_field = 5 if kind == 'run' else 4 %}
{% set value_name = 'score' if kind == 'run' else 'relevance' %}
{% set value_type = 'DOUBLE' if kind == 'run' or label_type == 'real' else 'INT' %}
SELECT {% if groups %}element_at(fields, 1) || chr(31) || element_at(fields, 2){% else %}element_at(fields, 1){% endif %} AS query_id,
       element_at(fields, 3) AS doc_id,
       CAST(element_at(fields, {{ value_field }}) AS {{ value_type }}) AS {{ value_name }}{% if kind == 'run' %},
       TRY_CAST(element_at(fields, 4) AS BIGINT) AS input_rank{% endif %}

FROM (
    SELECT split(regexp_replace(value, '^[ \\t\\n\\x0B\\f\\r]+|[ \\t\\n\\x0B\\f\\r]+$', ''), '[ \\t\\n\\x0B\\f\\r]+') AS fields
    FROM text.{{ path | ident }}
    WHERE NOT value RLIKE '^[ \\t\\n\\x0B\\f\\r]*(#|$)'
) AS data_lines
{%- endmacro %}

{#- A judgment label as the evaluation reads it, by label_type: "integer" (every label validated whole),
    "real" (as a DOUBLE: 0.7 stays 0.7), or "atol" (trec_eval's reading of a label: C's atol, the
    digits before any decimal point, so 1.7 is 1 and -0.5 is 0). With boolean_text, labels written
    true or false (any case) are 1 and 0 (a recommender's clicked column). ClickHouse computes every
    branch of a CASE, so there the other labels are cast without failing ('false' would not parse)
    and a text that is no number is NULL, which validation reports. -#}
{% macro label(x, boolean_text, label_type='real') -%}
{% set number = DOUBLE if label_type == 'real' else INTEGER %}
{% if label_type == 'atol' %}{% set cast = 'COALESCE(TRY_CAST(regexp_extract(' ~ x ~ ", '^[+-]?[0-9]+') AS " ~ INTEGER ~ '), 0)' %}
{% elif dialect_name() == 'clickhouse' and boolean_text %}{% set cast = 'accurateCastOrNull(' ~ x ~ ", '" ~ ('Float64' if label_type == 'real' else 'Int32') ~ "')" %}
{% else %}{% set cast = 'CAST(' ~ x ~ ' AS ' ~ number ~ ')' %}{% endif %}
{% if boolean_text %}CASE lower(trim(CAST({{ x }} AS {{ dialect.text() }}))) WHEN 'true' THEN 1 WHEN 'false' THEN 0 ELSE {{ cast }} END{% else %}{{ cast }}{% endif %}
{%- endmacro %}

{#- An input already read once into a temporary table (raw columns), typed for evaluation. -#}
{% macro materialized(table, kind, mode, score_from_rank=false, boolean_text=false, label_type='real') %}
{% set value_name = 'score' if kind == 'run' else 'relevance' %}
{% if mode == 'typed' %}
SELECT query_id, doc_id, {% if kind == 'run' %}{{ '-' if score_from_rank }}CAST(score AS {{ DOUBLE }}){% else %}{{ label('relevance', boolean_text, label_type) }}{% endif %} AS {{ value_name }}{% if kind == 'run' %},
       TRY_CAST(input_rank AS BIGINT) AS input_rank{% endif %}

FROM {{ table | ident }}
{% else %}
SELECT * FROM {{ table | ident }}
{% endif %}
{% endmacro %}

{% import '_macros/dialect.sql' as dialect %}
{#- Runs stored together (a run_id column, hive folders run_id=..., or one file per run with
    run_from_file): the query key is run_id || chr(31) || query_id, so that every step keys each
    run's queries apart, as trec_eval's judgment groups do; evaluate.sql splits the key again. -#}
{% macro run_key(columns, run_from_file) -%}
{% if run_from_file %}{{ dialect.file_stem(dialect.file_name()) }}{% else %}CAST({{ columns.run_id | ident }} AS {{ dialect.text() }}){% endif %}
{%- endmacro %}

{#- A rank-only run (score_from_rank): the score is the rank's negative, so that rank 1 comes first. keyed=false:
    runs stored together with their query ids apart from their run_id (validation's pass hashes the three). -#}
{% macro tabular(reader, columns, kind, mode, run_from_file=false, score_from_rank=false, boolean_text=false, label_type='real',
                 keyed=true) %}
{% set value_name = 'score' if kind == 'run' else 'relevance' %}
SELECT {% if mode == 'numbered' %}row_number() OVER () AS position, {% endif %}{% if columns.get('run_id') and keyed %}{{ run_key(columns, run_from_file) }} || {{ dialect.separator() }} || {% endif %}CAST({{ columns.query_id | ident }} AS {{ dialect.text() }}) AS query_id,
       CAST({{ columns.doc_id | ident }} AS {{ dialect.text() }}) AS doc_id,{% for key in ('subtopic', 'sample', 'source') if columns.get(key) %}

       CAST({{ columns[key] | ident }} AS {{ dialect.text() }}) AS {{ key | ident }},{% endfor %}{% if columns.get('run_id') and mode != 'typed' %}

       {{ run_key(columns, run_from_file) }} AS run_id,{% endif %}

{% if mode == 'typed' %}
       {% if kind == 'run' %}{{ '-' if score_from_rank }}CAST({{ columns.score | ident }} AS {{ DOUBLE }}){% else %}{{ label(columns.relevance | ident, boolean_text, label_type) }}{% endif %} AS {{ value_name }}{% if kind == 'run' %},
       {{ dialect.try_bigint(columns.get('rank') | ident) if columns.get('rank') else 'CAST(NULL AS BIGINT)' }} AS input_rank{% endif %}

{% else %}
       {{ columns[value_name] | ident }} AS {{ value_name }}{% if kind == 'run' %},
       {{ 'CAST(' ~ (columns.get('rank') | ident) ~ ' AS VARCHAR)' if columns.get('rank') else 'CAST(NULL AS VARCHAR)' }} AS input_rank{% endif %}

{% endif %}
FROM {{ reader }}
{% endmacro %}

{#- CSV/TSV with a header line, or without one (header=false: columns column0, column1, ...). -#}
{% macro read_csv(path, delimiter, header=true) -%}
read_csv({{ path | literal }}, header = {{ 'true' if header else 'false' }}, delim = {{ 'chr(9)' if delimiter == 'tab' else "','" }}, quote = '"', all_varchar = true)
{%- endmacro %}

{% macro read_parquet(path, filename=false) -%}
{% if dialect_name() == 'spark' %}parquet.{{ path | ident }}{% else %}read_parquet({{ path | literal }}{% if filename %}, filename = true{% endif %}){% endif %}
{%- endmacro %}

{% macro table(parts) -%}
{% for part in parts %}{{ part | ident }}{% if not loop.last %}.{% endif %}{% endfor %}
{%- endmacro %}

{#- A typed run without the (user, item) pairs of `seen_sql` (remove_seen: each user's history), as
    recommenders leave out what a user already interacted with before they cut the list at k; with
    per_run (runs stored together), the user is the query id after the run's. -#}
{% macro unseen(run_sql, seen_sql, per_run=false) %}
SELECT predictions.*
FROM (
    {{ run_sql | indent(4) }}
) AS predictions
LEFT JOIN (
    SELECT DISTINCT query_id, doc_id
    FROM (
        {{ seen_sql | indent(8) }}
    ) AS history_rows
) AS seen
  ON seen.query_id = {{ dialect.after_separator('predictions.query_id') if per_run else 'predictions.query_id' }} AND seen.doc_id = predictions.doc_id
WHERE seen.doc_id IS NULL
{% endmacro %}

{#- Runs stored together (typed rows keyed run_id || chr(31) || query_id) with the query ids after
    the key: every run's rows with their run_id (the copy another engine receives, whose own SQL
    keys the queries again), or, with run_id, that one run's rows alone. -#}
{% macro unkeyed_runs(run_sql, run_id=none) %}
SELECT {% if run_id is none %}{{ dialect.before_separator('query_id') }} AS run_id, {% endif %}{{ dialect.after_separator('query_id') }} AS query_id, doc_id, score, input_rank
FROM (
    {{ run_sql | indent(4) }}
) AS runs{% if run_id is not none %}

WHERE {{ dialect.before_separator('query_id') }} = {{ run_id | literal }}{% endif %}

{% endmacro %}

{#- The run once for every judgment group of its query (trec_eval's qrels_jg): query ids
    become query || chr(31) || group, as in the qrels read with groups. -#}
{% macro run_per_group(run_sql) %}
SELECT judgment_groups.query_id, run_rows.doc_id, run_rows.score
FROM (
    {{ run_sql | indent(4) }}
) AS run_rows
JOIN (SELECT DISTINCT query_id, split_part(query_id, chr(31), 1) AS base_query_id FROM qrels) AS judgment_groups
  ON judgment_groups.base_query_id = run_rows.query_id
{% endmacro %}

{#- trec_eval's preference judgments: "qid jg jsg docno rel_level" (-R prefs), or qrels read as
    preferences, "qid jg docno rel_level" with subgroup '0' (-R qrels_prefs). Levels are numbers.
    mode "raw" keeps the level as text and the field count; "numbered" adds line numbers. -#}
{% macro prefs(path, layout, mode) %}
{% set n = 5 if layout == 'prefs' else 4 %}
SELECT {% if mode == 'numbered' %}position, line, {% endif %}fields[1] AS query_id,
       fields[2] AS jg,
       {% if layout == 'prefs' %}fields[3]{% else %}'0'{% endif %} AS jsg,
       fields[{{ n - 1 }}] AS doc_id,
{% if mode == 'typed' %}
       CAST(fields[{{ n }}] AS DOUBLE) AS rel_level
{% else %}
       fields[{{ n }}] AS rel_level,
       len(fields) AS field_count
{% endif %}
FROM (
    SELECT {% if mode == 'numbered' %}position, line, {% endif %}string_split_regex(trim(line, chr(32) || chr(9) || chr(11) || chr(12) || chr(13)), '[ \t\n\v\f\r]+') AS fields
    FROM (
        SELECT {% if mode == 'numbered' %}row_number() OVER () AS position, {% endif %}line
        FROM read_csv({{ path | literal }}, columns = {'line': 'VARCHAR'}, header = false,
                      delim = chr(0), quote = '', escape = '', auto_detect = false)
    ) AS file_lines
    WHERE NOT regexp_matches(coalesce(line, ''), '^[ \t\n\v\f\r]*(#|$)')
) AS data_lines
{% endmacro %}

{#- An input read with a second key (a statement printed for another database, or reading the file itself): its
    judgments per subtopic as one judgment per (query, document), the highest label of its subtopics; `joined`: the
    subtopic is in the query ids (TREC text). -#}
{% macro per_document(sql, joined=false) %}
{% if joined %}{% set sql = split_key(sql, 'subtopic', 'qrels') | trim %}{% endif %}
SELECT query_id, doc_id, MAX(relevance) AS relevance
FROM (
    {{ sql | indent(4) }}
) AS subtopic_rows
GROUP BY query_id, doc_id
{% endmacro %}

{#- Rows whose query ids carry a key (TREC text's second column: query || chr(31) || key) with the key a column
    of its own, named `role`. -#}
{% macro split_key(sql, role, kind) %}
SELECT {{ dialect.before_separator('query_id') }} AS query_id, {{ dialect.after_separator('query_id') }} AS {{ role | ident }}, doc_id,
       {{ 'score, input_rank' if kind == 'run' else 'relevance' }}
FROM (
    {{ sql | indent(4) }}
) AS keyed_rows
{% endmacro %}

{#- Its sampled rankings as one ranking per query: the first sample (the least sample id, byte order). -#}
{% macro first_sample(sql, joined=false) %}
{% set sample = 'sample' | ident %}
{% if joined %}{% set sql = split_key(sql, 'sample', 'run') | trim %}{% endif %}
SELECT sampled.query_id AS query_id, sampled.doc_id AS doc_id, sampled.score AS score, sampled.input_rank AS input_rank
FROM (
    {{ sql | indent(4) }}
) AS sampled
JOIN (
    SELECT query_id, MIN({{ dialect.byte_order(sample) }}) AS {{ sample }}
    FROM (
        {{ sql | indent(8) }}
    ) AS every_sample
    GROUP BY query_id
) AS first_samples ON first_samples.query_id = sampled.query_id AND first_samples.{{ sample }} = sampled.{{ sample }}
{% endmacro %}

{#- Its judgments from several sources (a source column) merged: the label of the first source in `prefer` that
    judged a document (the sources not named after those named, by name), or the labels of every source that
    judged it combined by `aggregate` (AVG, MAX or MIN). -#}
{% macro merged_sources(sql, prefer, aggregate=none) %}
{% if aggregate %}
SELECT query_id, doc_id, {{ aggregate }}(relevance) AS relevance
FROM (
    {{ sql | indent(4) }}
) AS every_source
GROUP BY query_id, doc_id
{% else %}
SELECT query_id, doc_id, relevance
FROM (
    SELECT query_id, doc_id, relevance,
           ROW_NUMBER() OVER (PARTITION BY query_id, doc_id
                              ORDER BY CASE source{% for name in prefer %} WHEN {{ name | literal }} THEN {{ loop.index }}{% endfor %} ELSE {{ prefer | length + 1 }} END,
                                       {{ dialect.byte_order('source') }}) AS choice
    FROM (
        {{ sql | indent(8) }}
    ) AS every_source
) AS preferred
WHERE choice = 1
{% endif %}
{% endmacro %}
