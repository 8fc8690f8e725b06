{#- Which queries count (missing_queries: skip = both sides, zero = all qrels queries; unjudged_queries=zero adds
    the run's), numbered; with no_relevant=skip,
    only queries with a relevant judgment. -#}
{% import '_macros/query_set.sql' as query_set %}
{{ query_set.evaluated_queries('qrels', missing_queries, skip_below, unjudged_queries, listed_sql, zeroed) }}
