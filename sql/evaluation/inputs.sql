{#-
  The inputs, typed: qrels (query_id, doc_id, relevance) and run (query_id, doc_id, score, input_rank).
  With runs stored together (by_run), run query keys are run_id || chr(31) || query_id, and the
  judgments are repeated for each run under the same keys. With unjudged_label, every retrieved
  document without a judgment is judged with that label: the judgments as given are qrels_given.
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/evaluation.sql' as evaluation %}
{% set hint = dialect.inline() if reread_inputs else '' %}
{% set given = 'qrels' if unjudged_label is none else 'qrels_given' %}
{% if by_run %}
run AS {{ hint }}(
    {{ run_sql | indent(4) }}
),
{{ given }} AS {{ hint }}(
    {{ evaluation.keyed_by_run(qrels_sql, ['doc_id', 'relevance']) | trim | indent(4) }}
)
{% else %}
{{ given }} AS {{ hint }}(
    {{ qrels_sql | indent(4) }}
),
run AS {{ hint }}(
    {{ run_sql | indent(4) }}
)
{% endif %}
{% if unjudged_label is not none %},
qrels AS (
    SELECT query_id, doc_id, relevance FROM qrels_given
    UNION ALL
    SELECT run.query_id AS query_id, run.doc_id AS doc_id, {{ unjudged_label | number }} AS relevance
    FROM run
    WHERE NOT EXISTS (SELECT 1 FROM qrels_given WHERE qrels_given.query_id = run.query_id AND qrels_given.doc_id = run.doc_id)
)
{% endif %}
