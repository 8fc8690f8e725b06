{#-
  trec_eval's preference measures (-R prefs, -R qrels_prefs), one statement.
  Judgments are lines (query, judgment group jg, subgroup jsg, document, level): within one
  subgroup a document is preferred to every document with a lower level. A group with one
  subgroup is a set of equivalence classes; a group with several takes the transitive closure
  of its subgroups' preferences. Documents get "docid ranks": the judged documents the run
  retrieves, in its order (score desc, ties by doc_id ascending, as trec_eval's
  form_prefs_counts.c sorts), then the others by doc_id. A preference a > b is
    fulfilled, retrieved      a and b retrieved, a above b
    possible, retrieved       a and b retrieved
    fulfilled, implied        only a retrieved
    possible, implied         exactly one of a and b retrieved
    not occurring             neither retrieved
  and each measure is a ratio of such counts over preferences, judgment groups or document
  pairs (see the measures at the end, and trec_eval 10 m_prefs_*.c).
  Context: prefs_sql, run_sql, evaluated (skip | zero), depth, score_order.
-#}
{%- macro group_average(column, strict=false) -%}
{#- trec_eval: the sum over groups divided by the number of groups, 0 unless the sum is positive;
    for the Rnonrel measures a group whose ratio is 0/0 makes the topic 0 (a NaN in trec_eval). -#}
CASE WHEN groups.{{ column }} > 0{% if strict %} AND groups.{{ column }}_undefined = 0{% endif %} THEN groups.{{ column }} / groups.groups ELSE 0 END
{%- endmacro -%}
{% import '_macros/query_set.sql' as query_set %}
WITH RECURSIVE
prefs AS (
    {{ prefs_sql | indent(4) }}
),
run AS (
    {{ run_sql | indent(4) }}
),
{{ query_set.evaluated_queries('prefs', missing_queries) }},
judged_docs AS (
    SELECT DISTINCT prefs.query_id, prefs.doc_id
    FROM prefs
    JOIN evaluated_queries ON evaluated_queries.query_id = prefs.query_id
),
ranked_run AS (
    SELECT run.query_id,
           run.doc_id,
           ROW_NUMBER() OVER (PARTITION BY run.query_id ORDER BY {{ score_order }} DESC NULLS LAST, run.doc_id ASC) AS rank
    FROM run
    JOIN evaluated_queries ON evaluated_queries.query_id = run.query_id
),
retrieved_judged AS (
    SELECT ranked_run.query_id,
           ranked_run.doc_id,
           ROW_NUMBER() OVER (PARTITION BY ranked_run.query_id ORDER BY ranked_run.rank) - 1 AS docid_rank
    FROM ranked_run
    JOIN judged_docs ON judged_docs.query_id = ranked_run.query_id AND judged_docs.doc_id = ranked_run.doc_id
{% if depth is not none %}
    WHERE ranked_run.rank <= {{ depth | number }}
{% endif %}
),
retrieved_counts AS (
    SELECT evaluated_queries.query_id, COUNT(retrieved_judged.doc_id) AS num_judged_ret
    FROM evaluated_queries
    LEFT JOIN retrieved_judged ON retrieved_judged.query_id = evaluated_queries.query_id
    GROUP BY evaluated_queries.query_id
),
doc_ranks AS (
    SELECT judged_docs.query_id,
           judged_docs.doc_id,
           retrieved_counts.num_judged_ret,
           COALESCE(retrieved_judged.docid_rank,
                    retrieved_counts.num_judged_ret - 1 + ROW_NUMBER() OVER (
                        PARTITION BY judged_docs.query_id, retrieved_judged.docid_rank IS NULL
                        ORDER BY judged_docs.doc_id)) AS docid_rank
    FROM judged_docs
    JOIN retrieved_counts ON retrieved_counts.query_id = judged_docs.query_id
    LEFT JOIN retrieved_judged ON retrieved_judged.query_id = judged_docs.query_id
                              AND retrieved_judged.doc_id = judged_docs.doc_id
),
judgments AS (
    SELECT prefs.query_id, prefs.jg, prefs.jsg, prefs.rel_level, doc_ranks.docid_rank AS doc,
           doc_ranks.num_judged_ret AS njr
    FROM prefs
    JOIN doc_ranks ON doc_ranks.query_id = prefs.query_id AND doc_ranks.doc_id = prefs.doc_id
),
judgment_groups AS (
    SELECT query_id, jg, COUNT(DISTINCT jsg) AS subgroups, MIN(njr) AS njr
    FROM judgments
    GROUP BY query_id, jg
),
direct AS (
    SELECT DISTINCT better.query_id, better.jg, better.doc AS a, worse.doc AS b
    FROM judgments AS better
    JOIN judgments AS worse ON worse.query_id = better.query_id AND worse.jg = better.jg
                           AND worse.jsg = better.jsg AND worse.rel_level < better.rel_level
),
closure (query_id, jg, a, b) AS (
    SELECT direct.query_id, direct.jg, direct.a, direct.b
    FROM direct
    JOIN judgment_groups ON judgment_groups.query_id = direct.query_id AND judgment_groups.jg = direct.jg
    WHERE judgment_groups.subgroups > 1
    UNION
    SELECT closure.query_id, closure.jg, closure.a, direct.b
    FROM closure
    JOIN direct ON direct.query_id = closure.query_id AND direct.jg = closure.jg AND direct.a = closure.b
),
pairs AS (
    SELECT direct.query_id, direct.jg, direct.a, direct.b, judgment_groups.njr, judgment_groups.subgroups
    FROM direct
    JOIN judgment_groups ON judgment_groups.query_id = direct.query_id AND judgment_groups.jg = direct.jg
    WHERE judgment_groups.subgroups = 1
    UNION ALL
    SELECT closure.query_id, closure.jg, closure.a, closure.b, judgment_groups.njr, judgment_groups.subgroups
    FROM closure
    JOIN judgment_groups ON judgment_groups.query_id = closure.query_id AND judgment_groups.jg = closure.jg
    WHERE closure.a <> closure.b
),
group_docs AS (
    SELECT judgments.query_id, judgments.jg, judgments.doc, MIN(judgments.njr) AS njr,
           MAX(judgments.rel_level) AS rel_level,
           MAX(judgments.rel_level) > 0 AS is_rel,
           CASE WHEN MIN(judgment_groups.subgroups) = 1 THEN MAX(judgments.rel_level) <= 0
                ELSE MAX(judgments.rel_level) = 0 END AS is_nonrel,
           MIN(MAX(judgments.rel_level)) OVER (PARTITION BY judgments.query_id, judgments.jg) AS lowest_level
    FROM judgments
    JOIN judgment_groups ON judgment_groups.query_id = judgments.query_id AND judgment_groups.jg = judgments.jg
    GROUP BY judgments.query_id, judgments.jg, judgments.doc
),
group_docs_ranked AS (
    SELECT group_docs.*,
           rel_level = lowest_level AS in_last_class,
           ROW_NUMBER() OVER (PARTITION BY query_id, jg, rel_level = lowest_level ORDER BY doc) AS position_in_class,
           SUM(CASE WHEN is_nonrel THEN 1 ELSE 0 END) OVER (PARTITION BY query_id, jg ORDER BY doc
                                                          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS nonrel_so_far
    FROM group_docs
),
group_counts AS (
    SELECT judgment_groups.query_id, judgment_groups.jg, judgment_groups.subgroups, judgment_groups.njr,
           COALESCE(counted.ful_ret, 0) AS ful_ret, COALESCE(counted.poss_ret, 0) AS poss_ret,
           COALESCE(counted.ful_imp, 0) AS ful_imp, COALESCE(counted.poss_imp, 0) AS poss_imp,
           COALESCE(counted.total, 0) AS total,
           docs.num_rel, docs.num_rel_ret, docs.num_nonrel, docs.num_nonrel_ret
    FROM judgment_groups
    LEFT JOIN (
        SELECT query_id, jg,
               SUM(CASE WHEN a < njr AND b < njr AND a < b THEN 1 ELSE 0 END) AS ful_ret,
               SUM(CASE WHEN a < njr AND b < njr THEN 1 ELSE 0 END) AS poss_ret,
               SUM(CASE WHEN a < njr AND b >= njr THEN 1 ELSE 0 END) AS ful_imp,
               SUM(CASE WHEN (a < njr) <> (b < njr) THEN 1 ELSE 0 END) AS poss_imp,
               COUNT(*) AS total
        FROM pairs
        GROUP BY query_id, jg
    ) AS counted ON counted.query_id = judgment_groups.query_id AND counted.jg = judgment_groups.jg
    JOIN (
        SELECT query_id, jg,
               SUM(CASE WHEN is_rel THEN 1 ELSE 0 END) AS num_rel,
               SUM(CASE WHEN is_rel AND doc < njr THEN 1 ELSE 0 END) AS num_rel_ret,
               SUM(CASE WHEN is_nonrel THEN 1 ELSE 0 END) AS num_nonrel,
               SUM(CASE WHEN is_nonrel AND doc < njr THEN 1 ELSE 0 END) AS num_nonrel_ret
        FROM group_docs
        GROUP BY query_id, jg
    ) AS docs ON docs.query_id = judgment_groups.query_id AND docs.jg = judgment_groups.jg
),
{#- prefs_avgjg_Rnonrel(_ret): with more non-relevant than relevant documents (N > R), only R
    non-relevant documents are kept and the preferences counted again. For equivalence-class
    groups these are the first R of the lowest class, paired with every document of the group
    (trec_eval pairs the lowest class with itself too); for closure groups, non-relevant
    documents after the (R + 1)-th one (in docid-rank order) are dropped. -#}
kept_lowest_class AS (
    SELECT group_docs_ranked.query_id, group_docs_ranked.jg, group_docs_ranked.doc, group_docs_ranked.njr,
           group_docs_ranked.position_in_class <= group_counts.num_rel AS kept,
           group_docs_ranked.position_in_class <= group_counts.num_rel_ret AND group_docs_ranked.doc < group_docs_ranked.njr AS kept_ret
    FROM group_docs_ranked
    JOIN group_counts ON group_counts.query_id = group_docs_ranked.query_id AND group_counts.jg = group_docs_ranked.jg
    WHERE group_counts.subgroups = 1 AND group_docs_ranked.in_last_class
),
recount_classes AS (
    SELECT pairs.query_id, pairs.jg, pairs.a, pairs.b, pairs.njr, TRUE AS kept, pairs.a < pairs.njr AND pairs.b < pairs.njr AS kept_ret
    FROM pairs
    JOIN group_docs_ranked AS worse ON worse.query_id = pairs.query_id AND worse.jg = pairs.jg AND worse.doc = pairs.b
    WHERE pairs.subgroups = 1 AND NOT worse.in_last_class
    UNION ALL
    SELECT lowest.query_id, lowest.jg, any_doc.doc AS a, lowest.doc AS b, lowest.njr, lowest.kept,
           lowest.kept_ret AND any_doc.doc < any_doc.njr
    FROM kept_lowest_class AS lowest
    JOIN group_docs AS any_doc ON any_doc.query_id = lowest.query_id AND any_doc.jg = lowest.jg
    WHERE lowest.kept OR lowest.kept_ret
),
first_dropped AS (
    SELECT group_counts.query_id, group_counts.jg,
           MIN(CASE WHEN group_docs_ranked.nonrel_so_far = group_counts.num_rel + 1 AND group_docs_ranked.is_nonrel
                    THEN group_docs_ranked.doc END) AS first_dropped,
           MIN(CASE WHEN group_docs_ranked.nonrel_so_far = group_counts.num_rel + 1 AND group_docs_ranked.is_nonrel
                     AND group_docs_ranked.doc < group_docs_ranked.njr THEN group_docs_ranked.doc END) AS first_dropped_ret
    FROM group_counts
    JOIN group_docs_ranked ON group_docs_ranked.query_id = group_counts.query_id AND group_docs_ranked.jg = group_counts.jg
    WHERE group_counts.subgroups > 1
    GROUP BY group_counts.query_id, group_counts.jg
),
recount_closure AS (
    SELECT pairs.query_id, pairs.jg, pairs.a, pairs.b, pairs.njr,
           NOT (better.is_nonrel AND pairs.a >= COALESCE(first_dropped.first_dropped, pairs.a + 1))
           AND NOT (worse.is_nonrel AND pairs.b >= COALESCE(first_dropped.first_dropped, pairs.b + 1)) AS kept,
           pairs.a < pairs.njr AND pairs.b < pairs.njr
           AND NOT (better.is_nonrel AND pairs.a >= COALESCE(first_dropped.first_dropped_ret, pairs.a + 1))
           AND NOT (worse.is_nonrel AND pairs.b >= COALESCE(first_dropped.first_dropped_ret, pairs.b + 1)) AS kept_ret
    FROM pairs
    JOIN first_dropped ON first_dropped.query_id = pairs.query_id AND first_dropped.jg = pairs.jg
    JOIN group_docs AS better ON better.query_id = pairs.query_id AND better.jg = pairs.jg AND better.doc = pairs.a
    JOIN group_docs AS worse ON worse.query_id = pairs.query_id AND worse.jg = pairs.jg AND worse.doc = pairs.b
),
recounts AS (
    SELECT query_id, jg,
           SUM(CASE WHEN kept AND a < b AND a < njr THEN 1 ELSE 0 END) AS recount_ful,
           SUM(CASE WHEN kept THEN 1 ELSE 0 END) AS recount_poss,
           SUM(CASE WHEN kept_ret AND a < b THEN 1 ELSE 0 END) AS recount_ful_ret,
           SUM(CASE WHEN kept_ret THEN 1 ELSE 0 END) AS recount_poss_ret
    FROM (SELECT * FROM recount_classes UNION ALL SELECT * FROM recount_closure) AS recounted
    GROUP BY query_id, jg
),
group_ratios AS (
    SELECT group_counts.query_id,
           CAST(ful_ret + ful_imp AS DOUBLE) / NULLIF(total, 0) AS avgjg,
           CAST(ful_ret AS DOUBLE) / NULLIF(poss_ret, 0) AS avgjg_ret,
           CAST(ful_ret + ful_imp AS DOUBLE) / NULLIF(poss_ret + poss_imp, 0) AS avgjg_imp,
           CASE WHEN num_rel >= num_nonrel
                THEN CAST(ful_ret + ful_imp + num_rel_ret * (num_rel - num_nonrel) AS DOUBLE)
                     / NULLIF(total + num_rel * (num_rel - num_nonrel), 0)
                ELSE CAST(recount_ful AS DOUBLE) / NULLIF(recount_poss, 0) END AS avgjg_rnonrel,
           CASE WHEN num_rel_ret >= num_nonrel_ret
                THEN CAST(ful_ret + num_rel_ret * (num_rel_ret - num_nonrel_ret) AS DOUBLE)
                     / NULLIF(poss_ret + num_rel * (num_rel_ret - num_nonrel_ret), 0)
                ELSE CAST(recount_ful_ret AS DOUBLE) / NULLIF(recount_poss_ret, 0) END AS avgjg_rnonrel_ret
    FROM group_counts
    LEFT JOIN recounts ON recounts.query_id = group_counts.query_id AND recounts.jg = group_counts.jg
),
pair_counts AS (
    SELECT query_id, x, y, njr,
           CAST(SUM(CASE WHEN a = x THEN groups ELSE 0 END) AS DOUBLE) / SUM(groups) AS ratio
    FROM (
        SELECT query_id, a, b, LEAST(a, b) AS x, GREATEST(a, b) AS y, MIN(njr) AS njr, COUNT(*) AS groups
        FROM pairs
        GROUP BY query_id, a, b
    ) AS counted
    GROUP BY query_id, x, y, njr
),
per_query AS (
    SELECT evaluated_queries.query_id,
           CAST(COALESCE(sums.total, 0) AS DOUBLE) AS prefs_num_prefs_poss,
           CAST(COALESCE(sums.ful_ret + sums.ful_imp, 0) AS DOUBLE) AS prefs_num_prefs_ful,
           CAST(COALESCE(sums.ful_ret, 0) AS DOUBLE) AS prefs_num_prefs_ful_ret,
           COALESCE(CAST(sums.ful_ret + sums.ful_imp AS DOUBLE) / NULLIF(sums.total, 0), 0) AS prefs_simp,
           COALESCE(pair_sums.pair, 0) AS prefs_pair,
           {{ group_average('avgjg') }} AS prefs_avgjg,
           {{ group_average('avgjg_rnonrel', strict=true) }} AS prefs_avgjg_Rnonrel,
           COALESCE(CAST(sums.ful_ret AS DOUBLE) / NULLIF(sums.poss_ret, 0), 0) AS prefs_simp_ret,
           COALESCE(pair_sums.pair_ret, 0) AS prefs_pair_ret,
           {{ group_average('avgjg_ret') }} AS prefs_avgjg_ret,
           {{ group_average('avgjg_rnonrel_ret', strict=true) }} AS prefs_avgjg_Rnonrel_ret,
           COALESCE(CAST(sums.ful_ret + sums.ful_imp AS DOUBLE) / NULLIF(sums.poss_ret + sums.poss_imp, 0), 0) AS prefs_simp_imp,
           COALESCE(pair_sums.pair_imp, 0) AS prefs_pair_imp,
           {{ group_average('avgjg_imp') }} AS prefs_avgjg_imp
    FROM evaluated_queries
    LEFT JOIN (
        SELECT query_id, SUM(total) AS total, SUM(ful_ret) AS ful_ret, SUM(ful_imp) AS ful_imp,
               SUM(poss_ret) AS poss_ret, SUM(poss_imp) AS poss_imp
        FROM group_counts GROUP BY query_id
    ) AS sums ON sums.query_id = evaluated_queries.query_id
    LEFT JOIN (
        SELECT query_id, COUNT(*) AS groups,
               SUM(COALESCE(avgjg, 0)) AS avgjg, SUM(COALESCE(avgjg_ret, 0)) AS avgjg_ret,
               SUM(COALESCE(avgjg_imp, 0)) AS avgjg_imp,
               SUM(avgjg_rnonrel) AS avgjg_rnonrel, SUM(avgjg_rnonrel_ret) AS avgjg_rnonrel_ret,
               COUNT(*) - COUNT(avgjg_rnonrel) AS avgjg_rnonrel_undefined,
               COUNT(*) - COUNT(avgjg_rnonrel_ret) AS avgjg_rnonrel_ret_undefined
        FROM group_ratios GROUP BY query_id
    ) AS groups ON groups.query_id = evaluated_queries.query_id
    LEFT JOIN (
        SELECT query_id,
               SUM(CASE WHEN x < njr THEN ratio ELSE 0 END) / COUNT(*) AS pair,
               SUM(CASE WHEN y < njr THEN ratio ELSE 0 END) / NULLIF(SUM(CASE WHEN y < njr THEN 1 ELSE 0 END), 0) AS pair_ret,
               SUM(CASE WHEN x < njr THEN ratio ELSE 0 END) / NULLIF(SUM(CASE WHEN x < njr THEN 1 ELSE 0 END), 0) AS pair_imp
        FROM pair_counts GROUP BY query_id
    ) AS pair_sums ON pair_sums.query_id = evaluated_queries.query_id
)
SELECT per_query.query_id,
       measures.measure,
       CASE measures.position{% for name in measure_names %}

           WHEN {{ loop.index }} THEN per_query.{{ name }}{% endfor %}

       END AS value
FROM per_query
CROSS JOIN (VALUES{% for name in measure_names %} ({{ loop.index }}, {{ name | literal }}){% if not loop.last %},{% endif %}{% endfor %}) AS measures (position, measure)
ORDER BY per_query.query_id, measures.position
