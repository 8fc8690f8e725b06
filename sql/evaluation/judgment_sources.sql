{#-
  Which source judged which document, when the judgments were merged from several (inputs/merge.py):
  (query_id, doc_id, relevance, source) for every judgment of every source, keyed like the qrels (with runs
  stored together, once per run). Judged(source=NAME) reads it.
-#}
{% import '_macros/evaluation.sql' as evaluation %}
judgment_sources AS (
    {{ (evaluation.keyed_by_run(sources_sql, ['doc_id', 'relevance', 'source']) if by_run else sources_sql) | trim | indent(4) }}
)
