{#-
  R@k (trec_eval recall_k): recall, the relevant documents in the top k divided by R, all
  relevant judgments of the query (0 when R = 0). With tie_break=expected, its mean over all
  orders of tied documents.
  Parameters: rel (minimum relevant label, default 1); cutoff k.
  Reference: trec_eval 10 m_recall.c.
-#}
{% import '_macros/judging.sql' as judging %}
{% import 'measures/P.sql' as precision %}

{% macro judgments(m) %}{{ judging.num_rel_column(m.level) }}{% endmacro %}
{% macro judged(m) %}{{ precision.judged(m) }}{% endmacro %}
{% macro tie(m) %}{{ precision.tie(m) }}{% endmacro %}
{% macro retrieved(m) %}{{ precision.retrieved(m) }}{% endmacro %}
{% macro value(m) %}COALESCE(CAST({{ judging.relevant_in_top(m.level, m.cutoff) }} AS {{ DOUBLE }}) / NULLIF({{ judging.num_rel(m.level) }}, 0), 0){% endmacro %}
