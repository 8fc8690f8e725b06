{#- The impression log as the click models read it (logs/clicks.py): one row per result shown, its session (one
    result page of one query), the position it was shown at and whether it was clicked (0 or 1); with, per session,
    its first and last clicked position (NULL: no click) and the position of the last click above this result
    (0: none), what the cascade, DCM, SDBN and UBM models condition on. -#}
impressions AS (
    SELECT log.session_id AS session_id, log.query_id AS query_id, log.doc_id AS doc_id, log.position AS position,
           log.clicked AS clicked,
           MIN(CASE WHEN log.clicked = 1 THEN log.position END) OVER (PARTITION BY log.session_id) AS first_click,
           MAX(CASE WHEN log.clicked = 1 THEN log.position END) OVER (PARTITION BY log.session_id) AS last_click,
           COALESCE(MAX(CASE WHEN log.clicked = 1 THEN log.position END)
                        OVER (PARTITION BY log.session_id ORDER BY log.position ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
               AS previous_click
    FROM ({{ log | indent(10) }}) AS log
)
