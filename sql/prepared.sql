{#-
  One step of an evaluation that reads the judgments alone (judgments: per-query counts; an ideal ranking of the
  judgments and its per-query DCG), over every judged query: made once into a table of an Evaluator's connection,
  which each run's statement then reads (sql/evaluation/prepared_steps.sql) in place of computing it again. The
  steps are those of sql/evaluate.sql, rendered from the same templates; queries are numbered over all judged ones;
  best_labels, each query's highest label, is what the guards read of the judgments (checks.sql's overlap).
-#}
WITH
qrels AS (
    {{ qrels_sql | indent(4) }}
),
evaluated_queries AS (
    SELECT query_id,
           CAST(ROW_NUMBER() OVER (ORDER BY query_id) AS INTEGER) AS query_number
    FROM (SELECT DISTINCT query_id FROM qrels) AS judged_queries
),
best_labels AS (
    SELECT query_id, MAX(relevance) AS relevance
    FROM qrels
    GROUP BY query_id
),
{% for piece in pieces %}
{% filter trim %}{% include piece.template %}{% endfilter %}{{ ',' if not loop.last }}
{% endfor %}
