{#-
  Bpref (trec_eval bpref): binary preference.
    Bpref = (1 / R) * sum over retrieved relevant d of (1 - min(n_d, R) / min(N, R)),
            n_d = judged non-relevant documents above d, N = judged non-relevant in the qrels
            (a term is 1 when n_d = 0); formula=original divides min(n_d, R) by R instead, as
            Buckley & Voorhees' formula (TF-Ranking's use_trec_version=False)
  Unjudged documents are skipped; negative labels are neither relevant nor non-relevant.
  Parameters: rel (minimum relevant label, default 1); formula (trec_eval or original).
  Reference: Buckley & Voorhees (SIGIR 2004); trec_eval 10 m_bpref.c (docs/trec_eval_semantics.md sec. 5).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/judging.sql' as judging %}

{% macro judgments(m) %}
{{ judging.num_rel_column(m.level) }}
{{ judging.num_nonrel_column(m.level) }}
{% endmacro %}
{% macro judged(m) %}
{{ judging.is_relevant_column(m.level) }}
{{ judging.is_nonrelevant_column(m.level) }}
{% endmacro %}
{% macro ranked(m) %}{{ judging.nonrelevant_so_far_column(m.level) }}{% endmacro %}
{% macro retrieved(m) %}
{%- set above = judging.nonrelevant_so_far(m.level) -%}
{%- set r = 'judgments.' ~ judging.num_rel(m.level) -%}
{%- set n = 'judgments.' ~ judging.num_nonrel(m.level) -%}
{%- set divisor = r if m.get('formula') == 'original' else 'LEAST(' ~ n ~ ', ' ~ r ~ ')' -%}
{% call column(bpref_sum(m)) %}{{ dialect.sum_in_rank_order('CASE WHEN ' ~ above ~ ' > 0 THEN 1 - CAST(LEAST(' ~ above ~ ', ' ~ r ~ ') AS ' ~ DOUBLE ~ ') / ' ~ divisor ~ ' ELSE 1 END', judging.is_relevant(m.level) ~ ' = 1') }}{% endcall %}
{% endmacro %}
{% macro bpref_sum(m) %}bpref_sum_{{ m.level | key }}{% if m.get('formula') == 'original' %}_original{% endif %}{% endmacro %}
{% macro value(m) %}COALESCE({{ dialect.as_double(bpref_sum(m)) }} / NULLIF({{ judging.num_rel(m.level) }}, 0), 0){% endmacro %}
