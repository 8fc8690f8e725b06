{#- The queries the run answers, when measures count missing queries differently. -#}
answered_queries AS (
    SELECT DISTINCT query_id FROM run
)
