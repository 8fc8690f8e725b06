{#-
  AP, AP@k, GMAP, YAAP (trec_eval map, map_cut_k, gm_map, yaap): average precision.
    AP@k = sum over relevant documents d in the top k of P@rank(d), divided by D, where the
           ap_denominator D is num_rel (R, all relevant judgments; trec_eval, also with a cutoff),
           retrieved_relevant (the relevant documents in the top k; TorchMetrics), or
           min_num_rel_cutoff (min(R, k); RecBole, Spark MLlib, MS Recommenders map_at_k); 0 when D = 0.
  With tie_break=expected, the mean over all orders of tied documents: a relevant document
  in a group of s documents (r relevant, B relevant above the group) at the group's j-th
  position has precision (B + 1 + (j - 1)(r - 1)/(s - 1)) / rank, each position having
  chance 1/s (McSherry & Najork 2008).
  GMAP is AP per query, averaged over queries as exp(mean(ln(max(AP, 1e-5)))).
  YAAP = ln((1 + S) / (1 + R - S)) with S = AP * R, the sum of the precisions.
  Parameters: rel (minimum relevant label, default 1); cutoff k (default: whole ranking).
  Reads: ranked (rank, is_rel_L, rel_L_so_far = relevant documents at or above the row),
         judgments (num_rel_L). Emits one DOUBLE per query.
  Reference: trec_eval 10 m_map.c, m_map_cut.c, m_gm_map.c, m_yaap.c (SEMANTICS.md sec. 5).
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/ties.sql' as ties %}

{% macro precision_sum(m) %}precision_sum_{{ m.level | number }}{{ judging.cut(m.cutoff) }}{% endmacro %}
{% macro level(m) %}{{ m.level | number }}{% endmacro %}

{% macro AP_parts(m) %}
[judged] {{ judging.is_relevant_column(m.level) }}
[ranked] {{ judging.relevant_so_far_column(m.level) }}
[judgments] {{ judging.num_rel_column(m.level) }}
{% if m.expected %}
{{ ties.group_columns() }}
[tie] SUM({{ judging.is_relevant(m.level) }}) OVER tie AS tie_rel_{{ level(m) }}
[tie] MIN({{ judging.relevant_so_far(m.level) }} - {{ judging.is_relevant(m.level) }}) OVER tie AS tie_rel_before_{{ level(m) }}
[retrieved] SUM(CAST(tie_rel_{{ level(m) }} AS DOUBLE) / tie_size * (tie_rel_before_{{ level(m) }} + 1 + CASE WHEN tie_size > 1 THEN CAST((rank - tie_first) * (tie_rel_{{ level(m) }} - 1) AS DOUBLE) / (tie_size - 1) ELSE 0 END) / rank{% if m.cutoff is not none %} * CASE WHEN rank <= {{ m.cutoff | number }} THEN 1 ELSE 0 END{% endif %}) AS {{ precision_sum(m) }}
{% else %}
[retrieved] SUM(CASE WHEN {{ judging.relevant_up_to(m.level, m.cutoff) }} THEN CAST({{ judging.relevant_so_far(m.level) }} AS DOUBLE) / rank ELSE 0 END) AS {{ precision_sum(m) }}
{% endif %}
{% if m.ap_denominator == 'retrieved_relevant' %}
[retrieved] {{ judging.relevant_in_top_column(m.level, m.cutoff, m) }}
{% endif %}
{% endmacro %}
{% macro denominator(m) -%}
{%- if m.ap_denominator == 'retrieved_relevant' -%}
{{ judging.relevant_in_top(m.level, m.cutoff) }}
{%- elif m.ap_denominator == 'min_num_rel_cutoff' and m.cutoff is not none -%}
LEAST({{ judging.num_rel(m.level) }}, {{ m.cutoff | number }})
{%- else -%}
{{ judging.num_rel(m.level) }}
{%- endif -%}
{%- endmacro %}
{% macro AP_value(m) %}COALESCE({{ precision_sum(m) }} / NULLIF({{ denominator(m) }}, 0), 0){% endmacro %}

{% macro GMAP_parts(m) %}{{ AP_parts(m) }}{% endmacro %}
{% macro GMAP_value(m) %}{{ AP_value(m) }}{% endmacro %}

{% macro YAAP_parts(m) %}{{ AP_parts(m) }}{% endmacro %}
{% macro YAAP_value(m) %}LN((1 + COALESCE({{ precision_sum(m) }}, 0)) / (1 + COALESCE({{ judging.num_rel(m.level) }}, 0) - COALESCE({{ precision_sum(m) }}, 0))){% endmacro %}
