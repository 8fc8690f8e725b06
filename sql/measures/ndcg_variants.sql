{#-
  nDCG_rel, Rndcg, G (trec_eval ndcg_rel, Rndcg, G; experimental measures of trec_eval).
  With DCG@i and IDCG@i as in ndcg.sql and n+ the number of judgments with a positive gain:
    nDCG_rel = (sum over retrieved d with gain > 0 of DCG@rank(d) / IDCG@rank(d)
                + (n+ - those retrieved) * DCG / IDCG) / n+          (0 when that sum is 0)
    Rndcg    = mean of DCG@c / IDCG@c over the ranks c where the ideal gain changes (the last
               ideal document included), plus DCG / IDCG at the last retrieved rank when at
               least n+ + 2 documents are retrieved (trec_eval's loop consumes rank n+ + 1 when
               it finds the ideal gain falling to 0); 0 when R = 0 (R at the relevance level rel)
    G        = (1 / sum of ideal gains) * sum over retrieved d with gain g != 0 at rank i of
               g / log2(2 + cost(i) - gains of the top i), cost(i) = sum over the top i ideal
               positions of max(ideal gain, 1) (1 past the ideal list)
  Reads: ranked (rank, gain, running DCG and gain), ideal (rank, gain, running DCG and excess).
  Reference: trec_eval 10 m_ndcg_rel.c, m_Rndcg.c, m_G.c.
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/discount.sql' as discount %}
{% import '_macros/gain.sql' as gains %}
{% import '_macros/dialect.sql' as dialect %}

{% macro running_parts(m) %}
[judged] {{ gains.gain('relevance', m.gain) }} AS gain{{ m.gain.sfx }}
[running] SUM({{ discount.discounted('gain' ~ m.gain.sfx, 'rank', m.disc) }}) OVER running AS dcg{{ m.gain.sfx }}_so_far
[running] SUM(gain{{ m.gain.sfx }}) OVER running AS gain{{ m.gain.sfx }}_so_far
[retrieved] {{ discount.dcg_column('gain' ~ m.gain.sfx, none, 'dcg' ~ m.gain.sfx, m.disc) }}
[ideal:{{ m.ideal.spec }}] {{ discount.dcg_column('gain', none, 'ideal_dcg' ~ m.gain.sfx, m.disc) }}
[ideal:{{ m.ideal.spec }}] SUM(gain) AS ideal_gain{{ m.gain.sfx }}
[ideal:{{ m.ideal.spec }}] SUM(CASE WHEN gain > 1 THEN gain - 1 ELSE 0 END) AS ideal_excess{{ m.gain.sfx }}
[ideal:{{ m.ideal.spec }}] COUNT(*) AS ideal_count{{ m.gain.sfx }}
{% endmacro %}

{% macro nDCG_rel_parts(m) %}{{ running_parts(m) }}
[graded:{{ m.cte.graded }}] SUM(CASE WHEN ranked.gain{{ m.gain.sfx }} > 0 THEN ranked.dcg{{ m.gain.sfx }}_so_far / COALESCE({{ m.ideal.spec }}.dcg_so_far, {{ m.ideal.spec }}_dcg.ideal_dcg{{ m.gain.sfx }}) ELSE 0 END) AS ndcg_rel_points{{ m.gain.sfx }}
[graded:{{ m.cte.graded }}] SUM(CASE WHEN ranked.gain{{ m.gain.sfx }} > 0 THEN 1 ELSE 0 END) AS positive_retrieved{{ m.gain.sfx }}
{% endmacro %}
{% macro nDCG_rel_value(m) %}
{%- set points = 'COALESCE(ndcg_rel_points' ~ m.gain.sfx ~ ', 0) + (ideal_count' ~ m.gain.sfx ~ ' - COALESCE(positive_retrieved' ~ m.gain.sfx ~ ', 0)) * COALESCE(dcg' ~ m.gain.sfx ~ ', 0) / ideal_dcg' ~ m.gain.sfx -%}
COALESCE(CASE WHEN {{ points }} > 0 THEN ({{ points }}) / ideal_count{{ m.gain.sfx }} ELSE 0 END, 0)
{%- endmacro %}

{% macro G_parts(m) %}{{ running_parts(m) }}
[graded:{{ m.cte.graded }}] SUM(ranked.gain{{ m.gain.sfx }} / {{ dialect.log2('2 + ranked.rank + COALESCE(' ~ m.ideal.spec ~ '.excess_so_far, ' ~ m.ideal.spec ~ '_dcg.ideal_excess' ~ m.gain.sfx ~ ') - ranked.gain' ~ m.gain.sfx ~ '_so_far') }}) AS g_sum{{ m.gain.sfx }}
{% endmacro %}
{% macro G_value(m) %}COALESCE(g_sum{{ m.gain.sfx }} / NULLIF(ideal_gain{{ m.gain.sfx }}, 0), 0){% endmacro %}

{% macro Rndcg_parts(m) %}{{ running_parts(m) }}
[judgments] {{ judging.num_rel_column(m.level) }}
[retrieved] {{ judging.num_ret_column() }}
[rndcg:{{ m.cte.rndcg }}] SUM(point) AS rndcg_sum{{ m.gain.sfx }}
[rndcg:{{ m.cte.rndcg }}] COUNT(*) AS rndcg_points{{ m.gain.sfx }}
{% endmacro %}
{% macro Rndcg_value(m) %}
{%- set sfx = m.gain.sfx -%}
{%- set extra = 'CASE WHEN COALESCE(num_ret, 0) > ideal_count' ~ sfx ~ ' + 1 THEN 1 ELSE 0 END' -%}
CASE WHEN COALESCE({{ judging.num_rel(m.level) }}, 0) = 0 THEN 0 ELSE COALESCE((rndcg_sum{{ sfx }} + {{ extra }} * COALESCE(dcg{{ sfx }}, 0) / ideal_dcg{{ sfx }}) / (rndcg_points{{ sfx }} + {{ extra }}), 0) END
{%- endmacro %}

{% macro cte_graded(name, columns, m) %}
{{ name }} AS (
    SELECT ranked.query_id{% for column in columns %},
           {{ column }}{% endfor %}

    FROM {{ m.ranked }} AS ranked
    JOIN {{ m.ideal.spec }}_dcg ON {{ m.ideal.spec }}_dcg.query_id = ranked.query_id
    LEFT JOIN {{ m.ideal.spec }} ON {{ m.ideal.spec }}.query_id = ranked.query_id AND {{ m.ideal.spec }}.rank = ranked.rank
    WHERE ranked.gain{{ m.gain.sfx }} <> 0
    GROUP BY ranked.query_id
)
{% endmacro %}

{% macro cte_rndcg(name, columns, m) %}
{{ name }}_points AS (
    SELECT ideal.query_id,
           COALESCE(ranked.dcg{{ m.gain.sfx }}_so_far, retrieved.dcg{{ m.gain.sfx }}, 0) / ideal.dcg_so_far AS point
    FROM {{ m.ideal.spec }} AS ideal
    LEFT JOIN {{ m.ranked }} AS ranked ON ranked.query_id = ideal.query_id AND ranked.rank = ideal.rank
    LEFT JOIN {{ m.retrieved }} AS retrieved ON retrieved.query_id = ideal.query_id
    WHERE ideal.next_gain IS NULL OR ideal.next_gain <> ideal.gain
),
{{ name }} AS (
    SELECT query_id{% for column in columns %},
           {{ column }}{% endfor %}

    FROM {{ name }}_points
    GROUP BY query_id
)
{% endmacro %}
