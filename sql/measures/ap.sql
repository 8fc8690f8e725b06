{#-
  AP, AP@k, GMAP, YAAP (trec_eval map, map_cut_k, gm_map, yaap): average precision.
    AP@k = sum over relevant documents d in the top k of P@rank(d), divided by R
  The denominator is R, all relevant judgments of the query (also with a cutoff); 0 when R = 0.
  GMAP is AP per query, averaged over queries as exp(mean(ln(max(AP, 1e-5)))).
  YAAP = ln((1 + S) / (1 + R - S)) with S = AP * R, the sum of the precisions.
  Parameters: rel (minimum relevant label, default 1); cutoff k (default: whole ranking).
  Reads: ranked (rank, is_rel_L, rel_L_so_far = relevant documents at or above the row),
         judgments (num_rel_L). Emits one DOUBLE per query.
  Reference: trec_eval 10 m_map.c, m_map_cut.c, m_gm_map.c, m_yaap.c (SEMANTICS.md sec. 5).
-#}
{% import '_macros/judging.sql' as judging %}

{% macro precision_sum(m) %}precision_sum_{{ m.level | number }}{{ judging.cut(m.cutoff) }}{% endmacro %}

{% macro AP_parts(m) %}
[judged] {{ judging.is_relevant_column(m.level) }}
[ranked] {{ judging.relevant_so_far_column(m.level) }}
[retrieved] SUM(CASE WHEN {{ judging.relevant_up_to(m.level, m.cutoff) }} THEN CAST({{ judging.relevant_so_far(m.level) }} AS DOUBLE) / rank ELSE 0 END) AS {{ precision_sum(m) }}
[judgments] {{ judging.num_rel_column(m.level) }}
{% endmacro %}
{% macro AP_value(m) %}COALESCE({{ precision_sum(m) }} / NULLIF({{ judging.num_rel(m.level) }}, 0), 0){% endmacro %}

{% macro GMAP_parts(m) %}{{ AP_parts(m) }}{% endmacro %}
{% macro GMAP_value(m) %}{{ AP_value(m) }}{% endmacro %}

{% macro YAAP_parts(m) %}{{ AP_parts(m) }}{% endmacro %}
{% macro YAAP_value(m) %}LN((1 + COALESCE({{ precision_sum(m) }}, 0)) / (1 + COALESCE({{ judging.num_rel(m.level) }}, 0) - COALESCE({{ precision_sum(m) }}, 0))){% endmacro %}
