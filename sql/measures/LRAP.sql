{#-
  LRAP: label ranking average precision (scikit-learn's label_ranking_average_precision_score, per query). Each
  relevant retrieved document d counts the documents scored at least as high as d (its tie group whole: tied
  documents all count as above it) and the relevant ones among them:
    LRAP = (sum over relevant retrieved d of relevant up to the end of d's tie group / the rank of that end) / R
  R the query's relevant judgments (scikit-learn scores every label, so its R is the relevant retrieved); 1 where
  the query has no relevant judgment, as scikit-learn scores a sample without a relevant label. Independent of the
  order within tie groups, so of the tie-break. Without ties it is AP.
  Parameters: rel (minimum relevant label, default 1).
  Reference: scikit-learn, sklearn/metrics/_ranking.py (label_ranking_average_precision_score).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/judging.sql' as judging %}
{% macro level(m) %}{{ m.level | key }}{% endmacro %}
{% macro judgments(m) %}{{ judging.num_rel_column(m.level) }}{% endmacro %}
{% macro judged(m) %}{{ judging.is_relevant_column(m.level) }}{% endmacro %}
{% macro ranked(m) %}{{ judging.relevant_so_far_column(m.level) }}{% endmacro %}
{% macro tie(m) %}{{ judging.tie_relevant_columns(m.level) }}{% endmacro %}
{% macro retrieved(m) %}
{% call column('lrap_sum_' ~ level(m)) %}{{ dialect.sum_in_rank_order('CAST(tie_rel_before_' ~ level(m) ~ ' + tie_rel_' ~ level(m) ~ ' AS ' ~ DOUBLE ~ ') / tie_last',
                                                                    judging.is_relevant(m.level) ~ ' = 1') }}{% endcall %}
{% endmacro %}
{% macro value(m) %}CASE WHEN {{ judging.num_rel(m.level) }} > 0 THEN COALESCE(lrap_sum_{{ level(m) }}, 0) / {{ judging.num_rel(m.level) }} ELSE 1 END{% endmacro %}
