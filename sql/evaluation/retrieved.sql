{#- Per-query aggregates over a ranking (one column per measure's need). -#}
{% import '_macros/evaluation.sql' as evaluation %}
{% set v = piece.ranking %}
retrieved{{ v.sfx }} AS (
    SELECT ranked{{ v.sfx }}.query_id AS query_id{{ evaluation.columns(v.retrieved) }}
    FROM ranked{{ v.sfx }}
{% if v.join_judgments %}
    JOIN judgments ON judgments.query_id = ranked{{ v.sfx }}.query_id
{% endif %}
    GROUP BY ranked{{ v.sfx }}.query_id
)
