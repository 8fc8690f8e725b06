{#-
  RR and RR@k (trec_eval recip_rank): 1 / rank of the first relevant document, 0 when none
  is retrieved (within the top k).
  With tie_break=expected, the mean over all orders of tied documents: the first relevant
  document is in the first group holding one (s documents, r relevant, starting at rank f);
  it is at the group's j-th position with chance C(s - j, r - 1) / C(s, r).
  Parameters: rel (minimum relevant label, default 1); cutoff k (default: whole ranking).
  Reads: ranked (rank, is_rel_L). Emits one DOUBLE per query.
  Reference: trec_eval 10 m_recip_rank.c (SEMANTICS.md sec. 5).
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/ties.sql' as ties %}
{% import '_macros/dialect.sql' as dialect %}

{% macro RR_parts(m) %}
[judged] {{ judging.is_relevant_column(m.level) }}
{% if m.expected %}
[ranked] {{ judging.relevant_so_far_column(m.level) }}
{{ ties.group_columns() }}
[tie] SUM({{ judging.is_relevant(m.level) }}) OVER tie AS tie_rel_{{ m.level | number }}
[tie] MIN({{ judging.relevant_so_far(m.level) }} - {{ judging.is_relevant(m.level) }}) OVER tie AS tie_rel_before_{{ m.level | number }}
[retrieved] SUM(CASE WHEN tie_rel_before_{{ m.level | number }} = 0 AND tie_rel_{{ m.level | number }} > 0{% if m.cutoff is not none %} AND rank <= {{ m.cutoff | number }}{% endif %} AND tie_size - (rank - tie_first + 1) >= tie_rel_{{ m.level | number }} - 1 THEN EXP({{ dialect.ln_choose('tie_size - (rank - tie_first + 1)', 'tie_rel_' ~ m.level ~ ' - 1') }} - {{ dialect.ln_choose('tie_size', 'tie_rel_' ~ m.level) }}) / rank ELSE 0 END) AS expected_rr_{{ m.level | number }}{{ judging.cut(m.cutoff) }}
{% else %}
[retrieved] {{ judging.first_relevant_column(m.level) }}
{% endif %}
{% endmacro %}
{% macro RR_value(m) %}
{% if m.expected %}
COALESCE(expected_rr_{{ m.level | number }}{{ judging.cut(m.cutoff) }}, 0)
{%- elif m.cutoff is none %}
COALESCE(CAST(1 AS DOUBLE) / {{ judging.first_relevant(m.level) }}, 0)
{%- else %}
CASE WHEN {{ judging.first_relevant(m.level) }} <= {{ m.cutoff | number }} THEN CAST(1 AS DOUBLE) / {{ judging.first_relevant(m.level) }} ELSE 0 END
{%- endif %}
{% endmacro %}
