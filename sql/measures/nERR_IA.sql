{#-
  nERR-IA@k: ERR-IA@k's sum over ranks i <= k of gain(i) / i, over that of the greedy ideal ranking (0
  where the run's is 0). The family step "intents" (sql/evaluation/intents.sql).
  Parameters: rel (default 1), alpha (default 0.5); cutoff k.
  Reference: Chapelle et al. (CIKM 2009); ndeval 4.5, computeERR and renormalize.
-#}
{% import '_macros/intents.sql' as ia %}
{% macro intents(m) %}
{{ ia.discounted(m, 'err', false) }}
{{ ia.discounted(m, 'err', true) }}
{% endmacro %}
{% macro value(m) %}{{ ia.over_ideal(m, 'err') }}{% endmacro %}
