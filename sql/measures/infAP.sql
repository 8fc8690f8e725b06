{#-
  infAP (trec_eval infAP): inferred AP.
    infAP = (1 / R) * sum over retrieved relevant d at rank r of
              1                                                     when r = 1
              1/r + ((r-1)/r) * (a/(r-1)) * ((p + e) / (p + n + 2e))   otherwise,
            with p relevant, n judged non-relevant and a = p + n + pool-unjudged (negative
            label) documents above d, e = 1e-5
  Unjudged documents are skipped; negative labels are neither relevant nor non-relevant.
  Parameters: rel (minimum relevant label, default 1).
  Reference: Yilmaz & Aslam (CIKM 2006); trec_eval 10 m_infap.c (docs/trec_eval_semantics.md sec. 5).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/judging.sql' as judging %}

{% macro judgments(m) %}{{ judging.num_rel_column(m.level) }}{% endmacro %}
{% macro judged(m) %}
{{ judging.is_relevant_column(m.level) }}
{{ judging.is_nonrelevant_column(m.level) }}
{{ judging.is_pool_unjudged_column() }}
{% endmacro %}
{% macro ranked(m) %}
{{ judging.relevant_so_far_column(m.level) }}
{{ judging.nonrelevant_so_far_column(m.level) }}
{{ judging.pool_unjudged_so_far_column() }}
{% endmacro %}
{% macro retrieved(m) %}
{%- set p = judging.relevant_so_far(m.level) ~ ' - 1' -%}
{%- set n = judging.nonrelevant_so_far(m.level) -%}
{%- set e = 'CAST(0.00001 AS ' ~ DOUBLE ~ ')' -%}
{%- set above = 'CAST(' ~ p ~ ' + ' ~ n ~ ' + pool_unjudged_so_far AS ' ~ DOUBLE ~ ') / (rank - 1)' -%}
{%- set term = 'CASE WHEN rank = 1 THEN CAST(1 AS ' ~ DOUBLE ~ ') ELSE CAST(1 AS ' ~ DOUBLE ~ ') / rank + (CAST(rank - 1 AS ' ~ DOUBLE
    ~ ') / rank) * (' ~ above ~ ') * ((' ~ p ~ ' + ' ~ e ~ ') / (' ~ p ~ ' + ' ~ n ~ ' + 2 * ' ~ e ~ ')) END' -%}
{% call column("infap_sum_" ~ (m.level | key)) %}{{ dialect.sum_in_rank_order(term, judging.is_relevant(m.level) ~ ' = 1') }}{% endcall %}
{% endmacro %}
{% macro value(m) %}COALESCE(infap_sum_{{ m.level | key }} / NULLIF({{ judging.num_rel(m.level) }}, 0), 0){% endmacro %}
