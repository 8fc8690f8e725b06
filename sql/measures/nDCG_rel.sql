{#-
  nDCG_rel (trec_eval ndcg_rel, experimental): with DCG@i and IDCG@i as in measures/nDCG.sql and
  n+ the number of judgments with a positive gain,
    nDCG_rel = (sum over retrieved d with gain > 0 of DCG@rank(d) / IDCG@rank(d)
                + (n+ - those retrieved) * DCG / IDCG) / n+          (0 when that sum is 0)
  The per-document ratios are the shared step "graded" (sql/evaluation/graded.sql).
  Reference: trec_eval 10 m_ndcg_rel.c.
-#}
{% import '_macros/running_dcg.sql' as running_dcg %}
{% import '_macros/dialect.sql' as dialect %}

{% macro judged(m) %}{{ running_dcg.judged(m) }}{% endmacro %}
{% macro retrieved(m) %}{{ running_dcg.retrieved(m) }}{% endmacro %}
{% macro ideal(m) %}{{ running_dcg.ideal(m) }}{% endmacro %}
{% macro graded(m) %}
{%- set sfx = m.gain.sfx -%}
{%- set ideal_so_far = 'COALESCE(' ~ m.ideal.spec ~ '.dcg_so_far, ' ~ m.ideal.spec ~ '_dcg.ideal_dcg' ~ sfx ~ ')' -%}
{% call column("ndcg_rel_points" ~ sfx) %}{{ dialect.sum_in_rank_order('ranked.dcg' ~ sfx ~ '_so_far / ' ~ ideal_so_far, 'ranked.gain' ~ sfx ~ ' > 0', rank='ranked.rank') }}{% endcall %}
{% call column("positive_retrieved" ~ sfx) %}SUM(CASE WHEN ranked.gain{{ sfx }} > 0 THEN 1 ELSE 0 END){% endcall %}
{% endmacro %}
{% macro value(m) %}
{%- set sfx = m.gain.sfx -%}
{%- set missed = '(ideal_count' ~ sfx ~ ' - COALESCE(positive_retrieved' ~ sfx ~ ', 0)) * COALESCE(dcg' ~ sfx ~ ', 0) / ideal_dcg' ~ sfx -%}
{%- set points = 'COALESCE(ndcg_rel_points' ~ sfx ~ ', 0) + ' ~ missed -%}
COALESCE(CASE WHEN {{ points }} > 0 THEN ({{ points }}) / ideal_count{{ sfx }} ELSE 0 END, 0)
{%- endmacro %}
