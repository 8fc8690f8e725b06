{#-
  P@k, R@k, Success@k, Rprec: counts of relevant documents near the top.
    P@k       = |relevant in top k| / k   (k even when fewer are retrieved)
    R@k       = |relevant in top k| / R   (0 when R = 0)
    Success@k = 1 when a relevant document is in the top k, else 0
    Rprec     = |relevant in top R| / R   (0 when R = 0)
  Parameters: rel (minimum relevant label, default 1); cutoff k.
  Reads: ranked (rank, is_rel_L), judgments (num_rel_L). Emits one DOUBLE per query.
  Reference: trec_eval 10 m_P.c, m_recall.c, m_success.c, m_Rprec.c (SEMANTICS.md sec. 5).
-#}
{% import '_macros/judging.sql' as judging %}

{% macro P_judged(m) %}{{ judging.is_relevant_column(m.level) }}{% endmacro %}
{% macro P_retrieved(m) %}{{ judging.relevant_in_top_column(m.level, m.cutoff) }}{% endmacro %}
{% macro P_value(m) %}CAST(COALESCE({{ judging.relevant_in_top(m.level, m.cutoff) }}, 0) AS DOUBLE) / {{ m.cutoff | number }}{% endmacro %}

{% macro R_judged(m) %}{{ judging.is_relevant_column(m.level) }}{% endmacro %}
{% macro R_retrieved(m) %}{{ judging.relevant_in_top_column(m.level, m.cutoff) }}{% endmacro %}
{% macro R_judgments(m) %}{{ judging.num_rel_column(m.level) }}{% endmacro %}
{% macro R_value(m) %}COALESCE(CAST({{ judging.relevant_in_top(m.level, m.cutoff) }} AS DOUBLE) / NULLIF({{ judging.num_rel(m.level) }}, 0), 0){% endmacro %}

{% macro Success_judged(m) %}{{ judging.is_relevant_column(m.level) }}{% endmacro %}
{% macro Success_retrieved(m) %}{{ judging.relevant_in_top_column(m.level, m.cutoff) }}{% endmacro %}
{% macro Success_value(m) %}CASE WHEN {{ judging.relevant_in_top(m.level, m.cutoff) }} > 0 THEN CAST(1 AS DOUBLE) ELSE 0 END{% endmacro %}

{% macro Rprec_judged(m) %}{{ judging.is_relevant_column(m.level) }}{% endmacro %}
{% macro Rprec_retrieved(m) %}SUM(CASE WHEN rank <= {{ judging.num_rel(m.level) }} THEN {{ judging.is_relevant(m.level) }} ELSE 0 END) AS rel_{{ m.level | number }}_top_r{% endmacro %}
{% macro Rprec_judgments(m) %}{{ judging.num_rel_column(m.level) }}{% endmacro %}
{% macro Rprec_value(m) %}COALESCE(CAST(rel_{{ m.level | number }}_top_r AS DOUBLE) / NULLIF({{ judging.num_rel(m.level) }}, 0), 0){% endmacro %}
