{#- Off-policy estimates of a new ranking from logged traffic (logs/counterfactual.py): per session (one result page),
    what each estimator adds up, for the mean over sessions and its bootstrap interval in Python. The new run ranks
    each query's documents (ties by the tie-break convention): position k of a session holds its k-th document. Its
    propensity of a logged result is 1 where it puts the same document at the same position (item-position), where
    it agrees on every position down to this one (prefix), or on the whole page (slate); else 0.
      iips    sum over positions of reward x same / propensity                   (independent IPS; Li et al. 2018)
      rips    sum of reward x prefix agreement / prefix_propensity               (reward-interaction IPS; McInerney et al. 2020)
      sips    sum of reward x page agreement / slate_propensity                  (standard slate IPS)
      dm      sum of the reward model's estimate of the new run's document at each position
      dr      dm + sum of same / propensity x (reward - the estimate of the logged document)
    Rows: session_id, and per estimator its sum; weights (the sum of same / propensity, for snips); slots; the slots the
    new run fills (new_slots) and those of them where the log never shows its document (unsupported_slots, and one of
    them); with a reward model, the slots it has no estimate for (unmodelled_slots). With ``estimates`` (a statement
    printed for a dialect): one row instead, each estimator's mean over the sessions (snips: the sum of iips over the
    sum of the weights, times the mean slots per session), NULL where the new run fills slots the log never shows (or,
    for dm and dr, the reward model has no estimate of), the sessions, new_slots, unsupported_slots (unmodelled_slots). -#}
{% import '_macros/dialect.sql' as dialect %}
{% set logged = ['session_id', 'query_id', 'doc_id', 'position', 'reward', 'propensity'] + (columns | list) %}
{% macro listed(table, names) %}{% for name in names %}{{ table }}.{{ name }} AS {{ name }}{{ ', ' if not loop.last }}{% endfor %}{% endmacro %}
{% macro ordered_sum(x) %}{{ dialect.sum_in_order(x, 'position') }}{% endmacro %}
WITH
traffic AS (
    SELECT * FROM ({{ log | indent(10) }}) AS log
),
new_ranking AS (
    SELECT query_id, doc_id, ROW_NUMBER() OVER (PARTITION BY query_id ORDER BY {{ order }}) AS position
    FROM ({{ run | indent(10) }}) AS run
),
shown AS (
    SELECT DISTINCT query_id, doc_id, position FROM traffic
),
agreed AS (  -- each slot's document in the new run (new_doc), whether it is the logged one, whether the log ever shows it there
    SELECT {{ listed('traffic', logged) }},
           new_ranking.doc_id AS new_doc, CASE WHEN new_ranking.doc_id = traffic.doc_id THEN 1 ELSE 0 END AS same,
           CASE WHEN new_ranking.doc_id IS NOT NULL AND shown.doc_id IS NULL THEN 1 ELSE 0 END AS unsupported
    FROM traffic
    LEFT JOIN new_ranking ON new_ranking.query_id = traffic.query_id AND new_ranking.position = traffic.position
    LEFT JOIN shown
        ON shown.query_id = traffic.query_id AND shown.doc_id = new_ranking.doc_id AND shown.position = traffic.position
),
prefixed AS (
    SELECT {{ listed('agreed', logged + ['new_doc', 'same', 'unsupported']) }},
           MIN(same) OVER (PARTITION BY session_id ORDER BY position ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS same_prefix,
           MIN(same) OVER (PARTITION BY session_id) AS same_slate
    FROM agreed
){% if model %},
model AS (
    SELECT query_id, doc_id, position, estimate FROM ({{ model | indent(10) }}) AS model
),
modelled AS (  -- each slot's estimate of the logged document and of the new run's document at its position
    SELECT {{ listed('prefixed', logged + ['new_doc', 'same', 'unsupported', 'same_prefix', 'same_slate']) }},
           logged.estimate AS logged_estimate, proposed.estimate AS new_estimate
    FROM prefixed
    LEFT JOIN model AS logged
        ON logged.query_id = prefixed.query_id AND logged.doc_id = prefixed.doc_id AND logged.position = prefixed.position
    LEFT JOIN model AS proposed
        ON proposed.query_id = prefixed.query_id AND proposed.doc_id = prefixed.new_doc AND proposed.position = prefixed.position
){% endif %}{{ ',\nsessions AS (' if estimates }}

SELECT session_id,
       {{ ordered_sum('reward * same / propensity') }} AS iips,
       {{ ordered_sum('same / propensity') }} AS weights,
{% if 'prefix_propensity' in columns %}
       {{ ordered_sum('reward * same_prefix / prefix_propensity') }} AS rips,
{% endif %}
{% if 'slate_propensity' in columns %}
       {{ ordered_sum('reward * same_slate / slate_propensity') }} AS sips,
{% endif %}
{% if model %}
       {{ ordered_sum('new_estimate') }} AS dm,
       {{ ordered_sum('new_estimate + same / propensity * (reward - logged_estimate)') }} AS dr,
       CAST(SUM(CASE WHEN new_estimate IS NULL OR logged_estimate IS NULL THEN 1 ELSE 0 END) AS BIGINT) AS unmodelled_slots,
{% endif %}
       COUNT(*) AS slots,
       COUNT(new_doc) AS new_slots, CAST(SUM(unsupported) AS BIGINT) AS unsupported_slots,
       MIN(CASE WHEN unsupported = 1 THEN query_id || ' at ' || CAST(position AS {{ dialect.text() }}) END) AS unsupported_example
FROM {{ 'modelled' if model else 'prefixed' }}
GROUP BY session_id
{% if estimates %}
)
SELECT
{% for name in estimates %}
{% set unseen = 'SUM(unsupported_slots)' ~ (' + SUM(unmodelled_slots)' if name in ('dm', 'dr') else '') %}
       CASE WHEN {{ unseen }} = 0 THEN {% if name == 'snips' %}SUM(iips) / SUM(weights) * SUM(slots) / COUNT(*){% else %}AVG({{ 'iips' if name == 'ips' else name }}){% endif %} END AS {{ name }},
{% endfor %}
       COUNT(*) AS sessions, SUM(new_slots) AS new_slots, SUM(unsupported_slots) AS unsupported_slots{{ ', SUM(unmodelled_slots) AS unmodelled_slots' if model }}
FROM sessions
{% else %}
ORDER BY session_id
{% endif %}{{ dialect.settings() }}
