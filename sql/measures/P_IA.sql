{#-
  P-IA@k (Agrawal et al., WSDM 2009): the mean over the S subtopics with a relevant document of P@k
  with that subtopic's judgments: the (document, subtopic) pairs of the top k judged relevant, over k * S.
  The family step "intents" (sql/evaluation/intents.sql).
  Parameters: rel (default 1); cutoff k.
  Reference: ndeval 4.5, computePrecision.
-#}
{% import '_macros/intents.sql' as ia %}
{% import '_macros/judging.sql' as judging %}
{% macro intents(m) %}
{{ ia.counted(m, 'pairs') }}
{{ ia.subtopics(m) }}
{% endmacro %}
{% macro value(m) %}{{ ia.per_subtopic(m, 'pairs') }} / {{ m.cutoff | number }}{% endmacro %}
