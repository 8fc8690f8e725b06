{#-
  P@k, R@k, Success@k, relative_P@k, Rprec, Rprec_mult@x: counts of relevant documents near the top.
    P@k            = |relevant in top k| / k   (k even when fewer are retrieved)
    R@k            = |relevant in top k| / R   (0 when R = 0)
    Success@k      = 1 when a relevant document is in the top k, else 0
    relative_P@k   = |relevant in top k| / min(k, R)   (0 when R = 0)
    Rprec          = |relevant in top R| / R   (0 when R = 0)
    Rprec_mult@x   = P@c with c = floor(x * R + 0.9); 0 when c = 0
  Parameters: rel (minimum relevant label, default 1); cutoff k or multiple x.
  Reads: ranked (rank, is_rel_L), judgments (num_rel_L). Emits one DOUBLE per query.
  Reference: trec_eval 10 m_P.c, m_recall.c, m_success.c, m_rel_P.c, m_Rprec.c, m_Rprec_mult.c.
-#}
{% import '_macros/judging.sql' as judging %}

{% macro relevant_in_top_parts(m) %}
[judged] {{ judging.is_relevant_column(m.level) }}
[retrieved] {{ judging.relevant_in_top_column(m.level, m.cutoff) }}
{% endmacro %}

{% macro P_parts(m) %}{{ relevant_in_top_parts(m) }}{% endmacro %}
{% macro P_value(m) %}CAST(COALESCE({{ judging.relevant_in_top(m.level, m.cutoff) }}, 0) AS DOUBLE) / {{ m.cutoff | number }}{% endmacro %}

{% macro R_parts(m) %}{{ relevant_in_top_parts(m) }}
[judgments] {{ judging.num_rel_column(m.level) }}
{% endmacro %}
{% macro R_value(m) %}COALESCE(CAST({{ judging.relevant_in_top(m.level, m.cutoff) }} AS DOUBLE) / NULLIF({{ judging.num_rel(m.level) }}, 0), 0){% endmacro %}

{% macro Success_parts(m) %}{{ relevant_in_top_parts(m) }}{% endmacro %}
{% macro Success_value(m) %}CASE WHEN {{ judging.relevant_in_top(m.level, m.cutoff) }} > 0 THEN CAST(1 AS DOUBLE) ELSE 0 END{% endmacro %}

{% macro relative_P_parts(m) %}{{ R_parts(m) }}{% endmacro %}
{% macro relative_P_value(m) %}COALESCE(CAST({{ judging.relevant_in_top(m.level, m.cutoff) }} AS DOUBLE) / NULLIF(LEAST({{ m.cutoff | number }}, {{ judging.num_rel(m.level) }}), 0), 0){% endmacro %}

{% macro Rprec_parts(m) %}
[judged] {{ judging.is_relevant_column(m.level) }}
[judgments] {{ judging.num_rel_column(m.level) }}
[join] judgments
[retrieved] SUM(CASE WHEN rank <= {{ judging.num_rel(m.level) }} THEN {{ judging.is_relevant(m.level) }} ELSE 0 END) AS rel_{{ m.level | number }}_top_r
{% endmacro %}
{% macro Rprec_value(m) %}COALESCE(CAST(rel_{{ m.level | number }}_top_r AS DOUBLE) / NULLIF({{ judging.num_rel(m.level) }}, 0), 0){% endmacro %}

{% macro r_multiple(m) %}FLOOR({{ judging.real(m.cutoff) }} * {{ judging.num_rel(m.level) }} + CAST(0.9 AS DOUBLE)){% endmacro %}
{% macro Rprec_mult_parts(m) %}
[judged] {{ judging.is_relevant_column(m.level) }}
[judgments] {{ judging.num_rel_column(m.level) }}
[join] judgments
[retrieved] SUM(CASE WHEN rank <= {{ r_multiple(m) }} THEN {{ judging.is_relevant(m.level) }} ELSE 0 END) AS rel_{{ m.level | number }}_top_r_times_{{ m.cut_key }}
{% endmacro %}
{% macro Rprec_mult_value(m) %}COALESCE(CAST(rel_{{ m.level | number }}_top_r_times_{{ m.cut_key }} AS DOUBLE) / NULLIF({{ r_multiple(m) }}, 0), 0){% endmacro %}
