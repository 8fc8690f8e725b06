{#- One EM iteration of the dynamic Bayesian network model (dbn), included by clicks/em.sql for its ``step``: from the
    last ``parameters`` (attraction and satisfaction per query and document, one continuation), PyClick's updates
    (DBN.py's DBNAttrEM, DBNSatEM and DBNContEM). Along each session, in position order:
      exam  the probability that a result is examined: 1 at the top, times cont x (1 - attr x sat) per result above
      car   the probability of a click at or below a result examined: attr + (1 - attr) x cont x car of the next
    Both as sums over the session: exam from the logarithms of its factors above, car from those of (1 - attr) x cont
    within each run of non-zero factors (a zero factor ends a run: nothing below it is reached). A product too small
    for a double (below 1e-308 within one run) leaves car NULL and the parameter it reaches NULL, which the iteration's
    check reports, never a wrong number.
    The updates, per result (last_click: the session's last clicked position, NULL without a click):
      attraction    1 where clicked; below the last click (1 - exam) attr / (1 - exam car); otherwise 0
      satisfaction  over the clicked results: sat / (1 - (1 - sat) cont car_next) at the last click, 0 at the others;
                    a document never clicked keeps ``start``
      continuation  1 above the last click (and everywhere in a session without a click, as PyClick's last click rank
                    is the page's length there); from it down cont (1 - car_next) / (1 - cont car_next)
    A denominator that is not positive makes its term 0. -#}
{%- macro complete(x) %}CASE WHEN COUNT({{ x }}) < COUNT(*) THEN NULL ELSE {{ caller() }} END{% endmacro %}
shown AS (
    SELECT {{ 'impressions.slot' if impressions and dialect_name() == 'duckdb' else 'NULL' }} AS slot,
           impressions.session_id AS session_id, impressions.query_id AS query_id, impressions.doc_id AS doc_id,
           impressions.position AS position, impressions.clicked AS clicked, impressions.last_click AS last_click,
           attraction.value AS attr, satisfaction.value AS sat, continuation.value AS cont,
           continuation.value * (1 - attraction.value * satisfaction.value) AS exam_factor,
           (1 - attraction.value) * continuation.value AS skip_factor
    FROM {{ source }} AS impressions
    JOIN {{ parameters }} AS attraction
        ON attraction.kind = 'attraction' AND attraction.query_id = impressions.query_id AND attraction.doc_id = impressions.doc_id
    JOIN {{ parameters }} AS satisfaction
        ON satisfaction.kind = 'satisfaction' AND satisfaction.query_id = impressions.query_id
        AND satisfaction.doc_id = impressions.doc_id
    CROSS JOIN (SELECT value FROM {{ parameters }} WHERE kind = 'continuation') AS continuation
),
factored AS (
    SELECT shown.*,
           COALESCE(SUM(CASE WHEN exam_factor > 0 THEN 0 ELSE 1 END)
                        OVER (PARTITION BY session_id ORDER BY position ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
               AS exam_zeros,
           COALESCE(SUM(CASE WHEN exam_factor > 0 THEN LN(exam_factor) END)
                        OVER (PARTITION BY session_id ORDER BY position ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
               AS exam_log,
           COALESCE(SUM(CASE WHEN skip_factor > 0 THEN 0 ELSE 1 END)
                        OVER (PARTITION BY session_id ORDER BY position ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
               AS skip_zeros,
           COALESCE(SUM(CASE WHEN skip_factor > 0 THEN LN(skip_factor) END)
                        OVER (PARTITION BY session_id ORDER BY position ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
               AS skip_log
    FROM shown
),
segmented AS (
    SELECT factored.*, MAX(skip_log) OVER (PARTITION BY session_id, skip_zeros) AS run_log
    FROM factored
),
carried AS (
    SELECT segmented.*,
           CASE WHEN exam_zeros > 0 THEN 0 ELSE EXP(exam_log) END AS exam,
           SUM(attr * EXP(skip_log - run_log))
               OVER (PARTITION BY session_id, skip_zeros ORDER BY position ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)
           / NULLIF(EXP(skip_log - run_log), 0) AS car
    FROM segmented
),
following AS (
    SELECT carried.*, COALESCE(LEAD(car) OVER (PARTITION BY session_id ORDER BY position), 0) AS car_next
    FROM carried
),
posteriors AS (
    SELECT slot, query_id, doc_id, clicked,
           CASE WHEN clicked = 1 THEN 1
                WHEN last_click IS NULL OR position < last_click THEN 0
                WHEN 1 - exam * car <= 0 THEN 0
                ELSE (1 - exam) * attr / (1 - exam * car) END AS attracted,
           CASE WHEN clicked = 1 AND position = last_click
                THEN CASE WHEN 1 - (1 - sat) * cont * car_next <= 0 THEN 0 ELSE sat / (1 - (1 - sat) * cont * car_next) END
                WHEN clicked = 1 THEN 0 END AS satisfied,
           CASE WHEN last_click IS NULL OR position < last_click THEN 1
                WHEN 1 - cont * car_next <= 0 THEN 0
                ELSE cont * (1 - car_next) / (1 - cont * car_next) END AS continued
    FROM following
)
SELECT 'attraction' AS kind, query_id, doc_id, CAST(0 AS BIGINT) AS position, CAST(0 AS BIGINT) AS previous_click,
       {% call complete('attracted') %}{{ mean('attracted') }}{% endcall %} AS value
FROM posteriors
GROUP BY query_id, doc_id
UNION ALL
SELECT 'satisfaction' AS kind, query_id, doc_id, CAST(0 AS BIGINT) AS position, CAST(0 AS BIGINT) AS previous_click,
       CASE WHEN SUM(clicked) = 0 THEN CAST({{ start | number }} AS {{ DOUBLE }})
            WHEN COUNT(satisfied) < SUM(clicked) THEN NULL
            ELSE {{ mean('satisfied', 'SUM(clicked)') }} END AS value
FROM posteriors
GROUP BY query_id, doc_id
UNION ALL
SELECT 'continuation' AS kind, '' AS query_id, '' AS doc_id, CAST(0 AS BIGINT) AS position, CAST(0 AS BIGINT) AS previous_click,
       {% call complete('continued') %}{{ mean('continued') }}{% endcall %} AS value
FROM posteriors
