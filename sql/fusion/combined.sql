{#- What each run gives each document it ranks (contributions), and the fused score (fused), per setting and method
    (fusion/fuse.sql; the formulas are ranx's). R is the number of runs; min_odds BayesFuse's log odds of a document a
    run does not rank, ln(0.001 / 0.999) (unranked_log_odds, a literal). -#}
{% set R = runs | length %}
{#- A sum over the runs added in their order, as ranx adds: the same bits on every run of the statement (DuckDB's SUM
    adds in the order its threads deliver the rows). -#}
{% macro run_sum(x, number='run_number') %}{% if dialect_name() == 'duckdb' %}list_sum(list({{ x }} ORDER BY {{ number }})){% else %}SUM({{ x }}){% endif %}{% endmacro %}
{% set min_odds = unranked_log_odds | number %}
{% if family == 'pairs' %}
positions AS (  -- every candidate's position in every run: 1000000 where the run does not rank it (ranx's)
    SELECT candidates.query_id AS query_id, candidates.doc_id AS doc_id, run_numbers.run_number AS run_number,
           COALESCE(ranked.rank, 1000000) AS position
    FROM candidates
    CROSS JOIN (SELECT DISTINCT run_number FROM settings) AS run_numbers
    LEFT JOIN ranked
        ON ranked.run_number = run_numbers.run_number AND ranked.query_id = candidates.query_id AND ranked.doc_id = candidates.doc_id
),
duels AS (  -- for each pair of candidates, the weight of the runs that put the first above the second, and below
    SELECT settings.setting AS setting, a.query_id AS query_id, a.doc_id AS doc_id, b.doc_id AS other,
           {{ run_sum('CASE WHEN a.position < b.position THEN settings.weight ELSE 0 END', 'a.run_number') }} AS above,
           {{ run_sum('CASE WHEN b.position < a.position THEN settings.weight ELSE 0 END', 'a.run_number') }} AS below
    FROM positions AS a
    JOIN positions AS b ON b.query_id = a.query_id AND b.run_number = a.run_number AND b.doc_id <> a.doc_id
    JOIN settings ON settings.run_number = a.run_number
    GROUP BY settings.setting, a.query_id, a.doc_id, b.doc_id
),
fused AS (  -- 1 + the candidates each one beats (Copeland's count; a tie counts half)
    SELECT setting_numbers.setting AS setting, candidates.query_id AS query_id, candidates.doc_id AS doc_id,
           1 + COALESCE(SUM(CASE WHEN duels.above > duels.below THEN 1 WHEN duels.above = duels.below THEN 0.5 ELSE 0 END), 0) AS score
    FROM candidates
    CROSS JOIN (SELECT DISTINCT setting FROM settings) AS setting_numbers
    LEFT JOIN duels
        ON duels.setting = setting_numbers.setting AND duels.query_id = candidates.query_id AND duels.doc_id = candidates.doc_id
    GROUP BY setting_numbers.setting, candidates.query_id, candidates.doc_id
)
{% else %}
{% if method == 'slidefuse' %}
windows AS (  -- the probabilities of the ranks within w of each document's, inside its run's length
    SELECT settings.setting AS setting, ranked.run_number AS run_number, ranked.query_id AS query_id,
           ranked.doc_id AS doc_id,
           {{ run_sum('probabilities.probability', 'probabilities.rank') }} AS probability
    FROM ranked
    JOIN settings ON settings.run_number = ranked.run_number
    JOIN probabilities ON probabilities.run_number = ranked.run_number
        AND probabilities.rank BETWEEN GREATEST(ranked.rank - settings.w, CAST(1 AS {{ D }}))
                                   AND LEAST(ranked.rank + settings.w, CAST(ranked.run_length AS {{ D }}))
    GROUP BY settings.setting, ranked.run_number, ranked.query_id, ranked.doc_id
),
{% endif %}
contributions AS (
    SELECT settings.setting AS setting, scored.run_number AS run_number, scored.query_id AS query_id,
           scored.doc_id AS doc_id, settings.weight AS weight,
           {% for name in param_names %} settings.{{ name }} AS {{ name }}, {% endfor %}

{% if method == 'rrf' %}
           1 / (settings.k + scored.rank) AS term
{% elif method in ('isr', 'log_isr', 'logn_isr') %}
           1 / CAST(scored.rank * scored.rank AS {{ D }}) AS term
{% elif method == 'rbc' %}
           (1 - settings.phi) * POWER(settings.phi, scored.rank - 1) AS term
{% elif method in ('bordafuse', 'w_bordafuse') %}
           lengths.candidates - scored.rank + 1 - (lengths.candidates - lengths.run_length + 1) / CAST(2 AS {{ D }}) AS term
{% elif method == 'posfuse' %}
           COALESCE(probabilities.probability, 0) AS term
{% elif method == 'probfuse' %}
           COALESCE(probabilities.probability / (probabilities.segment + 1), 0) AS term
{% elif method == 'segfuse' %}
           COALESCE(probabilities.probability, 0) * (scored.score + 1) AS term
{% elif method == 'slidefuse' %}
           COALESCE(windows.probability, 0)
           / (LEAST(scored.rank + settings.w, CAST(scored.run_length AS {{ D }}))
              - GREATEST(scored.rank - settings.w, CAST(1 AS {{ D }})) + 1) AS term
{% elif method == 'mapfuse' %}
           COALESCE(mean_average_precision.map, 0) / CAST(scored.rank AS {{ D }}) AS term
{% elif method == 'bayesfuse' %}
           COALESCE(log_odds.log_odds, {{ min_odds }}) AS term
{% else %}
           scored.score AS term
{% endif %}
    FROM {{ 'ranked' if ranks else 'normalized' }} AS scored
    JOIN settings ON settings.run_number = scored.run_number
{% if method in ('bordafuse', 'w_bordafuse') %}
    JOIN lengths ON lengths.run_number = scored.run_number AND lengths.query_id = scored.query_id
{% elif method == 'posfuse' %}
    LEFT JOIN probabilities ON probabilities.run_number = scored.run_number AND probabilities.rank = scored.rank
{% elif method == 'probfuse' %}
    LEFT JOIN probabilities ON probabilities.setting = settings.setting AND probabilities.run_number = scored.run_number
        AND probabilities.segment = FLOOR((scored.rank - 1) / CEIL(scored.run_length / settings.n_segments))
{% elif method == 'segfuse' %}
    LEFT JOIN probabilities ON probabilities.run_number = scored.run_number
        AND scored.rank > probabilities.low AND scored.rank <= probabilities.high
{% elif method == 'bayesfuse' %}
    LEFT JOIN log_odds ON log_odds.run_number = scored.run_number AND scored.rank > log_odds.low AND scored.rank <= log_odds.high
{% elif method == 'slidefuse' %}
    LEFT JOIN windows ON windows.setting = settings.setting AND windows.run_number = scored.run_number
        AND windows.query_id = scored.query_id AND windows.doc_id = scored.doc_id
{% elif method == 'mapfuse' %}
    LEFT JOIN mean_average_precision ON mean_average_precision.run_number = scored.run_number
{% endif %}
),
{% if method == 'med' %}
ordered_terms AS (
    SELECT setting, query_id, doc_id, term,
           ROW_NUMBER() OVER (PARTITION BY setting, query_id, doc_id ORDER BY term) AS position,
           COUNT(*) OVER (PARTITION BY setting, query_id, doc_id) AS terms
    FROM contributions
),
{% endif %}
{% if method in ('bordafuse', 'w_bordafuse') %}
unranked_points AS (  -- what every run gives the candidates it does not rank, summed over the runs
    SELECT settings.setting AS setting, lengths.query_id AS query_id,
           {{ run_sum('settings.weight * ((lengths.candidates - lengths.run_length + 1) / CAST(2 AS ' ~ D ~ '))', 'lengths.run_number') }} AS points
    FROM lengths JOIN settings ON settings.run_number = lengths.run_number
    GROUP BY settings.setting, lengths.query_id
),
{% endif %}
{% set terms = 'ordered_terms' if method == 'med' else 'contributions' %}
fused AS (
    SELECT {{ terms }}.setting AS setting, {{ terms }}.query_id AS query_id, {{ terms }}.doc_id AS doc_id,
{% if method == 'max' %}
           CASE WHEN COUNT(*) < {{ R }} THEN GREATEST(MAX(term), -1e9) ELSE MAX(term) END AS score
{% elif method == 'min' %}
           CASE WHEN COUNT(*) < {{ R }} THEN LEAST(MIN(term), 1e9) ELSE MIN(term) END AS score
{% elif method == 'med' %}
           AVG(CASE WHEN 2 * position IN (terms, terms + 1, terms + 2) THEN term END) AS score
{% elif method == 'anz' %}
           {{ run_sum('term') }} / COUNT(*) AS score
{% elif method in ('mnz', 'isr') %}
           {{ run_sum('term') }} * COUNT(*) AS score
{% elif method == 'gmnz' %}
           {{ run_sum('term') }} * POWER(CAST(COUNT(*) AS {{ D }}), MAX(gamma)) AS score
{% elif method == 'log_isr' %}
           {{ run_sum('term') }} * LN(CAST(COUNT(*) AS {{ D }})) AS score
{% elif method == 'logn_isr' %}
           {{ run_sum('term') }} * LN(COUNT(*) + MAX(sigma)) AS score
{% elif method in ('wsum', 'w_bordafuse') %}
           {{ run_sum('weight * term') }}{% if method == 'w_bordafuse' %} + MAX(unranked_points.points){% endif %} AS score
{% elif method == 'wmnz' %}
           {{ run_sum('term') }} * {{ run_sum('weight') }} AS score
{% elif method == 'mixed' %}
           {{ run_sum('weight * term') }} * SQRT(CAST(COUNT(*) AS {{ D }})) AS score
{% elif method == 'bordafuse' %}
           {{ run_sum('term') }} + MAX(unranked_points.points) AS score
{% elif method == 'bayesfuse' %}
           {{ run_sum('term - ' ~ min_odds) }} + {{ R }} * {{ min_odds }} AS score
{% else %}
           {{ run_sum('term') }} AS score
{% endif %}
    FROM {{ terms }}
{% if method in ('bordafuse', 'w_bordafuse') %}
    JOIN unranked_points ON unranked_points.setting = contributions.setting AND unranked_points.query_id = contributions.query_id
{% endif %}
    GROUP BY {{ terms }}.setting, {{ terms }}.query_id, {{ terms }}.doc_id
)
{% endif %}
