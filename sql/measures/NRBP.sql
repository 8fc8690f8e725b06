{#-
  NRBP (Clarke, Kolla & Vechtomova, ICTIR 2009): (1 - (1 - alpha) beta) / S * the sum over the whole
  ranking of gain(i) * beta^(i - 1) (gain as in alpha-nDCG; S the subtopics with a relevant document;
  0 without any). The family step "intents" (sql/evaluation/intents.sql).
  Parameters: rel (default 1), alpha (default 0.5), beta (default 0.5).
  Reference: ndeval 4.5, computeNRBP.
-#}
{% import '_macros/intents.sql' as ia %}
{% import '_macros/judging.sql' as judging %}
{% macro intents(m) %}
{{ ia.discounted(m, 'rbp', false) }}
{{ ia.subtopics(m) }}
{% endmacro %}
{% macro value(m) -%}
COALESCE((1 - {{ ia.novelty(m) }} * {{ judging.real(m.beta) }}) * {{ ia.name(m, 'rbp', false) }} / NULLIF({{ ia.prefix(m) }}subtopics, 0), 0)
{%- endmacro %}
