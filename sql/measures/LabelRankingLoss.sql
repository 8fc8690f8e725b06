{#-
  LabelRankingLoss: scikit-learn's label_ranking_loss per query, the share of (relevant, non-relevant)
  pairs the ranking puts in the wrong order, a tie counting as wrong (lower is better):
    LabelRankingLoss = (sum over relevant d of the non-relevant documents scored at least as high as d) / (R N)
  over the retrieved documents, unjudged ones non-relevant, as scikit-learn's sample holds every label:
  N the non-relevant retrieved, R the query's relevant judgments. A relevant document the run did not
  retrieve ranks below every retrieved one (N wrong pairs), so with every relevant document retrieved it is
  scikit-learn's value. 0 where R or N is 0, as scikit-learn scores a sample of one class. Independent of
  the order within tie groups, so of the tie-break.
  Parameters: rel (minimum relevant label, default 1).
  Reference: scikit-learn, sklearn/metrics/_ranking.py (label_ranking_loss); Tsoumakas et al. (2010).
-#}
{% import '_macros/judging.sql' as judging %}
{% macro level(m) %}{{ m.level | key }}{% endmacro %}
{% macro judgments(m) %}{{ judging.num_rel_column(m.level) }}{% endmacro %}
{% macro judged(m) %}{{ judging.is_relevant_column(m.level) }}{% endmacro %}
{% macro ranked(m) %}{{ judging.relevant_so_far_column(m.level) }}{% endmacro %}
{% macro tie(m) %}{{ judging.tie_relevant_columns(m.level) }}{% endmacro %}
{% macro retrieved(m) %}
{{ judging.num_ret_column(m) }}
{{ judging.relevant_in_top_column(m.level, none, m) }}
{% call column('rank_loss_sum_' ~ level(m)) %}SUM(CASE WHEN {{ judging.is_relevant(m.level) }} = 1 THEN tie_last - tie_rel_before_{{ level(m) }} - tie_rel_{{ level(m) }} ELSE 0 END){% endcall %}
{% endmacro %}
{% macro value(m) %}
{%- set r = judging.num_rel(m.level) -%}
{%- set retrieved_rel = 'COALESCE(' ~ judging.relevant_in_top(m.level, none) ~ ', 0)' -%}
{%- set n = '(COALESCE(num_ret, 0) - ' ~ retrieved_rel ~ ')' -%}
CASE WHEN {{ r }} > 0 AND {{ n }} > 0 THEN CAST(COALESCE(rank_loss_sum_{{ level(m) }}, 0) + ({{ r }} - {{ retrieved_rel }}) * {{ n }} AS {{ DOUBLE }}) / ({{ r }} * {{ n }}) ELSE 0 END
{%- endmacro %}
