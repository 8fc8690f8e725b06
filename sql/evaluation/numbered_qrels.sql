{#- The judgments of the evaluated queries with the query's number, for the sparse rankings. Materialized
    in DuckDB: inlined, its join with the evaluated queries was reordered after the run's join with the
    judgments, which then matched on the document alone (6,000 queries ranking the same 5 documents: 36
    million rows, 5.6 GB, where the (query, document) join gives 30,000). -#}
{% import '_macros/dialect.sql' as dialect %}
numbered_qrels AS {{ dialect.materialized() }}(
    SELECT qrels.query_id AS query_id,
           evaluated_queries.query_number AS query_number,
           qrels.doc_id AS doc_id,
           qrels.relevance AS relevance
    FROM qrels
    JOIN evaluated_queries ON evaluated_queries.query_id = qrels.query_id
)
