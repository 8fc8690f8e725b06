-- sqlrank 0.1.0: AP_IA
-- conventions: tie_break=trec_eval, gain=linear, discount=log, log_base=2, ideal=qrels, ap_denominator=num_rel,
--   rel=1, missing_queries=skip, unjudged_queries=skip, no_relevant=zero, judged_only=false, unjudged_label=none,
--   nonpositive_scores=rank, duplicate_documents=refuse, depth=none, trec_eval_version=10
WITH RECURSIVE
qrels AS (
    SELECT query_id, doc_id, relevance FROM qrels
),
run AS (
    SELECT query_id, doc_id, score FROM run
),
evaluated_queries AS (
    SELECT query_id,
           CAST(ROW_NUMBER() OVER (ORDER BY query_id) AS INTEGER) AS query_number
    FROM (
        SELECT DISTINCT query_id FROM qrels
        INTERSECT
        SELECT DISTINCT query_id FROM run
    ) AS query_ids
),
subtopic_judgments AS (
    SELECT query_id, subtopic, doc_id, relevance FROM intents
),
numbered_qrels AS MATERIALIZED (
    SELECT qrels.query_id AS query_id,
           evaluated_queries.query_number AS query_number,
           qrels.doc_id AS doc_id,
           qrels.relevance AS relevance
    FROM qrels
    JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
),
run_ranked AS (
    SELECT evaluated_queries.query_number AS query_number,
           run.doc_id AS doc_id,
           ROW_NUMBER() OVER (PARTITION BY evaluated_queries.query_number ORDER BY score DESC NULLS LAST, doc_id DESC) AS rank
    FROM run
    JOIN evaluated_queries ON evaluated_queries.query_id = run.query_id
),
judged AS (
    SELECT numbered_qrels.query_id AS query_id,
           numbered_qrels.query_number AS query_number,
           run_ranked.doc_id AS doc_id,
           run_ranked.rank AS rank,
           numbered_qrels.relevance AS relevance
    FROM run_ranked
    JOIN numbered_qrels ON numbered_qrels.query_number = run_ranked.query_number
                       AND numbered_qrels.doc_id = run_ranked.doc_id
    WHERE numbered_qrels.relevance >= 1
),
ranked AS (
    SELECT judged.*
    FROM judged
),
retrieved AS (
    SELECT ranked.query_id AS query_id
    FROM ranked
    GROUP BY ranked.query_id
),
intents_1_0p5_judged AS (
    SELECT subtopic_judgments.query_id AS query_id, subtopic_judgments.subtopic AS subtopic, subtopic_judgments.doc_id AS doc_id
    FROM subtopic_judgments
    JOIN evaluated_queries ON evaluated_queries.query_id = subtopic_judgments.query_id
    WHERE subtopic_judgments.relevance >= 1
),
intents_1_0p5_subtopics AS (
    SELECT query_id, subtopic, COUNT(*) AS relevant, COUNT(*) OVER (PARTITION BY query_id) AS subtopics
    FROM intents_1_0p5_judged
    GROUP BY query_id, subtopic
),
intents_1_0p5_run AS (
    SELECT ranked.query_id AS query_id, ranked.rank AS rank, judged.subtopic AS subtopic, subtopics.relevant AS relevant,
           ROW_NUMBER() OVER (PARTITION BY ranked.query_id, judged.subtopic ORDER BY ranked.rank) - 1 AS seen
    FROM ranked AS ranked
    JOIN intents_1_0p5_judged AS judged ON judged.query_id = ranked.query_id AND judged.doc_id = ranked.doc_id
    JOIN intents_1_0p5_subtopics AS subtopics ON subtopics.query_id = judged.query_id AND subtopics.subtopic = judged.subtopic
),
intents_1_0p5_greedy (query_id, doc_id, subtopic, seen, picked, step, gain) AS (
    SELECT query_id, doc_id, subtopic, 0 AS seen, FALSE AS picked, 0 AS step, CAST(0 AS DOUBLE) AS gain FROM intents_1_0p5_judged
    UNION ALL
    SELECT query_id, doc_id, subtopic,
           seen + MAX(CASE WHEN doc_id = chosen THEN 1 ELSE 0 END) OVER (PARTITION BY query_id, subtopic),
           doc_id = chosen, step + 1, doc_gain
    FROM (
        SELECT query_id, doc_id, subtopic, seen, step, doc_gain,
               FIRST_VALUE(doc_id) OVER (PARTITION BY query_id ORDER BY ROUND(doc_gain, 12) DESC, doc_id DESC) AS chosen
        FROM (
            SELECT query_id, doc_id, subtopic, seen, step,
                SUM(POWER((1 - CAST(0.5 AS DOUBLE)), seen)) OVER (PARTITION BY query_id, doc_id) AS doc_gain
            FROM intents_1_0p5_greedy
            WHERE NOT picked
        ) AS scored
    ) AS choosing
),
intents_1_0p5_positions AS (
    SELECT gains.*, counts.subtopics AS subtopics
    FROM (
        SELECT query_id, rank, 0 AS ideal, list_sum(list(POWER((1 - CAST(0.5 AS DOUBLE)), seen) ORDER BY subtopic)) AS gain,
               COUNT(*) AS pairs, SUM(CASE WHEN seen = 0 THEN 1 ELSE 0 END) AS fresh,
               list_sum(list(CAST(seen + 1 AS DOUBLE) / rank / relevant ORDER BY subtopic)) AS share
        FROM intents_1_0p5_run
        GROUP BY query_id, rank
        UNION ALL
        SELECT query_id, step AS rank, 1 AS ideal, MAX(gain) AS gain, 0 AS pairs, 0 AS fresh, 0 AS share
        FROM intents_1_0p5_greedy
        WHERE picked
        GROUP BY query_id, step
    ) AS gains
    JOIN (SELECT DISTINCT query_id, subtopics FROM intents_1_0p5_subtopics) AS counts ON counts.query_id = gains.query_id
),
intents_1_0p5 AS (
    SELECT query_id,
           list_sum(list(CASE WHEN ideal = 0 THEN share ELSE 0 END ORDER BY ideal, rank)) AS ia_1_0p5_share_all,
           MAX(subtopics) AS ia_1_0p5_subtopics
    FROM intents_1_0p5_positions
    GROUP BY query_id
),
per_query AS (
    SELECT evaluated_queries.query_id AS query_id,
           COALESCE(CAST(ia_1_0p5_share_all AS DOUBLE) / NULLIF(ia_1_0p5_subtopics, 0), 0) AS ap_ia
    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
    LEFT JOIN intents_1_0p5 ON intents_1_0p5.query_id = evaluated_queries.query_id
),
summary AS (
    SELECT COUNT(*) AS num_queries,
           list_sum(list(per_query.ap_ia ORDER BY per_query.query_id)) / COUNT(per_query.ap_ia) AS ap_ia
    FROM per_query
)
SELECT measures.measure AS measure,
       CASE measures.position
           WHEN 1 THEN summary.ap_ia
       END AS value
FROM summary
CROSS JOIN (
    VALUES
        (1, 'AP_IA')
) AS measures (position, measure)
ORDER BY measures.position
