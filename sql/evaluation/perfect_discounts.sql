{#- The discounts of positions 1..k of the perfect ranking (ideal=perfect). -#}
{% import '_macros/dialect.sql' as dialect %}
perfect_discounts AS (
    SELECT {{ perfect_columns | join(',\n           ') }}
    FROM {{ dialect.positions(perfect_depth) }}
)
