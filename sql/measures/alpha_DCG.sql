{#-
  alpha-DCG@k over S * sum over ranks i <= k of (1 - alpha)^(i - 1) / log2(i + 1): the alpha-DCG of a ranking
  whose every document is relevant to all S subtopics (ndeval's collection-independent normalisation,
  which ndeval leaves out at k = 1: its alpha-DCG@1 is the subtopics the first document covers; here it
  is divided by S there too). The family step "intents" (sql/evaluation/intents.sql).
  Parameters: rel (default 1), alpha (default 0.5); cutoff k.
  Reference: ndeval 4.5, computeDCG.
-#}
{% import '_macros/intents.sql' as ia %}
{% macro intents(m) %}
{{ ia.discounted(m, 'dcg', false) }}
{{ ia.subtopics(m) }}
{% endmacro %}
{% macro value(m) %}{{ ia.over_ideal_ideal(m, 'dcg') }}{% endmacro %}
