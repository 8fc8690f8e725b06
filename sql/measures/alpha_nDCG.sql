{#-
  alpha-nDCG@k (Clarke et al., SIGIR 2008): alpha-DCG@k = sum over ranks i <= k of gain(i) / log2(i + 1), the
  gain of a document the sum over the subtopics it is relevant to of (1 - alpha)^(documents above it relevant
  to that subtopic); divided by the alpha-DCG@k of the ideal ranking ndeval builds greedily from the
  judgments (0 where the run's is 0). The family step "intents" (sql/evaluation/intents.sql).
  Parameters: rel (the lowest label relevant to a subtopic, default 1), alpha (default 0.5); cutoff k.
  Reference: ndeval 4.5 (TREC Web track), computeDCG and renormalize.
-#}
{% import '_macros/intents.sql' as ia %}
{% macro intents(m) %}
{{ ia.discounted(m, 'dcg', false) }}
{{ ia.discounted(m, 'dcg', true) }}
{% endmacro %}
{% macro value(m) %}{{ ia.over_ideal(m, 'dcg') }}{% endmacro %}
