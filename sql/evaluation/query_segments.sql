{#- Each query's segments (query_id, segment): a query may be in several. -#}
segments AS (
    {{ segments_sql | indent(4) }}
)
