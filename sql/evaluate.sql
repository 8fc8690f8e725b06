{#-
  One evaluation as one statement. Shared steps are computed once:
    qrels, run          the inputs, typed (query_id, doc_id, relevance | score)
    evaluated_queries   which queries count (missing_queries: skip = both sides, zero = all qrels queries)
    judged              each retrieved document with its label (NULL when unjudged)
    ranked              rank by score desc, then doc_id desc (trec_eval's order), running counts
    judgments           per-query counts over all judgments (R)
    ideal, ideal_dcg    the ideal ranking of the judgments and its DCG (one pair per gain map)
    retrieved           per-query aggregates over the ranking
    per_query           one column per requested measure
  then one row per (query, measure), the aggregate over queries per measure, or both;
  or (output "relstring", trec_eval's relstring) the labels of each query's top documents as text.
  Context: built by sqlrank.templates.render_evaluation; every value is validated there.
-#}
{% import '_macros/gain.sql' as gains %}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/query_set.sql' as query_set %}
{%- macro aggregate(m) -%}
{%- if m.aggregate == 'sum' -%}
SUM({{ m.column }})
{%- elif m.aggregate == 'geometric' -%}
EXP(AVG(LN(CASE WHEN {{ m.column }} > CAST(0.00001 AS DOUBLE) THEN {{ m.column }} ELSE CAST(0.00001 AS DOUBLE) END)))
{%- else -%}
AVG({{ m.column }})
{%- endif -%}
{%- endmacro -%}
-- sqlrank {{ version }}: {{ measure_names | join(', ') }}
-- conventions: {{ conventions }}
WITH
qrels AS (
    {{ qrels_sql | indent(4) }}
),
run AS (
    {{ run_sql | indent(4) }}
),
{{ query_set.evaluated_queries('qrels', missing_queries) }},
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
{% if depth is not none or running_columns %}
    SELECT ordered.*{% for column in running_columns %},
           {{ column }}{% endfor %}

    FROM (
{% endif %}
    SELECT judged.*,
           ROW_NUMBER() OVER ranking AS rank{% for column in ranked_columns %},
           {{ column }}{% endfor %}

    FROM judged
    WINDOW ranking AS (PARTITION BY query_id ORDER BY {{ score_order }} DESC NULLS LAST, doc_id DESC
                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
{% if depth is not none or running_columns %}
    ) AS ordered
{% if depth is not none %}
    WHERE rank <= {{ depth | number }}
{% endif %}
{% if running_columns %}
    WINDOW running AS (PARTITION BY query_id ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
{% endif %}
{% endif %}
){% if output == 'relstring' %}

SELECT query_id,
       STRING_AGG(CASE WHEN relevance IS NULL THEN '-' WHEN relevance < 0 THEN '.' WHEN relevance > 9 THEN '>'
                       ELSE CAST(relevance AS VARCHAR) END, '' ORDER BY rank) AS relstring
FROM ranked
WHERE rank <= {{ relstring_length | number }}
GROUP BY query_id
{% else %},
{% if judgment_columns %}
judgments AS (
    SELECT qrels.query_id{% for column in judgment_columns %},
           {{ column }}{% endfor %}

    FROM qrels
    JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
    GROUP BY qrels.query_id
),
{% endif %}
{% for spec in gain_specs if spec.ideal_columns %}
ideal{{ spec.sfx }} AS (
    SELECT query_id,
           gain,
           rank{% if spec.detail %},
           SUM(gain / {{ dialect.log2('rank + 1') }}) OVER ideal_order AS dcg_so_far,
           SUM(CASE WHEN gain > 1 THEN gain - 1 ELSE 0 END) OVER ideal_order AS excess_so_far,
           LEAD(gain) OVER (PARTITION BY query_id ORDER BY rank) AS next_gain{% endif %}

    FROM (
        SELECT query_id,
               gain,
               ROW_NUMBER() OVER (PARTITION BY query_id ORDER BY gain DESC, doc_id DESC) AS rank
        FROM (
            SELECT qrels.query_id, qrels.doc_id, {{ gains.gain('qrels.relevance', spec) }} AS gain
            FROM qrels
            JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
        ) AS judged_gains
        WHERE gain > 0
    ) AS ideal_order{% if spec.detail %}

    WINDOW ideal_order AS (PARTITION BY query_id ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW){% endif %}

),
ideal_dcg{{ spec.sfx }} AS (
    SELECT query_id{% for column in spec.ideal_columns %},
           {{ column }}{% endfor %}

    FROM ideal{{ spec.sfx }}
    GROUP BY query_id
),
{% endfor %}
retrieved AS (
    SELECT ranked.query_id{% for column in retrieved_columns %},
           {{ column }}{% endfor %}

    FROM ranked
{% if rows_need_judgments %}
    JOIN judgments ON judgments.query_id = ranked.query_id
{% endif %}
    GROUP BY ranked.query_id
),
{% for cte in extra_ctes %}
{{ cte.sql }},
{% endfor %}
per_query AS (
    SELECT evaluated_queries.query_id{% for m in measures %},
           {{ m.value }} AS {{ m.column }}{% endfor %}

    FROM evaluated_queries
    LEFT JOIN retrieved ON retrieved.query_id = evaluated_queries.query_id
{% if judgment_columns %}
    LEFT JOIN judgments ON judgments.query_id = evaluated_queries.query_id
{% endif %}
{% for spec in gain_specs if spec.ideal_columns %}
    LEFT JOIN ideal_dcg{{ spec.sfx }} ON ideal_dcg{{ spec.sfx }}.query_id = evaluated_queries.query_id
{% endfor %}
{% for cte in extra_ctes %}
    LEFT JOIN {{ cte.name }} ON {{ cte.name }}.query_id = evaluated_queries.query_id
{% endfor %}
){% if output != 'per_query' %},
summary AS (
    SELECT {% for m in measures %}{{ aggregate(m) }} AS {{ m.column }}{% if not loop.last %},
{{ '           ' }}{% endif %}{% endfor %}

    FROM per_query
){% endif %}

{% if output != 'summary' %}
SELECT per_query.query_id,
       measures.measure,
       CASE measures.position{% for m in measures %}

           WHEN {{ loop.index }} THEN per_query.{{ m.column }}{% endfor %}

       END AS value
FROM per_query
CROSS JOIN (VALUES{% for m in measures %} ({{ loop.index }}, {{ m.name | literal }}){% if not loop.last %},{% endif %}{% endfor %}) AS measures (position, measure)
{% endif %}
{% if output == 'both' %}
UNION ALL
{% endif %}
{% if output != 'per_query' %}
SELECT {% if output == 'both' %}CAST(NULL AS VARCHAR) AS query_id,
       {% endif %}measures.measure,
       CASE measures.position{% for m in measures %}

           WHEN {{ loop.index }} THEN summary.{{ m.column }}{% endfor %}

       END AS value
FROM summary
CROSS JOIN (VALUES{% for m in measures %} ({{ loop.index }}, {{ m.name | literal }}){% if not loop.last %},{% endif %}{% endfor %}) AS measures (position, measure)
{% endif %}
{% if output == 'summary' %}
ORDER BY measures.position
{% elif output == 'per_query' %}
ORDER BY per_query.query_id, measures.position
{% endif %}
{% endif %}
