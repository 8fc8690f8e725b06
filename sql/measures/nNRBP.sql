{#-
  nNRBP: NRBP over the NRBP of the greedy ideal ranking (0 for a query without relevant subtopics,
  where ndeval's division gives NaN). The family step "intents" (sql/evaluation/intents.sql).
  Parameters: rel (default 1), alpha (default 0.5), beta (default 0.5).
  Reference: ndeval 4.5, computeNRBP and renormalize.
-#}
{% import '_macros/intents.sql' as ia %}
{% macro intents(m) %}
{{ ia.discounted(m, 'rbp', false) }}
{{ ia.discounted(m, 'rbp', true) }}
{% endmacro %}
{% macro value(m) %}{{ ia.over_ideal(m, 'rbp') }}{% endmacro %}
