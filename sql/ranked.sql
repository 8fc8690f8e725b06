{#-
  Each query's top `depth` documents of a run with their labels (NULL: unjudged), for a report's side-by-side
  view (comparing/compare.py, comparing/reports.py): (query_id, rank, doc_id, relevance), ranked in `order`. With
  `keyed`, the run's query ids carry its run (run_id || chr(31) || query_id, runs stored together on an engine):
  the judgments are joined on the query id after the separator.
-#}
{% import '_macros/dialect.sql' as dialect %}
SELECT ranked.query_id AS query_id, ranked.rank AS rank, ranked.doc_id AS doc_id, qrels.relevance AS relevance
FROM (
    SELECT query_id, doc_id, ROW_NUMBER() OVER (PARTITION BY query_id ORDER BY {{ order }}) AS rank
    FROM ({{ run_sql }}) AS run
) AS ranked
LEFT JOIN ({{ qrels_sql }}) AS qrels
    ON qrels.query_id = {{ dialect.after_separator('ranked.query_id') if keyed else 'ranked.query_id' }} AND qrels.doc_id = ranked.doc_id
WHERE ranked.rank <= {{ depth | number }}
ORDER BY ranked.query_id, ranked.rank
