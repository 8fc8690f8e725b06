{#-
  EE-R, expected exposure relevance: the sum over documents of their expected exposure times their
  target exposure (relevant documents, labels > 0, by grade, best first: the m documents of a grade share
  the exposure of their m ranks; the others 0). The family step "expected" (sql/evaluation/expected.sql).
  Parameters: p (default 0.5); cutoff k.
  Reference: Diaz, Mitra, Ekstrand, Biega & Carterette (CIKM 2020); expeval (relevance).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import 'measures/EE_D.sql' as ee %}
{% macro expected(m) %}{% call column(ee.key(m) ~ '_relevance') %}{{ dialect.sum_in_order('exposure * target', 'doc_id') }}{% endcall %}{% endmacro %}
{% macro value(m) %}COALESCE({{ ee.key(m) }}_relevance, 0){% endmacro %}
