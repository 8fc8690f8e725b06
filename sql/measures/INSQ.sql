{#-
  INSQ (Moffat et al., ADCS 2015; the C/W/L framework of cwl_eval): a user reads on past rank i with
  probability C(i) = ((i + 2T - 1) / (i + 2T))^2, so rank i is read with weight
  W(i) = (i + 2T - 1)^-2 / sum over j = 1 .. N of (j + 2T - 1)^-2, and
    INSQ = sum over ranks i <= N of W(i) * gain(i),  gain = label / max_rel (0 for labels <= 0 and
  unjudged documents), N = 1000 ranks as cwl_eval reads them (the ranks below the run's last gain 0).
  The normaliser is trigamma(2T) - trigamma(2T + N) (_macros/series.sql).
  Parameters: T (the gain the user wants, default 1), max_rel (the label of gain 1, default 1).
  Reference: cwl_eval 1.0.12, ruler/measures/cwl_insq.py (expected utility per document).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/series.sql' as series %}
{% macro gain(m) %}cwl_gain_{{ m.max_rel | key }}{% endmacro %}
{% macro weighted(m) %}insq_{{ m.T | key }}_{{ m.max_rel | key }}{% endmacro %}
{% macro judged(m) %}{% call column(gain(m)) %}CASE WHEN relevance > 0 THEN CAST(relevance AS {{ DOUBLE }}) / {{ judging.real(m.max_rel) }} ELSE 0 END{% endcall %}{% endmacro %}
{% macro retrieved(m) %}
{% call column(weighted(m)) %}{{ dialect.sum_in_rank_order(gain(m) ~ ' / POWER(rank + 2 * ' ~ judging.real(m.T) ~ ' - 1, 2)', none, 1000) }}{% endcall %}
{% endmacro %}
{% macro value(m) %}
{%- set twice = '2 * ' ~ judging.real(m.T) -%}
COALESCE({{ weighted(m) }}, 0) / ({{ series.trigamma(twice) }} - {{ series.trigamma(twice ~ ' + 1000') }})
{%- endmacro %}
