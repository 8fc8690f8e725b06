{#-
  NERR (Azzopardi, Mackenzie & Moffat, "ERR is not C/W/L", ICTIR 2021; cwl_eval's NERR-EQ8..11): C/W/L user models
  that stop, as ERR's user does, at a document of gain g with probability g. With g_i = label / max_rel (0 for
  labels <= 0 and unjudged documents) a user reads on past rank i with probability
    C(i) = (1 - g_i) * c(i),   c(i) = 1 (eq=8), i / (i + 1) (eq=9), p (eq=10), ((i + 2T - 1) / (i + 2T))^2 (eq=11)
  eq 8 and 9 for the ranks i < k only (C(k) = 0: the user stops at rank k). The chance of reading rank i is
    R(i) = prod_{j<i} C(j) = b(i) * prod_{j<i} (1 - g_j),  b(i) = 1, 1/i, p^(i-1) or (2T / (i + 2T - 1))^2,
  and NERR = sum_{i<=N} R(i) g_i / sum_{i<=N} R(i), N = k (eq 8, 9) or 1000, as cwl_eval reads N ranks (the
  expected utility per document). Past the run's last rank n the gains are 0, so those ranks add
  prod_{j<=n} (1 - g_j) times sum_{n<i<=N} b(i): N - n, digamma(N + 1) - digamma(n + 1),
  p^n (1 - p^(N - n)) / (1 - p), or (2T)^2 (trigamma(n + 2T) - trigamma(N + 2T)) (_macros/series.sql).
  A gain of 1 (label = max_rel) stops every user there: the ranks below it are never read.
  Parameters: eq (8, 9, 10, 11), p (eq=10, default 0.9), T (eq=11, default 1), max_rel (the label of gain 1,
  default 1); cutoff k (required for eq 8 and 9, none for 10 and 11).
  Reference: cwl_eval 1.0.12, ruler/measures/cwl_nerr.py; ir_measures' NERR8@k, NERR9@k, NERR10(p=), NERR11(T=).
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/series.sql' as series %}
{% import 'measures/INSQ.sql' as insq %}
{% macro key(m) %}nerr_{{ m.eq }}_{{ (m.p if m.eq == 10 else m.T if m.eq == 11 else 0) | key }}_{{ m.max_rel | key }}{% endmacro %}
{% macro depth(m) %}{{ [m.cutoff, 1000] | min if m.eq in (8, 9) else 1000 }}{% endmacro %}
{#- b(i), the reading chance of rank i before the gains above it count -#}
{% macro base(m, i) -%}
{%- if m.eq == 8 %}1{% elif m.eq == 9 %}1 / CAST({{ i }} AS {{ DOUBLE }}){% elif m.eq == 10 %}POWER({{ judging.real(m.p) }}, {{ i }} - 1)
{%- else %}POWER(2 * {{ judging.real(m.T) }} / ({{ i }} + 2 * {{ judging.real(m.T) }} - 1), 2){% endif -%}
{%- endmacro %}
{#- sum over n < i <= N of b(i), in closed form -#}
{% macro tail(m, n) -%}
{%- set big_n = depth(m) -%}
{%- if m.eq == 8 %}({{ big_n }} - {{ n }})
{%- elif m.eq == 9 %}({{ series.digamma(big_n ~ ' + 1') }} - {{ series.digamma(n ~ ' + 1') }})
{%- elif m.eq == 10 %}(POWER({{ judging.real(m.p) }}, {{ n }}) * (1 - POWER({{ judging.real(m.p) }}, {{ big_n }} - {{ n }})) / (1 - {{ judging.real(m.p) }}))
{%- else %}(POWER(2 * {{ judging.real(m.T) }}, 2) * ({{ series.trigamma(n ~ ' + 2 * ' ~ judging.real(m.T)) }} - {{ series.trigamma(big_n ~ ' + 2 * ' ~ judging.real(m.T)) }}))
{%- endif -%}
{%- endmacro %}
{% macro gain(m) %}COALESCE({{ insq.gain(m) }}, 0){% endmacro %}
{#- a document's terms of the product: 1 where its gain is 1 (a certain stop), else ln(1 - g) -#}
{% macro stops(m) %}(CASE WHEN {{ gain(m) }} >= 1 THEN 1 ELSE 0 END){% endmacro %}
{% macro ln_on(m) %}(CASE WHEN {{ gain(m) }} < 1 THEN LN(1 - {{ gain(m) }}) ELSE 0 END){% endmacro %}
{% macro judged(m) %}{{ insq.judged(m) }}{% endmacro %}
{#- through each rank: how many gains of 1 and the sum of ln(1 - g) of the others -#}
{% macro ranked(m) %}
{% call column(key(m) ~ "_stops_through") %}SUM{{ stops(m) }} OVER ranking{% endcall %}
{% call column(key(m) ~ "_ln_through") %}SUM{{ ln_on(m) }} OVER ranking{% endcall %}
{% endmacro %}
{#- R(i): the chance of reading rank i (the ranks above it only) -#}
{% macro reached(m) -%}
CASE WHEN {{ key(m) }}_stops_through - {{ stops(m) }} = 0
THEN {{ base(m, 'rank') }} * EXP({{ key(m) }}_ln_through - {{ ln_on(m) }}) ELSE 0 END
{%- endmacro %}
{% macro retrieved(m) %}
{% call column(key(m) ~ "_read_gain" ~ judging.cut(m.cutoff)) %}{{ dialect.sum_in_rank_order(reached(m) ~ ' * ' ~ gain(m), gain(m) ~ ' > 0', depth(m) | int) }}{% endcall %}
{% call column(key(m) ~ "_reached" ~ judging.cut(m.cutoff)) %}{{ dialect.sum_in_rank_order(reached(m), 'rank <= ' ~ depth(m), depth(m) | int) }}{% endcall %}
{% call column(key(m) ~ "_last") %}MAX(rank){% endcall %}
{% call column(key(m) ~ "_stops") %}SUM{{ stops(m) }}{% endcall %}
{% call column(key(m) ~ "_ln") %}SUM{{ ln_on(m) }}{% endcall %}
{% endmacro %}
{% macro value(m) %}
{%- set k = key(m) -%}
{%- set n = k ~ '_last' -%}
COALESCE({{ k }}_read_gain{{ judging.cut(m.cutoff) }} / ({{ k }}_reached{{ judging.cut(m.cutoff) }} + CASE WHEN {{ n }} < {{ depth(m) }} AND {{ k }}_stops = 0 THEN EXP({{ k }}_ln) * {{ tail(m, n) }} ELSE 0 END), 0)
{%- endmacro %}
