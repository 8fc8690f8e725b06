{#-
  One evaluation as one statement. Shared steps are computed once:
    qrels, run          the inputs, typed (query_id, doc_id, relevance | score)
    evaluated_queries   which queries count (missing_queries: skip = both sides, zero = all qrels queries)
    judged              each retrieved document with its label (NULL when unjudged)
    ranked              rank by score desc, then doc_id desc (trec_eval's order), running counts
    judgments           per-query counts over all judgments (R)
    ideal, ideal_dcg    the ideal ranking of the judgments and its DCG
    retrieved           per-query aggregates over the ranking
    per_query           one column per requested measure
  then either one row per (query, measure) or the aggregate over queries per measure.
  Context: built by sqlrank.templates.render_evaluation; every value is validated there.
-#}
{% import '_macros/gain.sql' as gains %}
-- sqlrank {{ version }}: {{ measure_names | join(', ') }}
-- conventions: {{ conventions }}
WITH
qrels AS (
    {{ qrels_sql | indent(4) }}
),
run AS (
    {{ run_sql | indent(4) }}
),
evaluated_queries AS (
    SELECT DISTINCT query_id FROM qrels
{% if missing_queries == 'skip' %}
    INTERSECT
    SELECT DISTINCT query_id FROM run
{% endif %}
),
judged AS (
    SELECT run.query_id,
           run.doc_id,
           run.score,
           qrels.relevance{% for column in judged_columns %},
           {{ column }}{% endfor %}

    FROM run
    JOIN evaluated_queries ON evaluated_queries.query_id = run.query_id
{% if judged_only %}
    JOIN qrels ON qrels.query_id = run.query_id AND qrels.doc_id = run.doc_id
    WHERE qrels.relevance >= 0
{% else %}
    LEFT JOIN qrels ON qrels.query_id = run.query_id AND qrels.doc_id = run.doc_id
{% endif %}
),
ranked AS (
    SELECT judged.*,
           ROW_NUMBER() OVER ranking AS rank{% for column in ranked_columns %},
           {{ column }}{% endfor %}

    FROM judged
    WINDOW ranking AS (PARTITION BY query_id ORDER BY score DESC NULLS LAST, doc_id DESC
                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
{% if judgment_columns %}
judgments AS (
    SELECT qrels.query_id{% for column in judgment_columns %},
           {{ column }}{% endfor %}

    FROM qrels
    JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
    GROUP BY qrels.query_id
),
{% endif %}
{% if ideal_columns %}
ideal AS (
    SELECT query_id,
           gain,
           ROW_NUMBER() OVER (PARTITION BY query_id ORDER BY gain DESC, doc_id DESC) AS rank
    FROM (
        SELECT qrels.query_id, qrels.doc_id, {{ gains.gain('qrels.relevance') }} AS gain
        FROM qrels
        JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
    ) AS judged_gains
    WHERE gain > 0
),
ideal_dcg AS (
    SELECT query_id{% for column in ideal_columns %},
           {{ column }}{% endfor %}

    FROM ideal
    GROUP BY query_id
),
{% endif %}
retrieved AS (
    SELECT ranked.query_id{% for column in retrieved_columns %},
           {{ column }}{% endfor %}

    FROM ranked
{% if rows_need_judgments %}
    JOIN judgments ON judgments.query_id = ranked.query_id
{% endif %}
{% if depth is not none %}
    WHERE rank <= {{ depth | number }}
{% endif %}
    GROUP BY ranked.query_id
),
per_query AS (
    SELECT evaluated_queries.query_id{% for m in measures %},
           {{ m.value }} AS {{ m.column }}{% endfor %}

    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
{% if judgment_columns %}
    LEFT JOIN judgments ON judgments.query_id = evaluated_queries.query_id
{% endif %}
{% if ideal_columns %}
    LEFT JOIN ideal_dcg ON ideal_dcg.query_id = evaluated_queries.query_id
{% endif %}
{% if per_query %}
)
SELECT per_query.query_id,
       measures.measure,
       CASE measures.position{% for m in measures %}

           WHEN {{ loop.index }} THEN per_query.{{ m.column }}{% endfor %}

       END AS value
FROM per_query
CROSS JOIN (VALUES{% for m in measures %} ({{ loop.index }}, {{ m.name | literal }}){% if not loop.last %},{% endif %}{% endfor %}) AS measures (position, measure)
ORDER BY per_query.query_id, measures.position
{% else %}
),
summary AS (
    SELECT {% for m in measures %}{{ 'SUM' if m.aggregate == 'sum' else 'AVG' }}({{ m.column }}) AS {{ m.column }}{% if not loop.last %},
{{ '           ' }}{% endif %}{% endfor %}

    FROM per_query
)
SELECT measures.measure,
       CASE measures.position{% for m in measures %}

           WHEN {{ loop.index }} THEN summary.{{ m.column }}{% endfor %}

       END AS value
FROM summary
CROSS JOIN (VALUES{% for m in measures %} ({{ loop.index }}, {{ m.name | literal }}){% if not loop.last %},{% endif %}{% endfor %}) AS measures (position, measure)
ORDER BY measures.position
{% endif %}
