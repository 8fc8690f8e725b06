{#-
  Rprec_mult@x (trec_eval Rprec_mult_x): precision at rank c = floor(x * R + 0.9); 0 when c = 0.
  With tie_break=expected, its mean over all orders of tied documents.
  Parameters: rel (minimum relevant label, default 1); the multiple x of R.
  Reference: trec_eval 10 m_Rprec_mult.c.
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/ties.sql' as ties %}

{% macro r_multiple(m) %}FLOOR({{ judging.real(m.cutoff) }} * {{ judging.num_rel(m.level) }} + CAST(0.9 AS {{ DOUBLE }})){% endmacro %}
{% macro relevant(m) %}rel_{{ m.level | key }}_top_r_times_{{ m.cut_key }}{% endmacro %}

{% macro judgments(m) %}{{ judging.num_rel_column(m.level) }}{% endmacro %}
{% macro judged(m) %}{{ judging.is_relevant_column(m.level) }}{% endmacro %}
{% macro tie(m) %}{% if m.expected %}{{ ties.group_columns() }}{% endif %}{% endmacro %}
{% macro retrieved(m) %}{% call column(relevant(m)) %}SUM({{ judging.is_relevant(m.level) }} * {{ ties.within(r_multiple(m), m) }}){% endcall %}{% endmacro %}
{% macro value(m) %}COALESCE(CAST({{ relevant(m) }} AS {{ DOUBLE }}) / NULLIF({{ r_multiple(m) }}, 0), 0){% endmacro %}
