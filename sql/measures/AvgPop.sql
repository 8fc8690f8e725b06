{#-
  AvgPop@k: the mean number of history interactions of the items in the user's top k (an item
  without history counts 0), averaged over users.
  Reference: RecBole AveragePopularity.
-#}
{% import '_macros/recommended.sql' as recommended %}
{% macro judged(m) %}{% call column("interactions") %}COALESCE(popularity.interactions, 0){% endcall %}{% endmacro %}
{% macro retrieved(m) %}
{{ recommended.listed_column(m) }}
{{ recommended.total(m, 'popularity', value='interactions') }}
{% endmacro %}
{% macro value(m) %}CAST(popularity_{{ recommended.cut(m) }} AS {{ DOUBLE }}) / NULLIF(listed_{{ recommended.cut(m) }}, 0){% endmacro %}
