{#-
  Which source judged which document, when the judgments were merged from several (inputs/merge.py):
  (query_id, doc_id, relevance, source) for every judgment of every source, keyed like the qrels (with runs
  stored together, once per run). Judged(source=NAME) reads it.
-#}
{% import '_macros/dialect.sql' as dialect %}
judgment_sources AS (
{% if by_run %}
    SELECT run_ids.run_id || {{ dialect.separator() }} || judged.query_id AS query_id, judged.doc_id AS doc_id,
           judged.relevance AS relevance, judged.source AS source
    FROM (
        {{ sources_sql | indent(8) }}
    ) AS judged
    CROSS JOIN (SELECT DISTINCT {{ dialect.before_separator('query_id') }} AS run_id FROM run) AS run_ids
{% else %}
    {{ sources_sql | indent(4) }}
{% endif %}
)
