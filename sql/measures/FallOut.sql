{#-
  FallOut@k (fall-out): the non-relevant documents in the top k (the whole ranking without a
  cutoff), divided by all the query's non-relevant documents. Non-relevant means judged with
  0 <= label < rel, or with nonrelevant=retrieved every retrieved document that is not relevant,
  unjudged ones too (TorchMetrics sees only the documents passed to it, their targets 0 or 1). A
  query without a non-relevant document scores 0, or 1 with no_nonrelevant=one (TorchMetrics'
  RetrievalFallOut, whose default empty_target_action is 'pos'). With tie_break=expected, its mean
  over all orders of tied documents (linear in "this document is within the top k").
  Parameters: rel (minimum relevant label, default 1); nonrelevant (judged or retrieved);
  no_nonrelevant (zero or one); cutoff k.
  Reference: Salton & McGill, Introduction to Modern Information Retrieval (1983); TorchMetrics
  retrieval_fall_out and RetrievalFallOut.
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/ties.sql' as ties %}

{% macro flag(m) %}{% if m.nonrelevant == 'retrieved' %}not_rel_{{ m.level | key }}{% else %}{{ judging.is_nonrelevant(m.level) }}{% endif %}{% endmacro %}
{% macro total(m) %}{% if m.nonrelevant == 'retrieved' %}not_rel_{{ m.level | key }}_retrieved{% else %}{{ judging.num_nonrel(m.level) }}{% endif %}{% endmacro %}
{% macro in_top(m) %}{{ flag(m) }}_{% if m.cutoff is none %}in_ranking{% else %}top_{{ m.cutoff | number }}{% endif %}{% endmacro %}

{% macro judgments(m) %}{% if m.nonrelevant != 'retrieved' %}{{ judging.num_nonrel_column(m.level) }}{% endif %}{% endmacro %}
{% macro judged(m) %}
{% if m.nonrelevant == 'retrieved' %}
{% call column(flag(m)) %}CASE WHEN relevance IS NULL OR relevance < {{ m.level | number }} THEN 1 ELSE 0 END{% endcall %}
{% else %}
{{ judging.is_nonrelevant_column(m.level) }}
{% endif %}
{% endmacro %}
{% macro tie(m) %}{% if m.expected and m.cutoff is not none %}{{ ties.group_columns() }}{% endif %}{% endmacro %}
{% macro retrieved(m) %}
{% if m.nonrelevant == 'retrieved' %}
{% call column(total(m)) %}SUM({{ flag(m) }}){% endcall %}
{% endif %}
{% if m.cutoff is none %}
{% call column(in_top(m)) %}SUM({{ flag(m) }}){% endcall %}
{% elif m.expected %}
{% call column(in_top(m)) %}SUM({{ flag(m) }} * {{ ties.within(m.cutoff | number, m) }}){% endcall %}
{% else %}
{% call column(in_top(m)) %}SUM(CASE WHEN rank <= {{ m.cutoff | number }} THEN {{ flag(m) }} ELSE 0 END){% endcall %}
{% endif %}
{% endmacro %}
{% macro value(m) %}
CASE WHEN COALESCE({{ total(m) }}, 0) = 0 THEN {{ judging.real(1 if m.no_nonrelevant == 'one' else 0) }}
     ELSE CAST(COALESCE({{ in_top(m) }}, 0) AS {{ DOUBLE }}) / {{ total(m) }} END
{%- endmacro %}
