{#-
  INST (Moffat et al., ADCS 2015; the C/W/L framework of cwl_eval): with G(i) the gain so far down to rank
  i, a user reads on past rank i with probability C(i) = ((i + 2T - G(i) - 1) / (i + 2T - G(i)))^2, and
    INST = sum over ranks i <= N of W(i) * gain(i),  W(i) = prod_{j<i} C(j) / sum over k = 1 .. N of prod_{j<k} C(j)
  with gain = label / max_rel (0 for labels <= 0 and unjudged documents) and N = 1000 ranks as cwl_eval
  reads them. The running products are the family step "inst" (sql/evaluation/inst.sql). Past the run's
  last rank n the gain is 0, so C(j) = ((j + a - 1) / (j + a))^2 with a = 2T - G(n), whose product
  telescopes: those ranks add P(n) (n + a)^2 (trigamma(n + a) - trigamma(N + a)) to the sum over k.
  Parameters: T (the gain the user wants, default 1), max_rel (the label of gain 1, default 1).
  Reference: cwl_eval 1.0.12, ruler/measures/cwl_inst.py (expected utility per document).
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/series.sql' as series %}
{% import 'measures/INSQ.sql' as insq %}
{% import 'measures/BPM.sql' as bpm %}
{% macro key(m) %}{{ m.T | key }}_{{ m.max_rel | key }}{% endmacro %}
{% macro judged(m) %}{{ insq.judged(m) }}{% endmacro %}
{% macro ranked(m) %}{{ bpm.ranked(m) }}{% endmacro %}
{% macro inst(m) %}
{% call column("inst_read_gain_" ~ key(m)) %}{{ dialect.sum_in_rank_order('EXP(ln_reached) * gain', 'stops_above = 0') }}{% endcall %}
{% call column("inst_reached_" ~ key(m)) %}{{ dialect.sum_in_rank_order('EXP(ln_reached)', 'stops_above = 0') }}{% endcall %}
{% call column("inst_past_last_" ~ key(m)) %}MAX(CASE WHEN rank = last_rank AND stops_through = 0 THEN EXP(ln_past) ELSE 0 END){% endcall %}
{% call column("inst_last_rank_" ~ key(m)) %}MAX(rank){% endcall %}
{% call column("inst_gain_" ~ key(m)) %}MAX(so_far){% endcall %}
{% endmacro %}
{% macro value(m) %}
{%- set n = 'inst_last_rank_' ~ key(m) -%}
{%- set shifted = '(' ~ n ~ ' + 2 * ' ~ judging.real(m.T) ~ ' - inst_gain_' ~ key(m) ~ ')' -%}
{%- set beyond = '(1000 - ' ~ n ~ ' + ' ~ shifted ~ ')' -%}
COALESCE(inst_read_gain_{{ key(m) }} / (inst_reached_{{ key(m) }} + CASE WHEN {{ n }} < 1000 THEN inst_past_last_{{ key(m) }} * POWER({{ shifted }}, 2) * ({{ series.trigamma(shifted) }} - {{ series.trigamma(beyond) }}) ELSE 0 END), 0)
{%- endmacro %}
