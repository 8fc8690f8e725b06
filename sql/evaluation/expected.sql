{#-
  The family step "expected" of the expected exposure measures, for one patience p and cutoff k:
    {name}_ranked    each sampled ranking of each evaluated query ranked (score descending, ties by document
                     id descending, as expeval sorts them), with how many samples the query has
    {name}_exposed   each document's expected exposure: p^(rank - 1) over its ranks <= k, summed and divided
                     by the query's samples (a sample without the document adds 0)
    {name}_targets   each relevant document's target exposure (labels > 0, by grade, best first): the m
                     documents of a grade below b better ones share the exposure of ranks b + 1 .. b + m,
                     (p^b - p^(b + m)) / (m (1 - p))
  then per query, over the documents in either, the columns the measures ask for. Sums of fractions are added in the
  order of the samples and of the documents (dialect.sum_in_order), so that a value has the same bits on every run.
  Reference: Diaz, Mitra, Ekstrand, Biega & Carterette (CIKM 2020); expeval (exposure.py, target and expected).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/judging.sql' as judging %}
{% set name, columns, m = piece.name, piece.columns, piece.measure %}
{% set p = judging.real(m.p) %}
{% set sample = 'sample' | ident %}
{{ name }}_ranked AS (
    SELECT samples.query_id AS query_id, samples.doc_id AS doc_id, samples.{{ sample }} AS sample_id,
           ROW_NUMBER() OVER (PARTITION BY samples.query_id, samples.{{ sample }}
                              ORDER BY samples.score DESC NULLS LAST, {{ dialect.byte_order('samples.doc_id') }} DESC) AS rank,
           counts.samples AS samples
    FROM sampled_rankings AS samples
    JOIN evaluated_queries ON evaluated_queries.query_id = samples.query_id
    JOIN (SELECT query_id, COUNT(DISTINCT {{ sample }}) AS samples FROM sampled_rankings GROUP BY query_id) AS counts
      ON counts.query_id = samples.query_id
),
{{ name }}_exposed AS (
    SELECT query_id, doc_id, {{ dialect.sum_in_order('POWER(' ~ p ~ ', rank - 1)', 'sample_id') }} / MAX(samples) AS exposure
    FROM {{ name }}_ranked{% if m.cutoff is not none %}

    WHERE rank <= {{ m.cutoff | number }}{% endif %}

    GROUP BY query_id, doc_id
),
{{ name }}_targets AS (
    SELECT query_id, doc_id, (POWER({{ p }}, through - size) - POWER({{ p }}, through)) / (size * (1 - {{ p }})) AS target
    FROM (
        SELECT qrels.query_id AS query_id, qrels.doc_id AS doc_id,
               COUNT(*) OVER (PARTITION BY qrels.query_id, qrels.relevance) AS size,
               COUNT(*) OVER (PARTITION BY qrels.query_id ORDER BY qrels.relevance DESC
                              RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS through
        FROM qrels
        JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
        WHERE qrels.relevance > 0
    ) AS levels
),
{{ name }}_pairs AS (
    SELECT COALESCE(exposed.query_id, targets.query_id) AS query_id,
           COALESCE(exposed.doc_id, targets.doc_id) AS doc_id,
           COALESCE(exposed.exposure, 0) AS exposure,
           COALESCE(targets.target, 0) AS target
    FROM {{ name }}_exposed AS exposed
    FULL OUTER JOIN {{ name }}_targets AS targets ON targets.query_id = exposed.query_id AND targets.doc_id = exposed.doc_id
),
{{ name }} AS (
    SELECT query_id{% for column in columns %},
           {{ column }}{% endfor %}

    FROM {{ name }}_pairs
    GROUP BY query_id
)
