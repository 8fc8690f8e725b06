{#-
  Judging: which retrieved documents count as relevant, and R, the number of relevant
  judgments of a query. A document is relevant at level L when its label is >= L, judged
  non-relevant when 0 <= label < L. Unjudged documents (no qrels row: relevance NULL) and
  negative labels ("in the pool but not judged" in trec_eval) are neither; with L >= 0 they
  never count towards R.
  Reference: trec_eval 10 form_res_rels.c (docs/trec_eval_semantics.md sec. 1, items 6, 7, 9).
-#}
{% macro is_relevant(level) %}is_rel_{{ level | key }}{% endmacro %}
{% macro is_relevant_column(level) %}{% call column(is_relevant(level)) %}CASE WHEN relevance >= {{ level | number }} THEN 1 ELSE 0 END{% endcall %}{% endmacro %}
{% macro is_nonrelevant(level) %}is_nonrel_{{ level | key }}{% endmacro %}
{% macro is_nonrelevant_column(level) %}{% call column(is_nonrelevant(level)) %}CASE WHEN relevance >= 0 AND relevance < {{ level | number }} THEN 1 ELSE 0 END{% endcall %}{% endmacro %}
{% macro is_unjudged_column() %}{% call column("is_unjudged") %}CASE WHEN relevance IS NULL OR relevance < 0 THEN 1 ELSE 0 END{% endcall %}{% endmacro %}
{% macro is_pool_unjudged_column() %}{% call column("is_pool_unjudged") %}CASE WHEN relevance < 0 THEN 1 ELSE 0 END{% endcall %}{% endmacro %}

{% macro relevant_so_far(level) %}rel_{{ level | key }}_so_far{% endmacro %}
{% macro relevant_so_far_column(level) %}{% call column(relevant_so_far(level)) %}SUM({{ is_relevant(level) }}) OVER ranking{% endcall %}{% endmacro %}
{% macro nonrelevant_so_far(level) %}nonrel_{{ level | key }}_so_far{% endmacro %}
{% macro nonrelevant_so_far_column(level) %}{% call column(nonrelevant_so_far(level)) %}SUM({{ is_nonrelevant(level) }}) OVER ranking{% endcall %}{% endmacro %}
{% macro pool_unjudged_so_far_column() %}{% call column("pool_unjudged_so_far") %}SUM(is_pool_unjudged) OVER ranking{% endcall %}{% endmacro %}

{% macro num_rel(level) %}num_rel_{{ level | key }}{% endmacro %}
{#- Counts are COUNT, a 64-bit integer everywhere (DuckDB's SUM of integers is a 128-bit HUGEINT,
    slow to compare with ranks on every row). -#}
{% macro num_rel_column(level) %}{% call column(num_rel(level)) %}COUNT(CASE WHEN relevance >= {{ level | number }} THEN 1 END){% endcall %}{% endmacro %}
{% macro num_nonrel(level) %}num_nonrel_{{ level | key }}{% endmacro %}
{% macro num_nonrel_column(level) %}{% call column(num_nonrel(level)) %}COUNT(CASE WHEN relevance >= 0 AND relevance < {{ level | number }} THEN 1 END){% endcall %}{% endmacro %}

{% import '_macros/ties.sql' as ties %}
{#- Relevant documents in the top k (or in the whole ranking when k is none); with
    tie_break=expected, their expected number. -#}
{% macro relevant_in_top(level, k) %}rel_{{ level | key }}_{% if k is none %}retrieved{% else %}top_{{ k | number }}{% endif %}{% endmacro %}
{% macro relevant_in_top_column(level, k, m) %}
{% if k is none %}
{% call column((relevant_in_top(level, k))) %}SUM({{ is_relevant(level) }}){% endcall %}
{% elif m.expected %}
{% call column((relevant_in_top(level, k))) %}SUM({{ is_relevant(level) }} * {{ ties.within(k | number, m) }}){% endcall %}
{% else %}
{% call column((relevant_in_top(level, k))) %}SUM(CASE WHEN rank <= {{ k | number }} THEN {{ is_relevant(level) }} ELSE 0 END){% endcall %}
{% endif %}
{% endmacro %}
{#- The documents retrieved: counted over the ranking's rows, or (a sparse ranking, whose rows are
    its judged documents) read from its per-query counts, retrieved_counts in values.sql. -#}
{% macro num_ret_column(m) %}{% if not m.sparse %}{% call column("num_ret") %}COUNT(*){% endcall %}{% endif %}{% endmacro %}

{#- The tie step of AP and RR under tie_break=expected: each tie group's bounds and size, its
    relevant documents, and the relevant documents above it. -#}
{% macro tie_relevant_columns(level) %}
{{ ties.group_columns() }}
{% call column("tie_rel_" ~ (level | key)) %}SUM({{ is_relevant(level) }}) OVER tie{% endcall %}
{% call column("tie_rel_before_" ~ (level | key)) %}MIN({{ relevant_so_far(level) }} - {{ is_relevant(level) }}) OVER tie{% endcall %}
{% endmacro %}

{#- Rank of the first relevant document; NULL when none is retrieved. -#}
{% macro first_relevant(level) %}first_rel_{{ level | key }}{% endmacro %}
{% macro first_relevant_column(level) %}{% call column(first_relevant(level)) %}MIN(CASE WHEN {{ is_relevant(level) }} = 1 THEN rank END){% endcall %}{% endmacro %}

{% macro cut(k) %}{% if k is not none %}_top_{{ k | number }}{% endif %}{% endmacro %}

{#- A condition on a row: relevant at level L (and, with a cutoff k, within the top k). -#}
{% macro relevant_up_to(level, k) %}{{ is_relevant(level) }} = 1{% if k is not none %} AND rank <= {{ k | number }}{% endif %}{% endmacro %}

{#- A finite double literal that reads the same in DuckDB and Spark. -#}
{% macro real(x) %}CAST({{ x | number }} AS {{ DOUBLE }}){% endmacro %}
