{#-
  Rprec (trec_eval Rprec): precision at rank R, the relevant documents in the top R divided by R
  (0 when R = 0). With tie_break=expected, its mean over all orders of tied documents.
  Parameters: rel (minimum relevant label, default 1).
  Reference: trec_eval 10 m_Rprec.c.
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/ties.sql' as ties %}

{% macro judgments(m) %}{{ judging.num_rel_column(m.level) }}{% endmacro %}
{% macro judged(m) %}{{ judging.is_relevant_column(m.level) }}{% endmacro %}
{% macro tie(m) %}{% if m.expected %}{{ ties.group_columns() }}{% endif %}{% endmacro %}
{% macro retrieved(m) %}{% call column("rel_" ~ (m.level | key) ~ "_top_r") %}SUM({{ judging.is_relevant(m.level) }} * {{ ties.within(judging.num_rel(m.level), m) }}){% endcall %}{% endmacro %}
{% macro value(m) %}COALESCE(CAST(rel_{{ m.level | key }}_top_r AS {{ DOUBLE }}) / NULLIF({{ judging.num_rel(m.level) }}, 0), 0){% endmacro %}
