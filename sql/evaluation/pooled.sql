{#-
  The family step "pooled" of GlobalAUC: for one ranking and relevance level, the judged
  documents of every query counted per score (pooled_scores), then the one AUC of them all, a
  pair of equal scores counting 1/2. One row, joined to every query's row.
-#}
{% import '_macros/judging.sql' as judging %}
{% set name, m = piece.name, piece.measure %}
{{ name }}_scores AS (
    SELECT {{ m.score }} AS pooled_score,
           SUM({{ judging.is_relevant(m.level) }}) AS positive,
           SUM({{ judging.is_nonrelevant(m.level) }}) AS negative
    FROM {{ m.ranked }}
    GROUP BY {{ m.score }}
),
{{ name }} AS (
    SELECT 1 - SUM(positive * (negative_above + CAST(negative AS {{ DOUBLE }}) / 2))
               / NULLIF(CAST(SUM(positive) AS {{ DOUBLE }}) * SUM(negative), 0) AS global_auc
    FROM (
        SELECT positive, negative,
               COALESCE(SUM(negative) OVER (ORDER BY pooled_score DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
                        0) AS negative_above
        FROM {{ name }}_scores
    ) AS pooled_counts
)
