{#-
  Which queries are evaluated: those of the judgments that the run answers (missing_queries
  "skip", as trec_eval 9 and pytrec_eval), or every query of the judgments ("zero": those the
  run misses score 0, as trec_eval -c). Queries only in the run are never evaluated. With
  no_relevant "skip" (a label level given as skip_below), queries without a judgment at that
  level or above are left out too (RecBole's and Microsoft Recommenders' users without positives).
  With a query table listing the queries (listed_sql), exactly those are evaluated, each of them
  even when neither the run nor the judgments have it (its values 0, as a rated request without
  hits in Elasticsearch's rank_eval), whatever missing_queries and unjudged_queries say.
  Each gets a number, query_number (1, 2, ... in query id order): rankings partition by it,
  which sorts faster than by the text of the id (a 4-byte integer: measured fastest). With answered, whether the
  run ranks documents for it (a measure that scores 0 where it does not: missing_queries=zero); with relevant_below,
  whether its judgments hold a label at that level or above (no_relevant=one: a measure of relevance scores 1 where not).
  Reference: docs/trec_eval_semantics.md sec. 2.
-#}
{% import '_macros/dialect.sql' as dialect %}
{% macro evaluated_queries(judgments, missing_queries, skip_below=none, unjudged_queries='skip', listed_sql=none,
                           answered=false, relevant_below=none) %}
{% set joined = answered or relevant_below is not none %}
{% set id = 'query_ids.query_id' if joined else 'query_id' %}
evaluated_queries AS (
    SELECT {{ id }}{{ ' AS query_id' if joined }},
           CAST(ROW_NUMBER() OVER (ORDER BY {{ id }}) AS INTEGER) AS query_number{% if answered %},
           answered_ids.query_id IS NOT NULL AS answered{% endif %}{% if relevant_below is not none %},
           relevant_ids.query_id IS NOT NULL AS relevant{% endif %}

    FROM (
{% if listed_sql is not none %}
        SELECT query_id FROM (
            {{ listed_sql | indent(12) }}
        ) AS listed
{% if skip_below is not none %}
        {{ dialect.intersect() }}
        SELECT DISTINCT query_id FROM {{ judgments }} WHERE relevance >= {{ skip_below | number }}
{% endif %}
{% elif skip_below is not none %}
        SELECT DISTINCT query_id FROM {{ judgments }} WHERE relevance >= {{ skip_below | number }}
{% elif missing_queries == 'zero' and unjudged_queries == 'zero' %}
        SELECT DISTINCT query_id FROM {{ judgments }}
        UNION
        SELECT DISTINCT query_id FROM run
{% elif unjudged_queries == 'zero' %}
        SELECT DISTINCT query_id FROM run
{% else %}
        SELECT DISTINCT query_id FROM {{ judgments }}
{% endif %}
{% if listed_sql is none and missing_queries == 'skip' and (skip_below is not none or unjudged_queries == 'skip') %}
        {{ dialect.intersect() }}
        SELECT DISTINCT query_id FROM run
{% endif %}
    ) AS query_ids{% if answered %}

    LEFT JOIN (SELECT DISTINCT query_id FROM run) AS answered_ids ON answered_ids.query_id = query_ids.query_id{% endif %}
{% if relevant_below is not none %}
    LEFT JOIN (SELECT DISTINCT query_id FROM {{ judgments }} WHERE relevance >= {{ relevant_below | number }}) AS relevant_ids
        ON relevant_ids.query_id = query_ids.query_id
{% endif %}

)
{%- endmacro %}

{#-
  One slice of an input for an evaluation run in slices (sqlrank's slices= option): the rows
  whose query id hashes to slice `index` of `slices`. Every row of a query, in the run and in
  the judgments, lands in the same slice, so each slice is a complete evaluation of its queries.
  DuckDB's hash(); used only inside sqlrank, never in the SQL it shows.
-#}
{% macro slice(source_sql, slices, index) %}
SELECT *
FROM (
    {{ source_sql | indent(4) }}
) AS sliced
WHERE hash(query_id) % {{ slices | number }} = {{ index | number }}
{%- endmacro %}

{#- The distinct query ids of a query table's column id_column, as text. -#}
{% macro listed(reader, id_column) %}
SELECT DISTINCT CAST({{ id_column | ident }} AS VARCHAR) AS query_id
FROM {{ reader }}
WHERE {{ id_column | ident }} IS NOT NULL
{%- endmacro %}

{#-
  Segments: each query's value of one attribute column of a query table (its query id column,
  query_id or as the inputs name it, and attributes). A query may sit in several segments
  (several rows); rows without a value are in none.
-#}
{% macro segments(reader, by, id_column) %}
SELECT DISTINCT CAST({{ id_column | ident }} AS VARCHAR) AS query_id,
       CAST({{ by | ident }} AS VARCHAR) AS segment
FROM {{ reader }}
WHERE {{ by | ident }} IS NOT NULL
{%- endmacro %}
