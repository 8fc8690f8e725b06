{#-
  relative_P@k (trec_eval relative_P_k): the relevant documents in the top k divided by min(k, R)
  (0 when R = 0). With tie_break=expected, its mean over all orders of tied documents.
  Parameters: rel (minimum relevant label, default 1); cutoff k.
  Reference: trec_eval 10 m_rel_P.c.
-#}
{% import '_macros/judging.sql' as judging %}
{% import 'measures/R.sql' as recall %}

{% macro judgments(m) %}{{ recall.judgments(m) }}{% endmacro %}
{% macro judged(m) %}{{ recall.judged(m) }}{% endmacro %}
{% macro tie(m) %}{{ recall.tie(m) }}{% endmacro %}
{% macro retrieved(m) %}{{ recall.retrieved(m) }}{% endmacro %}
{% macro value(m) %}COALESCE(CAST({{ judging.relevant_in_top(m.level, m.cutoff) }} AS {{ DOUBLE }}) / NULLIF(LEAST({{ m.cutoff | number }}, {{ judging.num_rel(m.level) }}), 0), 0){% endmacro %}
