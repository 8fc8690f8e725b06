{#-
  ExposureGini@k: the Gini coefficient of the exposure the groups of the groups table get in the top k
  (Exposure's attention; every group counts, those without exposure too): with the n groups' exposures
  x_1 <= ... <= x_n, G = 2 * sum of i x_i / (n * sum of x) - (n + 1) / n (0: every group the same,
  (n - 1) / n: one group has all). No value for a query whose top k gives no group any exposure.
  Parameters: browse (log or rbp, default log), p (rbp's patience, default 0.5); cutoff k.
  Reference: Gini (1912), over the groups' exposure.
-#}
{% import 'measures/Exposure.sql' as expo %}
{% macro exposure(m) %}
{% call column(expo.prefix(m) ~ '_ordered') %}SUM(exposure_order * exposure){% endcall %}
{% call column(expo.prefix(m) ~ '_grouped') %}MAX(grouped_exposure){% endcall %}
{% call column(expo.prefix(m) ~ '_groups') %}MAX(groups){% endcall %}
{% endmacro %}
{% macro value(m) %}
{%- set p = expo.prefix(m) -%}
CAST(2 AS {{ DOUBLE }}) * {{ p }}_ordered / ({{ p }}_groups * NULLIF({{ p }}_grouped, 0)) - CAST({{ p }}_groups + 1 AS {{ DOUBLE }}) / {{ p }}_groups
{%- endmacro %}
