{#-
  A ranking whose measures read judged documents only: the run is ranked on its own (score desc
  and the tie-break, partitioned by query_number), then only its judged documents go on, with
  their rank among all retrieved, so the label join and running counts see a fraction of the
  rows; their running counts are partitioned by the 4-byte query number too (at 10M run rows
  about 0.2 s less than by the id text). When its measures read relevant documents only (or those
  with a gain), the join keeps the judgments from the lowest label they read (least_label): at 10M
  run rows, it builds on and outputs less than half of the judgments. depth (-M) cuts the ranking
  first. Measures that read how many documents a query retrieved read retrieved_counts. With judged_number (runs
  stored together, the judgments numbered once: sql/evaluation/prepared_steps.sql), each run's documents meet the
  judgments of their query by its judged number: the judgments are not repeated for each run.
-#}
{% import '_macros/evaluation.sql' as evaluation %}
{% set v = piece.ranking %}
run_ranked{{ v.sfx }} AS (
    SELECT evaluated_queries.query_number AS query_number,{% if judged_number %}

           evaluated_queries.judged_number AS judged_number,{% endif %}

           run.doc_id AS doc_id,
           ROW_NUMBER() OVER (PARTITION BY evaluated_queries.query_number ORDER BY {{ v.order }}) AS rank
    FROM run
    JOIN evaluated_queries ON evaluated_queries.query_id = run.query_id
),
{% if v.counts %}
retrieved_counts{{ v.sfx }} AS (
    SELECT query_number, COUNT(*) AS num_ret
    FROM run_ranked{{ v.sfx }}{% if v.depth is not none %}

    WHERE rank <= {{ v.depth | number }}{% endif %}

    GROUP BY query_number
),
{% endif %}
judged{{ v.sfx }} AS (
{% set numbered = 'evaluated_queries' if judged_number else 'numbered_qrels' %}
    SELECT {{ numbered }}.query_id AS query_id,
           {{ numbered }}.query_number AS query_number,
           run_ranked{{ v.sfx }}.doc_id AS doc_id,
           run_ranked{{ v.sfx }}.rank AS rank,
           numbered_qrels.relevance AS relevance{{ evaluation.columns(v.judged) }}
    FROM run_ranked{{ v.sfx }}
    JOIN numbered_qrels ON numbered_qrels.query_number = run_ranked{{ v.sfx }}.{{ 'judged_number' if judged_number else 'query_number' }}
                       AND numbered_qrels.doc_id = run_ranked{{ v.sfx }}.doc_id
{% if judged_number %}
    JOIN evaluated_queries ON evaluated_queries.query_number = run_ranked{{ v.sfx }}.query_number
{% endif %}
{% set kept = (['numbered_qrels.relevance ' ~ ('>' if v.least_label[1] else '>=') ~ ' ' ~ (v.least_label[0] | number)] if v.least_label is not none else [])
              + (['run_ranked' ~ v.sfx ~ '.rank <= ' ~ (v.depth | number)] if v.depth is not none else []) %}
{% if kept %}
    WHERE {{ kept | join(' AND ') }}
{% endif %}
),
ranked{{ v.sfx }} AS (
    SELECT judged{{ v.sfx }}.*{{ evaluation.columns(v.ranked) }}
    FROM judged{{ v.sfx }}{% if v.ranked %}

    WINDOW ranking AS (PARTITION BY query_number ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW){% endif %}

)
