{#-
  Hits@k (ranx hits): the number of relevant documents in the top k (every retrieved one without
  k), a count per query averaged over queries. With tie_break=expected, its mean over all orders
  of tied documents (linear, as P@k).
  Parameters: rel (minimum relevant label, default 1); cutoff k (optional).
  Reference: ranx metrics/hits.py.
-#}
{% import '_macros/judging.sql' as judging %}
{% import 'measures/P.sql' as precision %}

{% macro judged(m) %}{{ precision.judged(m) }}{% endmacro %}
{% macro tie(m) %}{% if m.cutoff is not none %}{{ precision.tie(m) }}{% endif %}{% endmacro %}
{% macro retrieved(m) %}{{ judging.relevant_in_top_column(m.level, m.cutoff, m) }}{% endmacro %}
{% macro value(m) %}CAST(COALESCE({{ judging.relevant_in_top(m.level, m.cutoff) }}, 0) AS {{ DOUBLE }}){% endmacro %}
