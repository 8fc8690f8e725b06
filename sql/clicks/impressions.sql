{#- The impression log as the click models read it (logs/clicks.py): one row per result shown, its session (one
    result page of one query), the position it was shown at and whether it was clicked (0 or 1); with, per session,
    its first and last clicked position (NULL: no click) and the position of the last click above this result
    (0: none), what the cascade, DCM, SDBN and UBM models condition on. -#}
impressions AS (
    SELECT session_id, query_id, doc_id, position, clicked,
           MIN(CASE WHEN clicked = 1 THEN position END) OVER (PARTITION BY session_id) AS first_click,
           MAX(CASE WHEN clicked = 1 THEN position END) OVER (PARTITION BY session_id) AS last_click,
           COALESCE(MAX(CASE WHEN clicked = 1 THEN position END)
                        OVER (PARTITION BY session_id ORDER BY position ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
               AS previous_click
    FROM ({{ log | indent(10) }}) AS log
)
