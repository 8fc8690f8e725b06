{#-
  The checks an evaluation runs on the engine that runs its statement (diagnostics.py, plan.py), in
  the portable subset: COUNT(CASE ...) rather than FILTER, MAX(CASE ...) rather than bool_or.
-#}
{#- The queries of each side: (in both, qrels only, run only, an example of each side alone, those
    in both and in the qrels only whose best label is below rel). -#}
{% macro overlap(qrels_sql, run_sql, rel) -%}
WITH qrels_queries AS (SELECT query_id, max(relevance) AS best FROM ({{ qrels_sql }}) AS qrels GROUP BY query_id),
     run_queries AS (SELECT DISTINCT query_id FROM ({{ run_sql }}) AS run)
SELECT COUNT(CASE WHEN q.query_id IS NOT NULL AND r.query_id IS NOT NULL THEN 1 END),
       COUNT(CASE WHEN r.query_id IS NULL THEN 1 END),
       COUNT(CASE WHEN q.query_id IS NULL THEN 1 END),
       MIN(CASE WHEN r.query_id IS NULL THEN q.query_id END),
       MIN(CASE WHEN q.query_id IS NULL THEN r.query_id END),
       COUNT(CASE WHEN r.query_id IS NOT NULL AND q.best < {{ rel | number }} THEN 1 END),
       COUNT(CASE WHEN r.query_id IS NULL AND q.best < {{ rel | number }} THEN 1 END)
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
