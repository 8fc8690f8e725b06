{#- The trained fusions' estimates (fusion/fuse.sql), from the runs' rankings of the judged queries, as ranx trains
    them: a document is relevant where its label is >= 1; every run is trained on the judged queries it ranks.
      posfuse, slidefuse  the share of relevant documents at each rank (over the rankings that reach it)
      probfuse            each segment's share (every ranking cut into n_segments of ceil(length / n) ranks), summed
                          over the rankings and divided by their number
      segfuse             the same over fixed segments (ranks 1-5, 6-15, 16-35, ... 2556-5115), each share over the
                          segment's size
      bayesfuse           the log odds of the mean precision of fixed segments (1-5, 6-10, 11-15, 16-20, 21-30, 31-100,
                          101-200, 201-500, 501-1000), a precision of 0 or 1 moved 0.001 inwards
      mapfuse             the run's mean average precision -#}
judgments AS (
    SELECT query_id, doc_id, relevance FROM ({{ qrels | indent(10) }}) AS judgments
),
training AS (
    SELECT ranked.run_number AS run_number, ranked.query_id AS query_id, ranked.rank AS rank,
           ranked.run_length AS run_length,
           CASE WHEN judgments.relevance >= 1 THEN 1 ELSE 0 END AS hit
    FROM ranked
    JOIN (SELECT DISTINCT query_id FROM judgments) AS judged_queries ON judged_queries.query_id = ranked.query_id
    LEFT JOIN judgments ON judgments.query_id = ranked.query_id AND judgments.doc_id = ranked.doc_id
),
training_queries AS (
    SELECT run_number, COUNT(DISTINCT query_id) AS queries FROM training GROUP BY run_number
),
{% if method in ('posfuse', 'slidefuse') %}
probabilities AS (
    SELECT run_number, rank, AVG(CAST(hit AS {{ D }})) AS probability FROM training GROUP BY run_number, rank
)
{% elif method == 'probfuse' %}
segmented AS (  -- per setting: n_segments is one of its parameters
    SELECT settings.setting AS setting, training.run_number AS run_number, training.query_id AS query_id,
           training.hit AS hit,
           FLOOR((training.rank - 1) / CEIL(training.run_length / settings.n_segments)) AS segment
    FROM training JOIN settings ON settings.run_number = training.run_number
),
probabilities AS (
    SELECT shares.setting AS setting, shares.run_number AS run_number, shares.segment AS segment,
           SUM(shares.share) / MAX(training_queries.queries) AS probability
    FROM (
        SELECT setting, run_number, query_id, segment, AVG(CAST(hit AS {{ D }})) AS share
        FROM segmented GROUP BY setting, run_number, query_id, segment
    ) AS shares
    JOIN training_queries ON training_queries.run_number = shares.run_number
    GROUP BY shares.setting, shares.run_number, shares.segment
)
{% elif method in ('segfuse', 'bayesfuse') %}
segments AS (
{% for low, high in segments %}
    SELECT {{ loop.index }} AS segment, {{ low | number }} AS low,
           {{ high | number }} AS high{{ '' if loop.last else ' UNION ALL' }}
{% endfor %}
),
shares AS (  -- each ranking's relevant documents in each segment, over the segment's size
    SELECT training.run_number AS run_number, training.query_id AS query_id, segments.segment AS segment,
           SUM(training.hit) / CAST(segments.high - segments.low AS {{ D }}) AS share
    FROM training JOIN segments ON training.rank > segments.low AND training.rank <= segments.high
    GROUP BY training.run_number, training.query_id, segments.segment, segments.low, segments.high
),
probabilities AS (
    SELECT training_queries.run_number AS run_number, segments.segment AS segment, segments.low AS low,
           segments.high AS high,
           COALESCE(SUM(shares.share), 0) / MAX(training_queries.queries) AS probability
    FROM training_queries
    CROSS JOIN segments
    LEFT JOIN shares ON shares.run_number = training_queries.run_number AND shares.segment = segments.segment
    GROUP BY training_queries.run_number, segments.segment, segments.low, segments.high
){% if method == 'bayesfuse' %},
log_odds AS (
    SELECT run_number, low, high,
           LN(precision / CASE WHEN 1 - precision = 0 THEN CAST(0.001 AS {{ D }}) ELSE 1 - precision END) AS log_odds
    FROM (
        SELECT run_number, low, high, CASE WHEN probability = 0 THEN CAST(0.001 AS {{ D }}) ELSE probability END AS precision
        FROM probabilities
    ) AS moved
)
{% endif %}
{% elif method == 'mapfuse' %}
relevant_counts AS (
    SELECT query_id, SUM(CASE WHEN relevance >= 1 THEN 1 ELSE 0 END) AS relevant FROM judgments GROUP BY query_id
),
average_precision AS (
    SELECT hits.run_number AS run_number, hits.query_id AS query_id,
           CASE WHEN MAX(relevant_counts.relevant) = 0 THEN 0
                ELSE SUM(CASE WHEN hits.hit = 1 THEN hits.found / CAST(hits.rank AS {{ D }}) ELSE 0 END) / MAX(relevant_counts.relevant) END AS ap
    FROM (
        SELECT run_number, query_id, rank, hit,
               SUM(hit) OVER (PARTITION BY run_number, query_id ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS found
        FROM training
    ) AS hits
    JOIN relevant_counts ON relevant_counts.query_id = hits.query_id
    GROUP BY hits.run_number, hits.query_id
),
mean_average_precision AS (
    SELECT run_number, AVG(ap) AS map FROM average_precision GROUP BY run_number
)
{% endif %}
