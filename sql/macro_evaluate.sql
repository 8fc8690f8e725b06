{#-
  The body of sqlrank.evaluate and sqlrank.evaluate_per_query (export/macros.py): the statement of only the measures a
  call names, written at bind time from the call's list and run by DuckDB's query(), so that a call binds what it asks
  and no more. Each installed measure is a macro of its own (`macros`, its reference, beside `names`, its spellings in
  lower case, in the same order); the statement is their UNION ALL, each row carrying the name asked, the order that of
  the list. The tables' names and the columns are passed on as string literals (quotes doubled), never as SQL; a name
  not installed, or an empty list, is DuckDB's error() at bind time.
-#}
{% macro quoted(value) %}'''' || replace({{ value }}, '''', '''''') || ''''{% endmacro %}
{% macro listed(values) %}{% for line in values | batch(4) %}{{ line | map('literal') | join(', ') }}{{ ',
                         ' if not loop.last }}{% endfor %}{% endmacro %}
{% macro body(schema, names, macros, per_query) -%}
SELECT * FROM query(
    CASE WHEN len(measures) = 0 THEN error('sqlrank: no measure is named; give a list such as [''nDCG@10'', ''AP'']')
    ELSE array_to_string([
        'SELECT * REPLACE (' || {{ quoted('name') }} || ' AS measure) FROM '
        || coalesce([{{ listed(macros) }}]
                        [list_position([{{ listed(names) }}], lower(name))],
                    error('sqlrank: measure ' || name || ' is not installed (SELECT * FROM {{ schema }}.measures() lists those that are; '
                          || 'add it with: sqlrank install DB_FILE -m ''' || name || ''')'))
        || '(' || {{ quoted('qrels') }} || ', ' || {{ quoted('run') }}
        || ', qrels_query_column := ' || {{ quoted('coalesce(qrels_query_column, query_column)') }}
        || ', qrels_doc_column := ' || {{ quoted('coalesce(qrels_doc_column, doc_column)') }}
        || ', relevance_column := ' || {{ quoted('relevance_column') }}
        || ', run_query_column := ' || {{ quoted('coalesce(run_query_column, query_column)') }}
        || ', run_doc_column := ' || {{ quoted('coalesce(run_doc_column, doc_column)') }}
        || ', score_column := ' || {{ quoted('score_column') }} || ')'
        FOR name IN list_distinct(measures)], ' UNION ALL ') END
) AS evaluated
ORDER BY {{ 'query_id, ' if per_query }}list_position(measures, measure)
{%- endmacro %}
