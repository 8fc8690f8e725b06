{#-
  Judged@k (ir_measures' Judged): the documents in the top k that have a judgment (a qrels row,
  whatever its label: negative labels count, unlike trec_eval's unj), divided by k, or by the
  documents retrieved when there are fewer; without a cutoff, over the whole ranking. With
  tie_break=expected, its mean over all orders of tied documents.
  Reference: ir_measures 0.4, providers/judged_provider.py (the measure of the judgment rate used to
  see how much of a run unjudged documents fill).
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/ties.sql' as ties %}

{% macro in_top(m) %}judged_any_{% if m.cutoff is none %}retrieved{% else %}top_{{ m.cutoff | number }}{% endif %}{% endmacro %}

{% macro judged(m) %}{% call column("has_judgment") %}CASE WHEN relevance IS NOT NULL THEN 1 ELSE 0 END{% endcall %}{% endmacro %}
{% macro tie(m) %}{% if m.expected and m.cutoff is not none %}{{ ties.group_columns() }}{% endif %}{% endmacro %}
{% macro retrieved(m) %}
{{ judging.num_ret_column(m) }}
{% if m.cutoff is none %}
{% call column(in_top(m)) %}SUM(has_judgment){% endcall %}
{% elif m.expected %}
{% call column(in_top(m)) %}SUM(has_judgment * {{ ties.within(m.cutoff | number, m) }}){% endcall %}
{% else %}
{% call column(in_top(m)) %}SUM(CASE WHEN rank <= {{ m.cutoff | number }} THEN has_judgment ELSE 0 END){% endcall %}
{% endif %}
{% endmacro %}
{% macro value(m) %}
{%- set shown = 'num_ret' if m.cutoff is none else 'LEAST(' ~ (m.cutoff | number) ~ ', num_ret)' -%}
COALESCE(CAST({{ in_top(m) }} AS {{ DOUBLE }}) / NULLIF({{ shown }}, 0), 0)
{%- endmacro %}
