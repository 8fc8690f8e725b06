{#-
  KendallTau and KendallTau@k: Kendall's rank correlation between the ranking of the top k and the
  labels of its documents (unjudged documents label 0). Over the P = n (n - 1) / 2 pairs of the n
  documents, C pairs put the higher label above, D the lower label above, T have equal labels:
    variant=b (tau-b, scipy.stats.kendalltau of the ranks and labels): (C - D) / sqrt(P (P - T))
    variant=a (tau-a, pyltr's KendallTau):                              (C - D) / P
  0 where n < 2 or every label is equal. The pairs are the shared step "pairs"
  (sql/evaluation/pairs.sql): quadratic in the length of the ranking, so a cutoff keeps it small.
  Reference: Kendall (1938, 1945); scipy.stats.kendalltau; pyltr, pyltr/metrics/kendall.py.
-#}
{% import '_macros/recommended.sql' as recommended %}
{% macro cut(m) %}{{ recommended.cut(m) }}{{ m.ranking }}{% endmacro %}
{% macro retrieved(m) %}{{ recommended.total(m, 'kendall_n') }}{% endmacro %}
{#- A pair of the top k (the lower ranked document within it) meeting `condition`. -#}
{% macro pair(m, condition) %}{{ ((['lower.rank <= ' ~ (m.cutoff | number)] if m.cutoff is not none else []) + [condition]) | join(' AND ') }}{% endmacro %}
{% macro pairs(m) %}
{% call column('kendall_s_' ~ cut(m)) %}SUM(CASE WHEN {{ pair(m, 'higher.label > lower.label') }} THEN 1 WHEN {{ pair(m, 'higher.label < lower.label') }} THEN -1 ELSE 0 END){% endcall %}
{% call column('kendall_tied_' ~ cut(m)) %}SUM(CASE WHEN {{ pair(m, 'higher.label = lower.label') }} THEN 1 ELSE 0 END){% endcall %}
{% endmacro %}
{% macro value(m) %}
{%- set n = 'CAST(kendall_n_' ~ recommended.cut(m) ~ ' AS ' ~ DOUBLE ~ ')' -%}
{%- set pairs = '(' ~ n ~ ' * (' ~ n ~ ' - 1) / 2)' -%}
{%- set step = m.step_names.pairs -%}
{%- set s = 'COALESCE(' ~ step ~ '.kendall_s_' ~ cut(m) ~ ', 0)' -%}
{%- if m.variant == 'a' -%}
COALESCE({{ s }} / NULLIF({{ pairs }}, 0), 0)
{%- else -%}
COALESCE({{ s }} / NULLIF(SQRT({{ pairs }} * ({{ pairs }} - COALESCE({{ step }}.kendall_tied_{{ cut(m) }}, 0))), 0), 0)
{%- endif -%}
{% endmacro %}
