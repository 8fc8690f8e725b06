{#-
  Rndcg (trec_eval Rndcg, experimental): the mean of DCG@c / IDCG@c over the ranks c where the
  ideal gain changes (the last ideal document included), plus DCG / IDCG at the last retrieved
  rank when at least n+ + 2 documents are retrieved (trec_eval's loop consumes rank n+ + 1 when
  it finds the ideal gain falling to 0); 0 when R = 0 (R at the relevance level rel).
  The ratios are the shared step "rndcg" (sql/evaluation/rndcg.sql).
  Reference: trec_eval 10 m_Rndcg.c.
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/running_dcg.sql' as running_dcg %}
{% import '_macros/dialect.sql' as dialect %}

{% macro judgments(m) %}{{ judging.num_rel_column(m.level) }}{% endmacro %}
{% macro judged(m) %}{{ running_dcg.judged(m) }}{% endmacro %}
{% macro retrieved(m) %}
{{ running_dcg.retrieved(m) }}
{{ judging.num_ret_column(m) }}
{% endmacro %}
{% macro ideal(m) %}{{ running_dcg.ideal(m) }}{% endmacro %}
{% macro rndcg(m) %}
{% call column("rndcg_sum" ~ m.gain.sfx) %}{{ dialect.sum_in_rank_order('point') }}{% endcall %}
{% call column("rndcg_points" ~ m.gain.sfx) %}COUNT(*){% endcall %}
{% endmacro %}
{% macro value(m) %}
{%- set sfx = m.gain.sfx -%}
{%- set extra = 'CASE WHEN COALESCE(num_ret, 0) > ideal_count' ~ sfx ~ ' + 1 THEN 1 ELSE 0 END' -%}
{%- set ratio = '(rndcg_sum' ~ sfx ~ ' + ' ~ extra ~ ' * COALESCE(dcg' ~ sfx ~ ', 0) / ideal_dcg' ~ sfx ~ ') / (rndcg_points' ~ sfx ~ ' + ' ~ extra ~ ')' -%}
CASE WHEN COALESCE({{ judging.num_rel(m.level) }}, 0) = 0 THEN 0 ELSE COALESCE({{ ratio }}, 0) END
{%- endmacro %}
