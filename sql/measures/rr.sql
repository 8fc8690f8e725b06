{#-
  RR and RR@k (trec_eval recip_rank): 1 / rank of the first relevant document, 0 when none
  is retrieved (within the top k).
  Parameters: rel (minimum relevant label, default 1); cutoff k (default: whole ranking).
  Reads: ranked (rank, is_rel_L). Emits one DOUBLE per query.
  Reference: trec_eval 10 m_recip_rank.c (SEMANTICS.md sec. 5).
-#}
{% import '_macros/judging.sql' as judging %}

{% macro RR_parts(m) %}
[judged] {{ judging.is_relevant_column(m.level) }}
[retrieved] {{ judging.first_relevant_column(m.level) }}
{% endmacro %}
{% macro RR_value(m) %}
{% if m.cutoff is none %}
COALESCE(CAST(1 AS DOUBLE) / {{ judging.first_relevant(m.level) }}, 0)
{%- else %}
CASE WHEN {{ judging.first_relevant(m.level) }} <= {{ m.cutoff | number }} THEN CAST(1 AS DOUBLE) / {{ judging.first_relevant(m.level) }} ELSE 0 END
{%- endif %}
{% endmacro %}
