{#- One iteration of expectation maximisation of the position-based model (pbm) or the user browsing model (ubm)
    (logs/clicks.py), from the parameters of the last one (tables `attraction`: alpha per query and document;
    `examination`: gamma per position, and for ubm per position and the position of the last click above it).
    A click is attraction and examination; a result not clicked was attractive with probability
    alpha (1 - gamma) / (1 - gamma alpha), examined with probability gamma (1 - alpha) / (1 - gamma alpha) (Chuklin,
    Markov and de Rijke 2015, section 4.2). The new alpha is the mean of the first over a document's impressions, the
    new gamma the mean of the second over a position's; with prior a, b (PyClick's EM parameters: 1, 5) the means are
    (a + sum) / (b + n), and no value exceeds 1 - 1e-6 (PyClick's cap; prior=none: a = b = 0, no cap). Rows: kind ('attraction' or 'examination'), query_id, doc_id,
    position, previous_click, value. -#}
 {#- The sums added in the order of the impressions (slot: their number by session and position): the same bits on every
    run. -#}
{%- macro mean(x) %}{% if cap is not none %}LEAST({% endif %}({{ a | number }} + list_sum(list({{ x }} ORDER BY slot)))
       / CAST({{ b | number }} + COUNT(*) AS DOUBLE){% if cap is not none %}, {{ cap | number }}){% endif %}{% endmacro %}
{% set keyed = ' AND examination.previous_click = impressions.previous_click' if model == 'ubm' else '' %}
WITH
posteriors AS (
    SELECT impressions.slot AS slot, impressions.query_id AS query_id, impressions.doc_id AS doc_id,
           impressions.position AS position,
           {{ 'impressions.previous_click' if model == 'ubm' else '0' }} AS previous_click,
           CASE WHEN impressions.clicked = 1 THEN 1
                WHEN 1 - examination.gamma * attraction.alpha <= 0 THEN 0
                ELSE attraction.alpha * (1 - examination.gamma) / (1 - examination.gamma * attraction.alpha) END AS attracted,
           CASE WHEN impressions.clicked = 1 THEN 1
                WHEN 1 - examination.gamma * attraction.alpha <= 0 THEN 0
                ELSE examination.gamma * (1 - attraction.alpha) / (1 - examination.gamma * attraction.alpha) END AS examined
    FROM {{ impressions }} AS impressions
    JOIN {{ attraction }} AS attraction ON attraction.query_id = impressions.query_id AND attraction.doc_id = impressions.doc_id
    JOIN {{ examination }} AS examination ON examination.position = impressions.position{{ keyed }}
)
SELECT 'attraction' AS kind, query_id, doc_id, CAST(NULL AS BIGINT) AS position, CAST(NULL AS BIGINT) AS previous_click,
       {{ mean('attracted') }} AS value
FROM posteriors
GROUP BY query_id, doc_id
UNION ALL
SELECT 'examination' AS kind, CAST(NULL AS VARCHAR) AS query_id, CAST(NULL AS VARCHAR) AS doc_id, position, previous_click,
       {{ mean('examined') }} AS value
FROM posteriors
GROUP BY position, previous_click
