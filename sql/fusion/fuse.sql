{#-
  Rank fusion (fusing/fuse.py): several runs of the same queries fused into one, per query, in one statement.
    runs           every run's rows, numbered 1..R in the order given
    settings       each setting of the method (one; optimize= tries many): every run's weight (1 where the method
                   weighs none) and the method's parameters
    normalized     each run's scores normalised per query (norm), as ranx does: min-max, max, sum, zmuv, rank, borda
    ranked         each run's documents ranked by the normalised score (ties by the tie-break convention)
    training...    where the method is trained: the ranked documents of the judged queries, relevant (label >= 1) or not,
                   and the probabilities of relevance per rank or segment estimated from them
    contributions  what each run gives each document it ranks (the method's term)
    fused          the terms combined per document (the method's combination)
  Rows: query_id, doc_id, score (the fused score), rank (by score, ties by document id descending, as trec_eval);
  first the setting where there are several.
  Denominators never fall below 1e-9, as ranx's.
-#}
{% import '_macros/dialect.sql' as dialect %}
{% set D = DOUBLE %}
{% set per_run = '(PARTITION BY run_number, query_id)' %}
WITH
runs AS (
{% for run in runs %}
    SELECT {{ loop.index }} AS run_number, query_id, doc_id, CAST(score AS {{ D }}) AS score, input_rank
    FROM ({{ run | indent(10) }}) AS run_{{ loop.index }}
{% if not loop.last %}
    UNION ALL
{% endif %}
{% endfor %}
),
settings AS (
{% for setting in settings %}
{% set outer = loop %}
{% for weight in setting.weights %}
    SELECT {{ outer.index }} AS setting, {{ loop.index }} AS run_number, CAST({{ weight | number }} AS {{ D }}) AS weight
{%- for name, value in setting.params.items() %}, CAST({{ value | number }} AS {{ D }}) AS {{ name }}{% endfor %}{{ '' if outer.last and loop.last else ' UNION ALL' }}
{% endfor %}
{% endfor %}
),
{% if candidates %}
candidates AS (  -- every document some run ranks for the query, and how many there are
    SELECT query_id, doc_id, COUNT(*) OVER (PARTITION BY query_id) AS candidates
    FROM (SELECT DISTINCT query_id, doc_id FROM runs) AS distinct_documents
),
lengths AS (  -- every run's length for every query with candidates: 0 where it ranks none
    SELECT run_numbers.run_number AS run_number, queries.query_id AS query_id, queries.candidates AS candidates,
           COALESCE(counted.run_length, 0) AS run_length
    FROM (SELECT DISTINCT query_id, candidates FROM candidates) AS queries
    CROSS JOIN (SELECT DISTINCT run_number FROM settings) AS run_numbers
    LEFT JOIN (SELECT run_number, query_id, COUNT(*) AS run_length FROM runs GROUP BY run_number, query_id) AS counted
        ON counted.run_number = run_numbers.run_number AND counted.query_id = queries.query_id
),
{% endif %}
{% if norm in ('rank', 'borda') %}
positioned AS (
    SELECT run_number, query_id, doc_id, score, input_rank,
           ROW_NUMBER() OVER (PARTITION BY run_number, query_id ORDER BY {{ order }}) AS position,
           COUNT(*) OVER (PARTITION BY run_number, query_id) AS run_length
    FROM runs
),
{% elif norm == 'zmuv' %}
centred AS (
    SELECT run_number, query_id, doc_id, input_rank, score - AVG(score) OVER (PARTITION BY run_number, query_id) AS deviation
    FROM runs
),
{% endif %}
normalized AS (
{% if norm == 'borda' %}
    SELECT lengths.run_number AS run_number, lengths.query_id AS query_id, candidates.doc_id AS doc_id,
           positioned.input_rank AS input_rank,
           CASE WHEN positioned.doc_id IS NOT NULL THEN 1 - (positioned.position - 1) / CAST(candidates.candidates AS {{ D }})
                ELSE 0.5 - (lengths.run_length - 1) / (2 * CAST(candidates.candidates AS {{ D }})) END AS score
    FROM candidates
    JOIN lengths ON lengths.query_id = candidates.query_id
    LEFT JOIN positioned
        ON positioned.run_number = lengths.run_number AND positioned.query_id = candidates.query_id AND positioned.doc_id = candidates.doc_id
{% else %}
    SELECT run_number, query_id, doc_id, input_rank,
{% if norm == 'none' %}
           score{% if given_norm != 'none' %}  -- {{ given_norm }} keeps each run's order, all that {{ method }} reads{% endif %}

{% elif norm == 'min-max' %}
           (score - MIN(score) OVER {{ per_run }})
           / GREATEST(MAX(score) OVER {{ per_run }} - MIN(score) OVER {{ per_run }}, {{ epsilon }}) AS score
{% elif norm == 'min-max-inverted' %}
           (MAX(score) OVER {{ per_run }} - score)
           / GREATEST(MAX(score) OVER {{ per_run }} - MIN(score) OVER {{ per_run }}, {{ epsilon }}) AS score
{% elif norm == 'max' %}
           score / GREATEST(MAX(score) OVER {{ per_run }}, {{ epsilon }}) AS score
{% elif norm == 'sum' %}
           (score - MIN(score) OVER {{ per_run }})
           / GREATEST(SUM(score) OVER {{ per_run }}
                      - MIN(score) OVER {{ per_run }} * COUNT(*) OVER {{ per_run }}, {{ epsilon }}) AS score
{% elif norm == 'zmuv' %}
           deviation / GREATEST(SQRT(AVG(deviation * deviation) OVER {{ per_run }}), {{ epsilon }}) AS score
{% elif norm == 'rank' %}
           1 - (position - 1) / CAST(run_length AS {{ D }}) AS score
{% endif %}
    FROM {{ 'positioned' if norm == 'rank' else 'centred' if norm == 'zmuv' else 'runs' }}
{% endif %}
){% if ranks %},
ranked AS (
    SELECT run_number, query_id, doc_id, score,
           ROW_NUMBER() OVER (PARTITION BY run_number, query_id ORDER BY {{ order }}) AS rank,
           COUNT(*) OVER (PARTITION BY run_number, query_id) AS run_length
    FROM normalized
){% endif %}
{% if training %},
{% include 'fusion/training.sql' %}
{% endif %}
,
{% include 'fusion/combined.sql' %}

SELECT {{ 'setting, ' if settings | length > 1 }}query_id, doc_id, score, rank
FROM (
    SELECT setting, query_id, doc_id, score,
           ROW_NUMBER() OVER (PARTITION BY setting, query_id ORDER BY {{ fused_order }}) AS rank
    FROM fused
) AS fused_ranking
{% if depth is not none %}
WHERE rank <= {{ depth | number }}
{% endif %}
ORDER BY {{ 'setting, ' if settings | length > 1 }}query_id, rank{{ dialect.settings() }}
