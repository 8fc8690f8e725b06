{#- Which queries count (missing_queries: skip = both sides, zero = all qrels queries; unjudged_queries=zero adds
    the run's), numbered; with no_relevant=skip, only queries with a relevant judgment; with no_relevant=one, whether
    each has one. -#}
{% import '_macros/query_set.sql' as query_set %}
{{ query_set.evaluated_queries('qrels', missing_queries, relevant_level if no_relevant == 'skip' else none, unjudged_queries,
                               listed_sql, zeroed, relevant_level if no_relevant == 'one' else none) }}
