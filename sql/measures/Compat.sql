{#-
  Compat: compatibility (Clarke, Vtyurina & Smucker 2021), the rank-biased overlap of the ranking
  with the ideal ranking of the query's relevant judgments, to the depth D of the longer list:
    RBO = sum over d = 1..D of p^(d-1) |top d of the ranking and of the ideal| / d, over sum of p^(d-1)
    Compat = RBO / the ideal's RBO with itself (normalize=True, the default), or RBO (normalize=False)
  The ideal orders the relevant judgments by label, equal labels by the run's score (a document the
  run did not retrieve scores 0) and then by document id in the direction of the ranking's tie-break
  (the step "compat", sql/evaluation/compat.sql). 0 without a relevant judgment. Its sums are added depth by depth
  (dialect.sum_in_order), so that a value has the same bits on every run.
  Parameters: rel (minimum relevant label, default 1); p (persistence, default 0.95); normalize.
  Reference: Clarke, Vtyurina & Smucker, "Assessing top-k preferences" (TOIS 2021); ir_measures'
  compat provider.
-#}
{% import '_macros/dialect.sql' as dialect %}
{% macro key(m) %}{{ m.p | key }}_{{ m.level | key }}{% endmacro %}
{% macro compat(m) %}
{%- set w = 'POWER(CAST(' ~ (m.p | number) ~ ' AS ' ~ DOUBLE ~ '), depth - 1)' -%}
{% call column('compat_overlap_' ~ key(m)) %}{{ dialect.sum_in_order(w ~ ' * overlap / depth', 'depth') }}{% endcall %}
{% call column('compat_ideal_' ~ key(m)) %}{{ dialect.sum_in_order(w ~ ' * LEAST(depth, ideal_size) / depth', 'depth') }}{% endcall %}
{% call column('compat_weights_' ~ key(m)) %}{{ dialect.sum_in_order(w, 'depth') }}{% endcall %}
{% endmacro %}
{% macro value(m) %}
{%- set step = m.step_names.compat -%}
{%- set over = 'compat_ideal_' if m.normalize else 'compat_weights_' -%}
COALESCE({{ step }}.compat_overlap_{{ key(m) }} / NULLIF({{ step }}.{{ over }}{{ key(m) }}, 0), 0)
{%- endmacro %}
