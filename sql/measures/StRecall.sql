{#-
  StRecall@k (Zhai, Cohen & Lafferty, SIGIR 2003): the share of the S subtopics with a relevant
  document that a document of the top k is relevant to. The family step "intents" (sql/evaluation/intents.sql).
  Parameters: rel (default 1); cutoff k.
  Reference: ndeval 4.5, computeSTRecall (strec).
-#}
{% import '_macros/intents.sql' as ia %}
{% macro intents(m) %}
{{ ia.counted(m, 'fresh') }}
{{ ia.subtopics(m) }}
{% endmacro %}
{% macro value(m) %}{{ ia.per_subtopic(m, 'fresh') }}{% endmacro %}
