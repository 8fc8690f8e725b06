{#-
  One evaluation as one statement. Shared steps are computed once:
    qrels, run          the inputs, typed (query_id, doc_id, relevance | score)
    evaluated_queries   which queries count (missing_queries: skip = both sides, zero = all qrels queries)
    judgments           per-query counts over all judgments (R)
    ideal*              ideal rankings (of the judgments, or of the retrieved documents) and their DCG
    judged, ranked      each retrieved document with its label (NULL when unjudged), ranked by
                        score desc and the tie-break (trec_eval: doc_id desc), with running counts;
                        when the measures read judged documents only (templates._sparse), the run
                        is ranked on its own (run_ranked, partitioned by query_number) and only its
                        judged documents go on (joined to numbered_qrels), so the label join and
                        running counts see a fraction of the rows;
                        depth (-M) cuts the ranking before judged_only (-J) drops unjudged documents,
                        as trec_eval does (SEMANTICS.md sec. 1, steps 4 and 8);
                        one pair per distinct ranking (tie_break, judged_only, depth) the measures ask for
    retrieved           per-query aggregates over a ranking
    per_query           one column per requested measure
  then one row per (query, measure), the aggregate over queries per measure, or both;
  or (output "segments") the aggregate over all queries and over each segment's queries
  (segment, num_queries, measure, value; the overall row has segment NULL);
  or (output "relstring", trec_eval's relstring) the labels of each query's top documents as text.
  With by_run (runs stored together), run query keys are run_id || chr(31) || query_id, the
  judgments are repeated for each run under the same keys, and the results carry run_id.
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
{%- macro columns(items) -%}
{% for column in items %},
           {{ column }}{% endfor %}
{%- endmacro -%}
{%- macro population(m, value) -%}
{%- if mixed_population and m.missing_queries == 'skip' -%}
CASE WHEN answered_queries.query_id IS NOT NULL THEN {{ value }} END
{%- else -%}
{{ value }}
{%- endif -%}
{%- endmacro -%}

{#- Results one row per (.., measure): the measure's column picked by position, against the
    rows of the requested measures, in order. -#}
{%- macro measure_case(source) -%}
CASE measures.position{% for m in measures %} WHEN {{ loop.index }} THEN {{ source }}.{{ m.column }}{% endfor %} END
{%- endmacro -%}
{%- macro measure_value(source) -%}
CASE measures.position{% for m in measures %}

           WHEN {{ loop.index }} THEN {{ source }}.{{ m.column }}{% endfor %}

       END AS value
{%- endmacro -%}
{%- macro measure_rows() -%}
CROSS JOIN (VALUES{% for m in measures %} ({{ loop.index }}, {{ m.name | literal }}){% if not loop.last %},{% endif %}{% endfor %}) AS measures (position, measure)
{%- endmacro -%}
{%- macro summary_columns() -%}
{% for m in measures %},
           {{ aggregate(m) }} AS {{ m.column }}{% endfor %}
{%- endmacro -%}

{%- macro ideal_ctes(spec) -%}
{{ spec.name }} AS (
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
{% if spec.source == 'qrels' %}
            SELECT qrels.query_id, qrels.doc_id, {{ gains.gain('qrels.relevance', spec.gain) }} AS gain
            FROM qrels
            JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
{% else %}
            SELECT query_id, doc_id, gain{{ spec.gain.sfx }} AS gain
            FROM ranked{{ spec.ranking }}
{% endif %}
        ) AS judged_gains
        WHERE gain > 0
    ) AS ideal_order{% if spec.detail %}

    WINDOW ideal_order AS (PARTITION BY query_id ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW){% endif %}

),
{{ spec.name }}_dcg AS (
    SELECT query_id{{ columns(spec.columns) }}
    FROM {{ spec.name }}
    GROUP BY query_id
)
{%- endmacro -%}
-- sqlrank {{ version }}: {{ measure_names | join(', ') }}
-- conventions: {{ conventions }}
{% set input_hint = dialect.inline() if reread_inputs else '' %}
WITH
{% if by_run %}
run AS {{ input_hint }}(
    {{ run_sql | indent(4) }}
),
qrels AS {{ input_hint }}(
    SELECT run_ids.run_id || chr(31) || judged.query_id AS query_id,
           judged.doc_id,
           judged.relevance
    FROM (
        {{ qrels_sql | indent(8) }}
    ) AS judged
    CROSS JOIN (SELECT DISTINCT {{ dialect.before_separator('query_id') }} AS run_id FROM run) AS run_ids
),
{% else %}
qrels AS {{ input_hint }}(
    {{ qrels_sql | indent(4) }}
),
run AS {{ input_hint }}(
    {{ run_sql | indent(4) }}
),
{% endif %}
{{ query_set.evaluated_queries('qrels', missing_queries) }},
{% if mixed_population %}
answered_queries AS (
    SELECT DISTINCT query_id FROM run
),
{% endif %}
{% if judgment_columns %}
judgments AS (
    SELECT qrels.query_id{{ columns(judgment_columns) }}
    FROM qrels
    JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
    GROUP BY qrels.query_id
),
{% endif %}
{% if perfect_columns %}
perfect_discounts AS (
    SELECT {{ perfect_columns | join(',\n           ') }}
    FROM {{ dialect.positions(perfect_depth) }}
),
{% endif %}
{% for spec in ideals if spec.source == 'qrels' %}
{{ ideal_ctes(spec) }},
{% endfor %}
{% if rankings | selectattr('sparse') | list %}
numbered_qrels AS (
    SELECT qrels.query_id,
           evaluated_queries.query_number,
           qrels.doc_id,
           qrels.relevance
    FROM qrels
    JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
),
{% endif %}
{% for v in rankings %}
{% if v.sparse %}
run_ranked{{ v.sfx }} AS (
    SELECT evaluated_queries.query_number,
           run.doc_id,
           ROW_NUMBER() OVER (PARTITION BY evaluated_queries.query_number ORDER BY {{ v.order }}) AS rank
    FROM run
    JOIN evaluated_queries ON evaluated_queries.query_id = run.query_id
),
judged{{ v.sfx }} AS (
    SELECT numbered_qrels.query_id,
           run_ranked{{ v.sfx }}.doc_id,
           run_ranked{{ v.sfx }}.rank,
           numbered_qrels.relevance{{ columns(v.judged) }}
    FROM run_ranked{{ v.sfx }}
    JOIN numbered_qrels ON numbered_qrels.query_number = run_ranked{{ v.sfx }}.query_number
                       AND numbered_qrels.doc_id = run_ranked{{ v.sfx }}.doc_id
{% if v.depth is not none %}
    WHERE run_ranked{{ v.sfx }}.rank <= {{ v.depth | number }}
{% endif %}
),
ranked{{ v.sfx }} AS (
    SELECT judged{{ v.sfx }}.*{{ columns(v.ranked) }}
    FROM judged{{ v.sfx }}{% if v.ranked %}

    WINDOW ranking AS (PARTITION BY query_id ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW){% endif %}

{% else %}
judged{{ v.sfx }} AS (
    SELECT run.query_id,
           evaluated_queries.query_number,
           run.doc_id,
           run.score{% if v.input_rank %},
           run.input_rank{% endif %},
           qrels.relevance{{ columns(v.judged) }}
{% if v.judged_only and v.depth is not none %}
    FROM (
        SELECT run.*,
               ROW_NUMBER() OVER (PARTITION BY run.query_id ORDER BY {{ v.order }}) AS depth_rank
        FROM run
    ) AS run
{% else %}
    FROM run
{% endif %}
    JOIN evaluated_queries ON evaluated_queries.query_id = run.query_id
{% if v.judged_only %}
    JOIN qrels ON qrels.query_id = run.query_id AND qrels.doc_id = run.doc_id
    WHERE qrels.relevance >= 0{% if v.depth is not none %} AND run.depth_rank <= {{ v.depth | number }}{% endif %}

{% else %}
    LEFT JOIN qrels ON qrels.query_id = run.query_id AND qrels.doc_id = run.doc_id
{% endif %}
),
ranked{{ v.sfx }} AS (
{% if v.depth is not none or v.outer %}
    SELECT ordered.*{{ columns(v.outer) }}
    FROM (
{% endif %}
    SELECT judged{{ v.sfx }}.*,
           ROW_NUMBER() OVER ranking AS rank{{ columns(v.ranked) }}
    FROM judged{{ v.sfx }}
    WINDOW ranking AS (PARTITION BY query_number ORDER BY {{ v.order }}
                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
{% if v.depth is not none or v.outer %}
    ) AS ordered
{% if v.depth is not none %}
    WHERE rank <= {{ v.depth | number }}
{% endif %}
{% if v.outer %}
    WINDOW {% if v.running %}running AS (PARTITION BY query_id ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW){% if v.ties %}, {% endif %}{% endif %}{% if v.ties %}tie AS (PARTITION BY query_id, {{ v.tie_key }}){% endif %}

{% endif %}
{% endif %}
{% endif %}
){% if output == 'relstring' %}

SELECT query_id,
       STRING_AGG(CASE WHEN relevance IS NULL THEN '-' WHEN relevance < 0 THEN '.' WHEN relevance > 9 THEN '>'
                       ELSE CAST(relevance AS VARCHAR) END, '' ORDER BY rank) AS relstring
FROM ranked{{ v.sfx }}
WHERE rank <= {{ relstring_length | number }}
GROUP BY query_id
{% else %},
retrieved{{ v.sfx }} AS (
    SELECT ranked{{ v.sfx }}.query_id{{ columns(v.retrieved) }}
    FROM ranked{{ v.sfx }}
{% if v.join_judgments %}
    JOIN judgments ON judgments.query_id = ranked{{ v.sfx }}.query_id
{% endif %}
    GROUP BY ranked{{ v.sfx }}.query_id
),
{% for spec in ideals if spec.source == 'run' and spec.ranking == v.sfx %}
{{ ideal_ctes(spec) }},
{% endfor %}
{% for cte in v.ctes %}
{{ cte.sql }},
{% endfor %}
{{ v.part }} AS (
    SELECT evaluated_queries.query_id{% for m in v.measures %},
           {{ population(m, m.value) }} AS {{ m.column }}{% endfor %}

    FROM evaluated_queries
    LEFT JOIN retrieved{{ v.sfx }} ON retrieved{{ v.sfx }}.query_id = evaluated_queries.query_id
{% if judgment_columns %}
    LEFT JOIN judgments ON judgments.query_id = evaluated_queries.query_id
{% endif %}
{% if mixed_population %}
    LEFT JOIN answered_queries ON answered_queries.query_id = evaluated_queries.query_id
{% endif %}
{% for spec in ideals if spec.source == 'qrels' or spec.ranking == v.sfx %}
    LEFT JOIN {{ spec.name }}_dcg ON {{ spec.name }}_dcg.query_id = evaluated_queries.query_id
{% endfor %}
{% if perfect_columns %}
    CROSS JOIN perfect_discounts
{% endif %}
{% for cte in v.ctes %}
    LEFT JOIN {{ cte.name }} ON {{ cte.name }}.query_id = evaluated_queries.query_id
{% endfor %}
){% if not loop.last or rankings | length > 1 %},{% endif %}
{% endif %}

{% endfor %}
{% if output != 'relstring' %}
{% if rankings | length > 1 %}
per_query AS (
    SELECT evaluated_queries.query_id{% for m in measures %},
           {{ m.part }}.{{ m.column }}{% endfor %}

    FROM evaluated_queries
{% for v in rankings %}
    JOIN {{ v.part }} ON {{ v.part }}.query_id = evaluated_queries.query_id
{% endfor %}
)
{% endif %}
{% if output == 'segments' %},
segments AS (
    {{ segments_sql | indent(4) }}
),
summary AS (
    SELECT CAST(NULL AS {{ dialect.text() }}) AS segment,
           COUNT(*) AS num_queries{{ summary_columns() }}
    FROM per_query
    UNION ALL
    SELECT segments.segment,
           COUNT(*) AS num_queries{{ summary_columns() }}
    FROM per_query
    JOIN segments ON segments.query_id = per_query.query_id
    GROUP BY segments.segment
)
SELECT summary.segment,
       summary.num_queries,
       measures.measure,
       {{ measure_value('summary') }}
FROM summary
{{ measure_rows() }}
ORDER BY summary.segment NULLS FIRST, measures.position
{% else %}
{% if output != 'per_query' %},
summary AS (
    SELECT {% if by_run %}{{ dialect.before_separator('query_id') }} AS run_id,
           {% endif %}{% for m in measures %}{{ aggregate(m) }} AS {{ m.column }}{% if not loop.last %},
{{ '           ' }}{% endif %}{% endfor %}

    FROM per_query{% if by_run %}

    GROUP BY {{ dialect.before_separator('query_id') }}{% endif %}

){% endif %}

{% if output != 'summary' %}
SELECT {% if by_run %}{{ dialect.before_separator('per_query.query_id') }} AS run_id,
       {{ dialect.after_separator('per_query.query_id') }} AS query_id{% else %}per_query.query_id{% endif %},
       measures.measure,
       {{ measure_value('per_query') }}
FROM per_query
{{ measure_rows() }}
{% if mixed_population %}
WHERE {{ measure_case('per_query') }} IS NOT NULL
{% endif %}
{% endif %}
{% if output == 'both' %}
UNION ALL
{% endif %}
{% if output != 'per_query' %}
SELECT {% if by_run %}summary.run_id,
       {% endif %}{% if output == 'both' %}CAST(NULL AS {{ dialect.text() }}) AS query_id,
       {% endif %}measures.measure,
       {{ measure_value('summary') }}
FROM summary
{{ measure_rows() }}
{% endif %}
{% if output == 'summary' %}
ORDER BY {% if by_run %}summary.run_id, {% endif %}measures.position
{% elif output == 'per_query' %}
ORDER BY per_query.query_id, measures.position
{% endif %}
{% endif %}
{% endif %}
