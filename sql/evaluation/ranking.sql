{#-
  A ranking: each retrieved document with its label (NULL when unjudged), ranked by score desc
  and the tie-break (trec_eval: doc_id desc), with the running columns its measures ask.
  depth (-M) cuts the ranking before judged_only (-J) drops unjudged documents, as trec_eval
  does; with tie_break=expected and the nDCG variants, windows over tie groups and running sums.
-#}
{% import '_macros/evaluation.sql' as evaluation %}
{% set v = piece.ranking %}
{#- With nonpositive_scores=nonrelevant, a retrieved document's label is not its judgment alone: the
    run's rows get their labels first (at most 0 where the score is <= 0), which the columns below
    read as relevance. -#}
{% set labelled = v.nonpositive_nonrelevant %}
judged{{ v.sfx }} AS (
    SELECT run.query_id AS query_id,
           evaluated_queries.query_number AS query_number,
           run.doc_id AS doc_id,
           run.score AS score{% if v.input_rank %},
           run.input_rank AS input_rank{% endif %},
           {{ 'run' if labelled else 'qrels' }}.relevance AS relevance{{ evaluation.columns(v.judged) }}
{% if v.judged_only and v.depth is not none %}
    FROM (
        SELECT run.*,
               ROW_NUMBER() OVER (PARTITION BY run.query_id ORDER BY {{ v.order }}) AS depth_rank
        FROM run
    ) AS run
{% elif labelled %}
    FROM (
        SELECT run.*,
               CASE WHEN run.score <= 0 AND qrels.relevance > 0 THEN 0 ELSE qrels.relevance END AS relevance
        FROM run
        LEFT JOIN qrels ON qrels.query_id = run.query_id AND qrels.doc_id = run.doc_id
    ) AS run
{% else %}
    FROM run
{% endif %}
    JOIN evaluated_queries ON evaluated_queries.query_id = run.query_id
{% if v.judged_only %}
    JOIN qrels ON qrels.query_id = run.query_id AND qrels.doc_id = run.doc_id
    WHERE qrels.relevance >= 0{% if v.depth is not none %} AND run.depth_rank <= {{ v.depth | number }}{% endif %}

{% elif not labelled %}
    LEFT JOIN qrels ON qrels.query_id = run.query_id AND qrels.doc_id = run.doc_id
{% endif %}
{% if v.popularity %}
    LEFT JOIN popularity ON popularity.doc_id = run.doc_id
{% endif %}
),
ranked{{ v.sfx }} AS (
{% if v.depth is not none or v.outer %}
    SELECT ordered.*{{ evaluation.columns(v.outer) }}
    FROM (
{% endif %}
    SELECT judged{{ v.sfx }}.*,
           ROW_NUMBER() OVER ranking AS rank{{ evaluation.columns(v.ranked) }}
    FROM judged{{ v.sfx }}
    WINDOW ranking AS (PARTITION BY query_number ORDER BY {{ v.order }}
                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
{% if v.depth is not none or v.outer %}
    ) AS ordered
{% if v.depth is not none %}
    WHERE rank <= {{ v.depth | number }}
{% endif %}
{% if v.outer %}
    WINDOW {% if v.running %}running AS (PARTITION BY query_id ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW){% if v.ties %},
           {% endif %}{% endif %}{% if v.ties %}tie AS (PARTITION BY query_id, {{ v.tie_key }}){% endif %}

{% endif %}
{% endif %}
)
