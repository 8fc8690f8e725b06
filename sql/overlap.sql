{#-
  How alike two rankings of the same queries are, without judgments (comparing/overlap.py,
  measures/similarity.py): per query both runs hold, each ranked by score (ties by the tie-break
  convention), then for each cutoff k the documents both top-k lists hold (common) and, for RBO, the
  overlap X_d of the two lists at every depth d.
    Jaccard@k  = |common| / (|A_k| + |B_k| - |common|)          Overlap@k = |common| / k (denominator=first: / |A_k|)
    RBO (Webber, Moffat, Zobel 2010), s and l the shorter and longer list's length, X_d the overlap
    at depth d (for d > s: the shorter list whole against the longer one's top d), f = max(s + l - X_l, l + 1):
      min      (1-p)/p * (sum_{d<=l} p^d (X_d - X_l)/d - X_l ln(1-p))            (eq. 11: nothing unseen matches)
      ext      (1-p)/p * (sum_{d<=l} p^d X_d/d + sum_{s<d<=l} p^d X_s (d-s)/(s d)) + ((X_l-X_s)/l + X_s/s) p^l   (eq. 32)
      residual (1-p)/p * (sum_{s<d<=l} p^d (d-s)/d + sum_{l<d<f} p^d (2d-s-l)/d - X_l sum_{d>=f} p^d/d) + p^(f-1)
               (RBO_max - RBO_min: every unseen document matches as early as it can)
      p = 1    the average overlap to the shorter list's depth s: 1/s sum_{d<=s} X_d/d (Fagin et al.'s;
               changyaochen/rbo's rbo(p=1.0))
    Tau@k      Kendall's tau-b of the scores of the common documents: (C - D) / sqrt((n0 - n1)(n0 - n2))
    TauAP@k    (Yilmaz, Aslam, Robertson 2008) the common documents in B's order, C(i) those above the
               i-th that A also ranks above it: 2/(n-1) * sum_{i>=2} C(i)/(i-1) - 1
    Intersection@k = |A_k & B_r| / |B_r|, B_r the second ranking's top ref_k (all of it without ref_k): RecTools'
               Intersection@k; cut by the given ranks (rank <= k, ties at the cutoff kept) under tie_break=input_rank
  Tau and TauAP have no value (NULL) for a query with fewer than two common documents (or, for Tau,
  all of them tied on one side).
-#}
{% macro at(x, c) %}{{ x }}_{{ 'all' if c is none else c }}{% endmacro %}
{% macro within(c) %}{% if c is not none %} AND rank <= {{ c | number }}{% endif %}{% endmacro %}
{% macro real(x) %}CAST({{ x }} AS {{ DOUBLE }}){% endmacro %}
{#- A measure's value per query, from its cutoff's steps. -#}
{% macro value(m) -%}
{% set lengths = at('lengths', m.cutoff) %}
{% if m.family == 'Jaccard' %}{{ real(lengths ~ '.common') }} / ({{ lengths }}.len_a + {{ lengths }}.len_b - {{ lengths }}.common)
{%- elif m.family == 'Overlap' %}{{ real(lengths ~ '.common') }} / {{ (lengths ~ '.len_a') if m.denominator == 'first' else (m.cutoff | number) }}
{%- elif m.family == 'RBO' %}{{ at('rbo_' ~ (m.p | key), m.cutoff) }}.rbo_{{ m.kind }}
{%- elif m.family == 'Tau' %}{% set pairs = at('pairs', m.cutoff) %}{% set n0 = '(' ~ lengths ~ '.common * (' ~ lengths ~ '.common - 1) / 2)' %}
{{ pairs }}.concordance / NULLIF(SQRT({{ real(n0 ~ ' - ' ~ pairs ~ '.tied_a') }} * ({{ n0 }} - {{ pairs }}.tied_b)), 0)
{%- elif m.family == 'TauAP' %}{{ at('tau_ap', m.cutoff) }}.tau_ap
{%- elif m.family == 'Intersection' %}{{ real('intersection_' ~ m.column ~ '.common') }} / intersection_{{ m.column }}.len_ref
{%- endif %}
{%- endmacro %}
WITH
run_a AS (SELECT query_id, doc_id, score, input_rank FROM ({{ a_sql }}) AS a_rows),
run_b AS (SELECT query_id, doc_id, score, input_rank FROM ({{ b_sql }}) AS b_rows),
compared_queries AS (
    SELECT DISTINCT query_id FROM run_a
    INTERSECT
    SELECT DISTINCT query_id FROM run_b
),
ranked_a AS (
    SELECT run_a.query_id AS query_id, doc_id, score, input_rank, ROW_NUMBER() OVER (PARTITION BY run_a.query_id ORDER BY {{ order }}) AS rank
    FROM run_a JOIN compared_queries ON compared_queries.query_id = run_a.query_id
),
ranked_b AS (
    SELECT run_b.query_id AS query_id, doc_id, score, input_rank, ROW_NUMBER() OVER (PARTITION BY run_b.query_id ORDER BY {{ order }}) AS rank
    FROM run_b JOIN compared_queries ON compared_queries.query_id = run_b.query_id
),
{% for c in cutoffs %}
{{ at('common', c) }} AS (
    SELECT ranked_a.query_id AS query_id, ranked_a.doc_id AS doc_id, ranked_a.rank AS rank_a, ranked_b.rank AS rank_b,
           ranked_a.score AS score_a, ranked_b.score AS score_b
    FROM ranked_a
    JOIN ranked_b ON ranked_b.query_id = ranked_a.query_id AND ranked_b.doc_id = ranked_a.doc_id
{% if c is not none %}
    WHERE ranked_a.rank <= {{ c | number }} AND ranked_b.rank <= {{ c | number }}
{% endif %}
),
{{ at('lengths', c) }} AS (
    SELECT compared_queries.query_id AS query_id,
           lengths_a.n AS len_a,
           lengths_b.n AS len_b,
           COALESCE(both_lists.n, 0) AS common,
           LEAST(lengths_a.n, lengths_b.n) AS s,
           GREATEST(lengths_a.n, lengths_b.n) AS l
    FROM compared_queries
    JOIN (SELECT query_id, COUNT(*) AS n FROM ranked_a WHERE rank >= 1{{ within(c) }} GROUP BY query_id) AS lengths_a
      ON lengths_a.query_id = compared_queries.query_id
    JOIN (SELECT query_id, COUNT(*) AS n FROM ranked_b WHERE rank >= 1{{ within(c) }} GROUP BY query_id) AS lengths_b
      ON lengths_b.query_id = compared_queries.query_id
    LEFT JOIN (SELECT query_id, COUNT(*) AS n FROM {{ at('common', c) }} GROUP BY query_id) AS both_lists
      ON both_lists.query_id = compared_queries.query_id
),
{% if c in rbo_cutoffs %}
{#- depths 1 .. 2l: the ranks of both lists and the same shifted by l (the residual's sums reach f - 1 < s + l) -#}
{{ at('depths', c) }} AS (
    SELECT ranks.query_id AS query_id, ranks.rank + shifts.part * lengths.l AS d
    FROM (SELECT query_id, rank FROM ranked_a WHERE rank >= 1{{ within(c) }}
          UNION SELECT query_id, rank FROM ranked_b WHERE rank >= 1{{ within(c) }}) AS ranks
    JOIN {{ at('lengths', c) }} AS lengths ON lengths.query_id = ranks.query_id
    CROSS JOIN (SELECT 0 AS part UNION ALL SELECT 1) AS shifts
),
{{ at('overlap_at', c) }} AS (
    SELECT depths.query_id AS query_id, depths.d AS d,
           SUM(COALESCE(entered.n, 0)) OVER (PARTITION BY depths.query_id ORDER BY depths.d
                                             ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS x
    FROM {{ at('depths', c) }} AS depths
    LEFT JOIN (SELECT query_id, GREATEST(rank_a, rank_b) AS d, COUNT(*) AS n FROM {{ at('common', c) }}
               GROUP BY query_id, GREATEST(rank_a, rank_b)) AS entered
      ON entered.query_id = depths.query_id AND entered.d = depths.d
),
{% for p in rbo_persistence[c] %}
{% set q = p | number %}
{% if p == 1 %}
{{ at('rbo_' ~ (p | key), c) }} AS (
    SELECT lengths.query_id AS query_id,
           SUM(CASE WHEN depth.d <= lengths.s THEN {{ real('depth.x') }} / depth.d ELSE 0 END) / lengths.s AS rbo_min
    FROM {{ at('lengths', c) }} AS lengths
    JOIN {{ at('overlap_at', c) }} AS depth ON depth.query_id = lengths.query_id
    GROUP BY lengths.query_id, lengths.s
),
{% else %}
{% set ln_1m = rbo_ln_1m[p] | number %}
{{ at('rbo_' ~ (p | key), c) }} AS (
    SELECT lengths.query_id AS query_id,
           (1 - {{ q }}) / {{ q }} * (SUM(CASE WHEN depth.d <= lengths.l THEN POWER({{ q }}, depth.d) * (depth.x - lengths.common) / depth.d ELSE 0 END)
                                   - lengths.common * {{ ln_1m }}) AS rbo_min,
           (1 - {{ q }}) / {{ q }} * (SUM(CASE WHEN depth.d <= lengths.l THEN POWER({{ q }}, depth.d) * depth.x / depth.d ELSE 0 END)
                                   + SUM(CASE WHEN depth.d > lengths.s AND depth.d <= lengths.l
                                              THEN POWER({{ q }}, depth.d) * x_s.x * (depth.d - lengths.s) / (lengths.s * depth.d)
                                              ELSE 0 END))
           + ({{ real('lengths.common - x_s.x') }} / lengths.l + {{ real('x_s.x') }} / lengths.s) * POWER({{ q }}, lengths.l) AS rbo_ext,
           (1 - {{ q }}) / {{ q }} * (SUM(CASE WHEN depth.d > lengths.s AND depth.d <= lengths.l THEN POWER({{ q }}, depth.d) * (depth.d - lengths.s) / depth.d
                                               WHEN depth.d > lengths.l AND depth.d < GREATEST(lengths.s + lengths.l - lengths.common, lengths.l + 1)
                                               THEN POWER({{ q }}, depth.d) * (2 * depth.d - lengths.s - lengths.l) / depth.d ELSE 0 END)
                                   + lengths.common * ({{ ln_1m }} + SUM(CASE WHEN depth.d < GREATEST(lengths.s + lengths.l - lengths.common, lengths.l + 1)
                                                                                  THEN POWER({{ q }}, depth.d) / depth.d ELSE 0 END)))
           + POWER({{ q }}, GREATEST(lengths.s + lengths.l - lengths.common, lengths.l + 1) - 1) AS rbo_residual
    FROM {{ at('lengths', c) }} AS lengths
    JOIN {{ at('overlap_at', c) }} AS depth ON depth.query_id = lengths.query_id
    JOIN {{ at('overlap_at', c) }} AS x_s ON x_s.query_id = lengths.query_id AND x_s.d = lengths.s
    GROUP BY lengths.query_id, lengths.s, lengths.l, lengths.common, x_s.x
),
{% endif %}
{% endfor %}
{% endif %}
{% if c in pair_cutoffs %}
{{ at('pairs', c) }} AS (
    SELECT first.query_id AS query_id,
           SUM(SIGN(first.score_a - second.score_a) * SIGN(first.score_b - second.score_b)) AS concordance,
           SUM(CASE WHEN first.score_a = second.score_a THEN 1 ELSE 0 END) AS tied_a,
           SUM(CASE WHEN first.score_b = second.score_b THEN 1 ELSE 0 END) AS tied_b
    FROM {{ at('common', c) }} AS first
    JOIN {{ at('common', c) }} AS second ON second.query_id = first.query_id AND second.doc_id < first.doc_id
    GROUP BY first.query_id
),
{{ at('tau_ap', c) }} AS (
    SELECT query_id, 2 * SUM({{ real('above') }} / (position - 1)) / (MAX(n) - 1) - 1 AS tau_ap
    FROM (
        SELECT later.query_id AS query_id, later.position AS position, later.n AS n,
               SUM(CASE WHEN earlier.rank_a < later.rank_a THEN 1 ELSE 0 END) AS above
        FROM (SELECT common.*, ROW_NUMBER() OVER (PARTITION BY query_id ORDER BY rank_b) AS position,
                     COUNT(*) OVER (PARTITION BY query_id) AS n
              FROM {{ at('common', c) }} AS common) AS later
        JOIN {{ at('common', c) }} AS earlier ON earlier.query_id = later.query_id AND earlier.rank_b < later.rank_b
        GROUP BY later.query_id, later.position, later.n
    ) AS positions
    GROUP BY query_id
),
{% endif %}
{% endfor %}
{% set cut = 'input_rank' if given_ranks else 'rank' %}
{% for m in measures if m.family == 'Intersection' %}
intersection_{{ m.column }} AS (
    SELECT ranked_b.query_id AS query_id, COUNT(*) AS len_ref, COUNT(ranked_a.doc_id) AS common
    FROM ranked_b
    LEFT JOIN ranked_a ON ranked_a.query_id = ranked_b.query_id AND ranked_a.doc_id = ranked_b.doc_id
                      AND ranked_a.{{ cut }} <= {{ m.cutoff | number }}
{% if m.ref_k is not none %}
    WHERE ranked_b.{{ cut }} <= {{ m.ref_k | number }}
{% endif %}
    GROUP BY ranked_b.query_id
),
{% endfor %}
per_query AS (
    SELECT compared_queries.query_id AS query_id{% for m in measures %},
           {{ value(m) }} AS {{ m.column }}{% endfor %}

    FROM compared_queries
{% for c in cutoffs %}
    JOIN {{ at('lengths', c) }} ON {{ at('lengths', c) }}.query_id = compared_queries.query_id
{% if c in rbo_cutoffs %}
{% for p in rbo_persistence[c] %}
    JOIN {{ at('rbo_' ~ (p | key), c) }} ON {{ at('rbo_' ~ (p | key), c) }}.query_id = compared_queries.query_id
{% endfor %}
{% endif %}
{% if c in pair_cutoffs %}
    LEFT JOIN {{ at('pairs', c) }} ON {{ at('pairs', c) }}.query_id = compared_queries.query_id
    LEFT JOIN {{ at('tau_ap', c) }} ON {{ at('tau_ap', c) }}.query_id = compared_queries.query_id
{% endif %}
{% endfor %}
{% for m in measures if m.family == 'Intersection' %}
    LEFT JOIN intersection_{{ m.column }} ON intersection_{{ m.column }}.query_id = compared_queries.query_id
{% endfor %}
)
SELECT per_query.query_id AS query_id, measures.measure AS measure,
       CASE measures.position{% for m in measures %} WHEN {{ loop.index }} THEN {{ m.column }}{% endfor %} END AS value
FROM per_query
CROSS JOIN (
    VALUES
{% for m in measures %}
        ({{ loop.index }}, {{ m.name | literal }}){{ ',' if not loop.last }}
{% endfor %}
) AS measures (position, measure)
ORDER BY per_query.query_id, measures.position
