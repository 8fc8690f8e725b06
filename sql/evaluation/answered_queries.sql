{#- When measures count queries on one side differently (missing_queries or unjudged_queries set per
    measure): each evaluated query, whether the run answers it and whether it has judgments. -#}
answered_queries AS (
    SELECT evaluated_queries.query_id AS query_id,
           answered.query_id IS NOT NULL AS answered,
           judged.query_id IS NOT NULL AS judged
    FROM evaluated_queries
    LEFT JOIN (SELECT DISTINCT query_id FROM run) AS answered ON answered.query_id = evaluated_queries.query_id
    LEFT JOIN (SELECT DISTINCT query_id FROM qrels) AS judged ON judged.query_id = evaluated_queries.query_id
)
