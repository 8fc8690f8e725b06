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

{#- With source=NAME, the judgments of that source alone count (judgment_sources: judgments merged
    from several sources). -#}
{% macro has(m) %}has_judgment{% if m.source %}_by_{{ m.source }}{% endif %}{% endmacro %}
{% macro in_top(m) %}judged_{{ 'by_' ~ m.source if m.source else 'any' }}_{% if m.cutoff is none %}retrieved{% else %}top_{{ m.cutoff | number }}{% endif %}{% endmacro %}

{% macro judged(m) %}
{% if m.source %}
{% call column(has(m)) %}CASE WHEN EXISTS (SELECT 1 FROM judgment_sources WHERE judgment_sources.query_id = run.query_id AND judgment_sources.doc_id = run.doc_id AND judgment_sources.source = {{ m.source | literal }}) THEN 1 ELSE 0 END{% endcall %}
{% else %}
{% call column(has(m)) %}CASE WHEN relevance IS NOT NULL THEN 1 ELSE 0 END{% endcall %}
{% endif %}
{% endmacro %}
{% macro tie(m) %}{% if m.expected and m.cutoff is not none %}{{ ties.group_columns() }}{% endif %}{% endmacro %}
{% macro retrieved(m) %}
{{ judging.num_ret_column(m) }}
{% if m.cutoff is none %}
{% call column(in_top(m)) %}SUM({{ has(m) }}){% endcall %}
{% elif m.expected %}
{% call column(in_top(m)) %}SUM({{ has(m) }} * {{ ties.within(m.cutoff | number, m) }}){% endcall %}
{% else %}
{% call column(in_top(m)) %}SUM(CASE WHEN rank <= {{ m.cutoff | number }} THEN {{ has(m) }} ELSE 0 END){% endcall %}
{% endif %}
{% endmacro %}
{% macro value(m) %}
{%- set shown = 'num_ret' if m.cutoff is none else 'LEAST(' ~ (m.cutoff | number) ~ ', num_ret)' -%}
COALESCE(CAST({{ in_top(m) }} AS {{ DOUBLE }}) / NULLIF({{ shown }}, 0), 0)
{%- endmacro %}
