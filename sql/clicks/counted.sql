{#- The click models estimated by counting (logs/clicks.py), one statement each; per query and document: relevance
    (the model's estimate), sessions (the results shown that it counts), clicks. Definitions as PyClick implements them
    (Chuklin, Markov and de Rijke, Click Models for Web Search, 2015):
      ctr    clicks / impressions
      cm     the cascade model: a session is examined down to its first click (all of it without one); clicks over
             examined impressions
      dcm    the dependent click model: examined down to the last click; clicks over examined impressions
      sdbn   the simplified DBN: attractiveness = clicks over impressions examined down to the last click, satisfaction
             = the sessions whose last click it is over its clicks; relevance = attractiveness x satisfaction
      coec   clicks over expected clicks: clicks over the sum of the log's click-through rate at each position shown
    A ratio k / n of the counting models is (k + a) / (n + b): prior a = 1, b = 2 as PyClick's maximum likelihood
    parameters start (prior=pyclick), or a = b = 0 (prior=none); coec is never smoothed. -#}
{% import '_macros/dialect.sql' as dialect %}
WITH
{% include 'clicks/impressions.sql' %},
{% if model == 'coec' %}
position_rates AS (
    SELECT impressions.position AS position, AVG(CAST(impressions.clicked AS {{ DOUBLE }})) AS rate FROM impressions
    GROUP BY impressions.position
),
{% endif %}
counted AS (
    SELECT impressions.query_id AS query_id, impressions.doc_id AS doc_id,
{% if model in ('ctr', 'coec') %}
           COUNT(*) AS sessions, CAST(SUM(clicked) AS BIGINT) AS clicks,
{% if model == 'ctr' %}
           (SUM(clicked) + {{ a | number }}) / CAST(COUNT(*) + {{ b | number }} AS {{ DOUBLE }}) AS rate
{% else %}
           SUM(impressions.clicked) / {{ dialect.sum_in_order('position_rates.rate', 'impressions.session_id, impressions.position') }} AS rate
{% endif %}
{% else %}
{% set cut = 'first_click' if model == 'cm' else 'last_click' %}
           CAST(SUM(CASE WHEN {{ cut }} IS NULL OR position <= {{ cut }} THEN 1 ELSE 0 END) AS BIGINT) AS sessions,
           CAST(SUM(CASE WHEN {{ cut }} IS NULL OR position <= {{ cut }} THEN clicked ELSE 0 END) AS BIGINT) AS clicks,
{% if model == 'sdbn' %}
           SUM(CASE WHEN position = last_click THEN 1 ELSE 0 END) AS last_clicks,
{% endif %}
           (SUM(CASE WHEN {{ cut }} IS NULL OR position <= {{ cut }} THEN clicked ELSE 0 END) + {{ a | number }})
           / CAST(NULLIF(SUM(CASE WHEN {{ cut }} IS NULL OR position <= {{ cut }} THEN 1 ELSE 0 END) + {{ b | number }}, 0)
                  AS {{ DOUBLE }}) AS rate
{% endif %}
    FROM impressions
{% if model == 'coec' %}
    JOIN position_rates ON position_rates.position = impressions.position
{% endif %}
    GROUP BY impressions.query_id, impressions.doc_id
)
SELECT query_id, doc_id,
{% if model == 'sdbn' %}
{% set satisfaction = 'COALESCE((last_clicks + ' ~ (a | number) ~ ') / CAST(NULLIF(clicks + ' ~ (b | number) ~ ', 0) AS ' ~ DOUBLE ~ '), 0)' %}
       rate * {{ satisfaction }} AS relevance,
       rate AS attractiveness, {{ satisfaction }} AS satisfaction,
{% else %}
       COALESCE(rate, 0) AS relevance,
{% endif %}
       sessions, clicks
FROM counted
WHERE sessions >= {{ min_sessions | number }}
ORDER BY query_id, doc_id
