{#-
  EE-D, expected exposure disparity: the sum over documents of their expected exposure squared, the
  exposure of rank i p^(i - 1) averaged over the query's sampled rankings (0 where a sample lacks the
  document): 1 / (1 - p^2) for a deterministic ranking of many documents, less for one that spreads
  exposure. The family step "expected" (sql/evaluation/expected.sql).
  Parameters: p (the patience, default 0.5); cutoff k (the whole rankings without one).
  Reference: Diaz, Mitra, Ekstrand, Biega & Carterette (CIKM 2020), expected exposure; expeval (disparity).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% macro key(m) %}ee_{{ m.p | key }}_{{ 'all' if m.cutoff is none else 'top_' ~ (m.cutoff | number) }}{% endmacro %}
{% macro expected(m) %}{% call column(key(m) ~ '_disparity') %}{{ dialect.sum_in_order('exposure * exposure', 'doc_id') }}{% endcall %}{% endmacro %}
{% macro value(m) %}COALESCE({{ key(m) }}_disparity, 0){% endmacro %}
