{#-
  GSB (good-same-bad): side-by-side verdicts of system B against system A, one per
  (query, document) pair or per query, counted overall and per value of the `by` column;
  GSB = (good - bad) / (good + same + bad), from -1 (B always worse) to 1 (always better).
  Verdicts are good/same/bad or G/S/B in any case, with surrounding white space ignored
  (checked before this statement runs). A verdict without a `by` value (missing or empty) counts
  in the overall row only (the caller says how many).
  Context: built by sqlrank.comparing.compare.gsb_frame; `by` is a validated column name.
-#}
WITH
verdicts AS (
    SELECT {% if by is not none %}NULLIF(CAST({{ by | ident }} AS VARCHAR), '') AS {{ by | ident }},
           {%+ endif %}lower(trim(CAST(verdict AS VARCHAR))) AS verdict
    FROM {{ reader }}
),
counts AS (
    SELECT {% if by is not none %}CAST(NULL AS VARCHAR) AS {{ by | ident }},
           {%+ endif %}COUNT(*) FILTER (WHERE verdict IN ('good', 'g')) AS good,
           COUNT(*) FILTER (WHERE verdict IN ('same', 's')) AS same,
           COUNT(*) FILTER (WHERE verdict IN ('bad', 'b')) AS bad
    FROM verdicts
{% if by is not none %}
    UNION ALL
    SELECT {{ by | ident }},
           COUNT(*) FILTER (WHERE verdict IN ('good', 'g')) AS good,
           COUNT(*) FILTER (WHERE verdict IN ('same', 's')) AS same,
           COUNT(*) FILTER (WHERE verdict IN ('bad', 'b')) AS bad
    FROM verdicts
    WHERE {{ by | ident }} IS NOT NULL
    GROUP BY {{ by | ident }}
{% endif %}
)
SELECT {% if by is not none %}{{ by | ident }}, {% endif %}good, same, bad,
       CAST(good - bad AS DOUBLE) / (good + same + bad) AS gsb
FROM counts
{% if by is not none %}
ORDER BY {{ by | ident }} NULLS FIRST
{% endif %}
