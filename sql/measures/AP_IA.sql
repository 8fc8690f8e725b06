{#-
  AP-IA (Agrawal et al., WSDM 2009): the mean over the S subtopics with a relevant document of AP with
  that subtopic's judgments, over the whole ranking. The family step "intents" (sql/evaluation/intents.sql).
  Parameters: rel (default 1).
  Reference: ndeval 4.5, computeMAP (MAP-IA).
-#}
{% import '_macros/intents.sql' as ia %}
{% macro intents(m) %}
{{ ia.counted(m, 'share') }}
{{ ia.subtopics(m) }}
{% endmacro %}
{% macro value(m) %}{{ ia.per_subtopic(m, 'share') }}{% endmacro %}
