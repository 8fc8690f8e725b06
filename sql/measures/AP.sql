{#-
  AP and AP@k (trec_eval map, map_cut_k): average precision.
    AP@k = sum over relevant documents d in the top k of P@rank(d), divided by D, where the
           ap_denominator D is num_rel (R, all relevant judgments; trec_eval, also with a cutoff),
           retrieved_relevant (the relevant documents in the top k; TorchMetrics), or
           min_num_rel_cutoff (min(R, k); RecBole, Spark MLlib, MS Recommenders map_at_k); 0 when D = 0.
  With tie_break=expected, the mean over all orders of tied documents: a relevant document
  in a group of s documents (r relevant, B relevant above the group) at the group's j-th
  position has precision (B + 1 + (j - 1)(r - 1)/(s - 1)) / rank, each position having
  chance 1/s (McSherry & Najork 2008). With tie_break=block (no cutoff), scikit-learn's
  average_precision_score: a relevant document's precision is that at its tie group's end, the
  relevant up to the group's last rank over that rank (the whole group counts as above it).
  Parameters: rel (minimum relevant label, default 1); ap_denominator; cutoff k (default: whole ranking).
  Reference: trec_eval 10 m_map.c, m_map_cut.c (docs/trec_eval_semantics.md sec. 5).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/judging.sql' as judging %}

{% macro precision_sum(m) %}precision_sum_{{ m.level | key }}{{ judging.cut(m.cutoff) }}{% endmacro %}
{% macro level(m) %}{{ m.level | key }}{% endmacro %}

{% macro judgments(m) %}{{ judging.num_rel_column(m.level) }}{% endmacro %}
{% macro judged(m) %}{{ judging.is_relevant_column(m.level) }}{% endmacro %}
{#- The running count of relevant documents: for the tie columns, and AP's precisions outside DuckDB. -#}
{% macro ranked(m) %}{% if m.expected or m.block or dialect_name() != 'duckdb' %}{{ judging.relevant_so_far_column(m.level) }}{% endif %}{% endmacro %}
{% macro tie(m) %}{% if m.expected or m.block %}{{ judging.tie_relevant_columns(m.level) }}{% endif %}{% endmacro %}
{% macro retrieved(m) %}
{% if m.expected %}
{%- set r = 'tie_rel_' ~ level(m) -%}
{%- set term = 'CAST(' ~ r ~ ' AS ' ~ DOUBLE ~ ') / tie_size * (tie_rel_before_' ~ level(m) ~ ' + 1 + CASE WHEN tie_size > 1 THEN CAST((rank - tie_first) * ('
                 ~ r ~ ' - 1) AS ' ~ DOUBLE ~ ') / (tie_size - 1) ELSE 0 END) / rank' -%}
{% call column(precision_sum(m)) %}{{ dialect.sum_in_rank_order(term, none, m.cutoff) }}{% endcall %}
{% elif m.block %}
{% call column(precision_sum(m)) %}{{ dialect.sum_in_rank_order('CAST(tie_rel_before_' ~ level(m) ~ ' + tie_rel_' ~ level(m) ~ ' AS ' ~ DOUBLE ~ ') / tie_last',
                                                                  judging.is_relevant(m.level) ~ ' = 1') }}{% endcall %}
{% else %}
{% call column(precision_sum(m)) %}{{ dialect.precision_sum_in_rank_order(judging.relevant_up_to(m.level, none), judging.relevant_so_far(m.level), m.cutoff) }}{% endcall %}
{% endif %}
{% if m.ap_denominator == 'retrieved_relevant' %}
{{ judging.relevant_in_top_column(m.level, m.cutoff, m) }}
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
{% macro value(m) %}COALESCE({{ precision_sum(m) }} / NULLIF({{ denominator(m) }}, 0), 0){% endmacro %}
