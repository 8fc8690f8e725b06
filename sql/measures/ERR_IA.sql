{#-
  ERR-IA@k as ndeval computes it: the sum over ranks i <= k of gain(i) / i (gain as in alpha-nDCG), over
  S * sum over ranks i <= k of (1 - alpha)^(i - 1) / i, that of a ranking whose every document is
  relevant to all S subtopics (ndeval leaves the division out at k = 1; here it is divided there too).
  The family step "intents" (sql/evaluation/intents.sql).
  Parameters: rel (default 1), alpha (default 0.5); cutoff k.
  Reference: Chapelle et al. (CIKM 2009); ndeval 4.5, computeERR.
-#}
{% import '_macros/intents.sql' as ia %}
{% macro intents(m) %}
{{ ia.discounted(m, 'err', false) }}
{{ ia.subtopics(m) }}
{% endmacro %}
{% macro value(m) %}{{ ia.over_ideal_ideal(m, 'err') }}{% endmacro %}
