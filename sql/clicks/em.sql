{#- Expectation maximisation of the position-based model (pbm), the user browsing model (ubm) and the dynamic Bayesian
    network (dbn) (logs/clicks.py), one statement per ``part``, every parameter in one table of rows kind
    ('attraction': alpha per query_id and doc_id; 'examination': gamma per position, and for ubm per position and
    previous_click, the position of the last click above; dbn: 'attraction' and 'satisfaction' per query_id and
    doc_id, one 'continuation'), query_id, doc_id, position, previous_click ('' and 0 where a kind has no such key),
    value:
      impressions  the impressions numbered (slot), kept as a table on DuckDB
      start   every parameter at ``start``
      step    one iteration from the last one's ``parameters`` (dbn: clicks/dbn_step.sql). A click is attraction and
              examination; a result not clicked was attractive with probability alpha (1 - gamma) / (1 - gamma alpha), examined with probability
              gamma (1 - alpha) / (1 - gamma alpha) (Chuklin, Markov and de Rijke 2015, section 4.2). The new alpha is
              the mean of the first over a document's impressions, the new gamma the mean of the second over a
              position's; with prior a, b (PyClick's EM parameters: 1, 5) the means are (a + sum) / (b + n), and no
              value exceeds ``cap`` (PyClick's 1 - 1e-6; prior=none: no cap). On DuckDB the sums are added in the
              order of the impressions (slot: their number by session and position), the same bits on every run.
      moved   how far the parameters moved: the largest change from ``parameters`` to ``previous``, and how many
              are undefined (NULL: a product along a session too small for a double)
      result  the attraction of each query and document shown in at least ``min_sessions`` impressions, with its
              impressions (sessions) and clicks; dbn: attraction x satisfaction, and each of them in a column
    The impressions are the table ``impressions``, or computed from ``log`` where no table holds them. -#}
{% import '_macros/dialect.sql' as dialect %}
{% set log, impressions = log | default(none), impressions | default(none) %}
{%- macro mean(x, count='COUNT(*)') %}{% if cap is not none %}LEAST({% endif %}({{ a | number }} + {{ dialect.sum_in_order(x, 'slot') }})
       / CAST({{ b | number }} + {{ count }} AS {{ DOUBLE }}){% if cap is not none %}, {{ cap | number }}){% endif %}{% endmacro %}
{% set previous_click = 'impressions.previous_click' if model == 'ubm' else 'CAST(0 AS BIGINT)' %}
{% if log %}
WITH
{% include 'clicks/impressions.sql' %}{{ ',' if part == 'step' }}
{% elif part == 'step' %}
WITH
{% endif %}
{% set source = impressions or 'impressions' %}
{% if part == 'impressions' %}
SELECT impressions.*, ROW_NUMBER() OVER (ORDER BY impressions.session_id, impressions.position) AS slot FROM impressions
{% elif part == 'start' and model == 'dbn' %}
SELECT kind, query_id, doc_id, CAST(0 AS BIGINT) AS position, CAST(0 AS BIGINT) AS previous_click,
       CAST({{ start | number }} AS {{ DOUBLE }}) AS value
FROM (SELECT DISTINCT impressions.query_id AS query_id, impressions.doc_id AS doc_id FROM {{ source }} AS impressions) AS documents
CROSS JOIN (SELECT 'attraction' AS kind UNION ALL SELECT 'satisfaction' AS kind) AS kinds
UNION ALL
SELECT 'continuation' AS kind, '' AS query_id, '' AS doc_id, CAST(0 AS BIGINT) AS position, CAST(0 AS BIGINT) AS previous_click,
       CAST({{ start | number }} AS {{ DOUBLE }}) AS value
{% elif part == 'start' %}
SELECT 'attraction' AS kind, query_id, doc_id, CAST(0 AS BIGINT) AS position, CAST(0 AS BIGINT) AS previous_click,
       CAST({{ start | number }} AS {{ DOUBLE }}) AS value
FROM (SELECT DISTINCT impressions.query_id AS query_id, impressions.doc_id AS doc_id FROM {{ source }} AS impressions) AS documents
UNION ALL
SELECT 'examination' AS kind, '' AS query_id, '' AS doc_id, position, previous_click, CAST({{ start | number }} AS {{ DOUBLE }}) AS value
FROM (SELECT DISTINCT impressions.position AS position, {{ previous_click }} AS previous_click FROM {{ source }} AS impressions) AS positions
{% elif part == 'step' and model == 'dbn' %}
{% include 'clicks/dbn_step.sql' %}
{% elif part == 'step' %}
posteriors AS (
    SELECT {{ 'impressions.slot AS slot, ' if impressions and dialect_name() == 'duckdb' }}impressions.query_id AS query_id,
           impressions.doc_id AS doc_id, impressions.position AS position, {{ previous_click }} AS previous_click,
           CASE WHEN impressions.clicked = 1 THEN 1
                WHEN 1 - examination.value * attraction.value <= 0 THEN 0
                ELSE attraction.value * (1 - examination.value) / (1 - examination.value * attraction.value) END AS attracted,
           CASE WHEN impressions.clicked = 1 THEN 1
                WHEN 1 - examination.value * attraction.value <= 0 THEN 0
                ELSE examination.value * (1 - attraction.value) / (1 - examination.value * attraction.value) END AS examined
    FROM {{ source }} AS impressions
    JOIN {{ parameters }} AS attraction
        ON attraction.kind = 'attraction' AND attraction.query_id = impressions.query_id AND attraction.doc_id = impressions.doc_id
    JOIN {{ parameters }} AS examination
        ON examination.kind = 'examination' AND examination.position = impressions.position
        AND examination.previous_click = {{ previous_click }}
)
SELECT 'attraction' AS kind, query_id, doc_id, CAST(0 AS BIGINT) AS position, CAST(0 AS BIGINT) AS previous_click,
       {{ mean('attracted') }} AS value
FROM posteriors
GROUP BY query_id, doc_id
UNION ALL
SELECT 'examination' AS kind, '' AS query_id, '' AS doc_id, position, previous_click, {{ mean('examined') }} AS value
FROM posteriors
GROUP BY position, previous_click
{% elif part == 'moved' %}
SELECT MAX(ABS(now.value - before.value)) AS moved, SUM(CASE WHEN now.value IS NULL THEN 1 ELSE 0 END) AS undefined
FROM {{ parameters }} AS now
JOIN {{ previous }} AS before
    ON before.kind = now.kind AND before.query_id = now.query_id AND before.doc_id = now.doc_id
    AND before.position = now.position AND before.previous_click = now.previous_click
{% elif part == 'result' %}
SELECT attraction.query_id AS query_id, attraction.doc_id AS doc_id,
{% if model == 'dbn' %}
       attraction.value * satisfaction.value AS relevance, attraction.value AS attractiveness,
       satisfaction.value AS satisfaction,
{% else %}
       attraction.value AS relevance,
{% endif %}
       counts.shown AS sessions, counts.clicked_times AS clicks
FROM {{ parameters }} AS attraction
{% if model == 'dbn' %}
JOIN {{ parameters }} AS satisfaction
    ON satisfaction.kind = 'satisfaction' AND satisfaction.query_id = attraction.query_id
    AND satisfaction.doc_id = attraction.doc_id
{% endif %}
JOIN (
    SELECT impressions.query_id AS query_id, impressions.doc_id AS doc_id, COUNT(*) AS shown,
           CAST(SUM(impressions.clicked) AS BIGINT) AS clicked_times
    FROM {{ source }} AS impressions
    GROUP BY impressions.query_id, impressions.doc_id
) AS counts ON counts.query_id = attraction.query_id AND counts.doc_id = attraction.doc_id
WHERE attraction.kind = 'attraction' AND counts.shown >= {{ min_sessions | number }}
ORDER BY attraction.query_id, attraction.doc_id
{% endif %}
