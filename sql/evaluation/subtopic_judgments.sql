{#-
  The judgments per subtopic of the diversity measures (inputs/keyed.py): (query_id, subtopic, doc_id,
  relevance), keyed like the qrels (with runs stored together, once per run). The family step "intents"
  reads them.
-#}
{% import '_macros/evaluation.sql' as evaluation %}
subtopic_judgments AS (
    {{ (evaluation.keyed_by_run(intents_sql, ['subtopic', 'doc_id', 'relevance']) if by_run else intents_sql) | trim | indent(4) }}
)
