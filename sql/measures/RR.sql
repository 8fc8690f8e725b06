{#-
  RR and RR@k (trec_eval recip_rank): 1 / rank of the first relevant document, 0 when none
  is retrieved (within the top k).
  With tie_break=expected, the mean over all orders of tied documents: the first relevant
  document is in the first group holding one (s documents, r relevant, starting at rank f);
  it is at the group's j-th position with chance C(s - j, r - 1) / C(s, r).
  Parameters: rel (minimum relevant label, default 1); cutoff k (default: whole ranking).
  Reference: trec_eval 10 m_recip_rank.c (docs/trec_eval_semantics.md sec. 5).
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/dialect.sql' as dialect %}

{% macro level(m) %}{{ m.level | key }}{% endmacro %}
{% macro expected_rr(m) %}expected_rr_{{ level(m) }}{{ judging.cut(m.cutoff) }}{% endmacro %}

{% macro judged(m) %}{{ judging.is_relevant_column(m.level) }}{% endmacro %}
{% macro ranked(m) %}{% if m.expected %}{{ judging.relevant_so_far_column(m.level) }}{% endif %}{% endmacro %}
{% macro tie(m) %}{% if m.expected %}{{ judging.tie_relevant_columns(m.level) }}{% endif %}{% endmacro %}
{% macro retrieved(m) %}
{% if m.expected %}
{%- set r = 'tie_rel_' ~ level(m) -%}
{%- set later = 'tie_size - (rank - tie_first + 1)' -%}
{%- set chance = 'EXP(' ~ dialect.ln_choose(later, r ~ ' - 1') ~ ' - ' ~ dialect.ln_choose('tie_size', r) ~ ')' -%}
{% call column(expected_rr(m)) %}{{ dialect.sum_in_rank_order(chance ~ ' / rank', 'tie_rel_before_' ~ level(m) ~ ' = 0 AND ' ~ r ~ ' > 0 AND ' ~ later ~ ' >= ' ~ r ~ ' - 1',
                                                                 m.cutoff) }}{% endcall %}
{% else %}
{{ judging.first_relevant_column(m.level) }}
{% endif %}
{% endmacro %}
{% macro value(m) %}
{% if m.expected %}
COALESCE({{ expected_rr(m) }}, 0)
{%- elif m.cutoff is none %}
COALESCE(CAST(1 AS {{ DOUBLE }}) / {{ judging.first_relevant(m.level) }}, 0)
{%- else %}
CASE WHEN {{ judging.first_relevant(m.level) }} <= {{ m.cutoff | number }} THEN CAST(1 AS {{ DOUBLE }}) / {{ judging.first_relevant(m.level) }} ELSE 0 END
{%- endif %}
{% endmacro %}
