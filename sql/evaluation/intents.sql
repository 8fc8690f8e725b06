{#-
  The family step "intents" of the diversity measures, for one relevance level (rel) and one alpha:
    {name}_judged     the subtopic judgments (query, subtopic, document) with label >= rel
    {name}_subtopics  each subtopic with a relevant document, with how many it has (S: how many subtopics)
    {name}_run        each retrieved relevant (document, subtopic): its rank, and seen, the documents above
                      it relevant to the same subtopic
    {name}_greedy     the ideal ranking, chosen one document at a time (a recursive step): the document
                      whose gain given those chosen before is highest, ties to the greater document id
                      (byte order), gains compared to 12 decimals; documents relevant to no subtopic add
                      nothing to any measure and are left out
    {name}_positions  the run's ranks (ideal = 0) and the ideal ranking's (ideal = 1), with their gain,
                      pairs, fresh and share (_macros/intents.sql), the fractions added subtopic by subtopic
                      (dialect.sum_in_order), so that a value has the same bits on every run
  then per query the columns the measures ask for. Reference: ndeval 4.5 (TREC Web track), idealResult.
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/intents.sql' as intents %}
{% set name, columns, m = piece.name, piece.columns, piece.measure %}
{% set novelty = intents.novelty(m) %}
{{ name }}_judged AS (
    SELECT subtopic_judgments.query_id AS query_id, subtopic_judgments.subtopic AS subtopic, subtopic_judgments.doc_id AS doc_id
    FROM subtopic_judgments
    JOIN evaluated_queries ON evaluated_queries.query_id = subtopic_judgments.query_id
    WHERE subtopic_judgments.relevance >= {{ m.level | number }}
),
{{ name }}_subtopics AS (
    SELECT query_id, subtopic, COUNT(*) AS relevant, COUNT(*) OVER (PARTITION BY query_id) AS subtopics
    FROM {{ name }}_judged
    GROUP BY query_id, subtopic
),
{{ name }}_run AS (
    SELECT ranked.query_id AS query_id, ranked.rank AS rank, judged.subtopic AS subtopic, subtopics.relevant AS relevant,
           ROW_NUMBER() OVER (PARTITION BY ranked.query_id, judged.subtopic ORDER BY ranked.rank) - 1 AS seen
    FROM {{ m.ranked }} AS ranked
    JOIN {{ name }}_judged AS judged ON judged.query_id = ranked.query_id AND judged.doc_id = ranked.doc_id
    JOIN {{ name }}_subtopics AS subtopics ON subtopics.query_id = judged.query_id AND subtopics.subtopic = judged.subtopic
),
{{ name }}_greedy (query_id, doc_id, subtopic, seen, picked, step, gain) AS (
    SELECT query_id, doc_id, subtopic, 0 AS seen, FALSE AS picked, 0 AS step, CAST(0 AS {{ DOUBLE }}) AS gain FROM {{ name }}_judged
    UNION ALL
    SELECT query_id, doc_id, subtopic,
           seen + MAX(CASE WHEN doc_id = chosen THEN 1 ELSE 0 END) OVER (PARTITION BY query_id, subtopic),
           doc_id = chosen, step + 1, doc_gain
    FROM (
        SELECT query_id, doc_id, subtopic, seen, step, doc_gain,
               FIRST_VALUE(doc_id) OVER (PARTITION BY query_id ORDER BY {{ dialect.round_to('doc_gain', 12) }} DESC, {{ dialect.byte_order('doc_id') }} DESC) AS chosen
        FROM (
            SELECT query_id, doc_id, subtopic, seen, step, SUM(POWER({{ novelty }}, seen)) OVER (PARTITION BY query_id, doc_id) AS doc_gain
            FROM {{ name }}_greedy
            WHERE NOT picked
        ) AS scored
    ) AS choosing
),
{{ name }}_positions AS (
    SELECT gains.*, counts.subtopics AS subtopics
    FROM (
        SELECT query_id, rank, 0 AS ideal, {{ dialect.sum_in_order('POWER(' ~ novelty ~ ', seen)', 'subtopic') }} AS gain,
               COUNT(*) AS pairs, SUM(CASE WHEN seen = 0 THEN 1 ELSE 0 END) AS fresh,
               {{ dialect.sum_in_order('CAST(seen + 1 AS ' ~ DOUBLE ~ ') / rank / relevant', 'subtopic') }} AS share
        FROM {{ name }}_run
        GROUP BY query_id, rank
        UNION ALL
        SELECT query_id, step AS rank, 1 AS ideal, MAX(gain) AS gain, 0 AS pairs, 0 AS fresh, 0 AS share
        FROM {{ name }}_greedy
        WHERE picked
        GROUP BY query_id, step
    ) AS gains
    JOIN (SELECT DISTINCT query_id, subtopics FROM {{ name }}_subtopics) AS counts ON counts.query_id = gains.query_id
),
{{ name }} AS (
    SELECT query_id{% for column in columns %},
           {{ column }}{% endfor %}

    FROM {{ name }}_positions
    GROUP BY query_id
)
