{#-
  EE-L, expected exposure loss: the squared Euclidean distance between the documents' expected exposure
  and their target exposure (EE-D - 2 EE-R + the target's squared norm; 0 when the rankings give every
  document its target). The family step "expected" (sql/evaluation/expected.sql).
  Parameters: p (default 0.5); cutoff k.
  Reference: Diaz, Mitra, Ekstrand, Biega & Carterette (CIKM 2020); expeval (difference).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import 'measures/EE_D.sql' as ee %}
{% macro expected(m) %}{% call column(ee.key(m) ~ '_loss') %}{{ dialect.sum_in_order('(target - exposure) * (target - exposure)', 'doc_id') }}{% endcall %}{% endmacro %}
{% macro value(m) %}COALESCE({{ ee.key(m) }}_loss, 0){% endmacro %}
