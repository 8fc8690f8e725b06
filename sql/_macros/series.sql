{#-
  Sums of series the user models of the C/W/L framework need, in closed form for literal arguments.
  trigamma(x) = sum over k >= 0 of 1 / (x + k)^2 (x > 0): ten terms summed, then the asymptotic
  series at y = x + 10, 1/y + 1/(2y^2) + 1/(6y^3) - 1/(30y^5) + 1/(42y^7) - 1/(30y^9) + 5/(66y^11),
  whose next term is below 3e-14 for y >= 10 (Abramowitz & Stegun 6.4.12).
  So sum for k = 0 .. n - 1 of 1 / (x + k)^2 = trigamma(x) - trigamma(x + n).
-#}
{% macro trigamma(x) -%}
{%- set x = 'CAST(' ~ x ~ ' AS ' ~ DOUBLE ~ ')' -%}
({% for k in range(10) %}1 / POWER({{ x }} + {{ k }}, 2) + {% endfor %}{{ tail('(' ~ x ~ ' + 10)') }})
{%- endmacro %}
{#- y is a DOUBLE (Spark reads 1.0 as a DECIMAL, whose quotients keep six decimals). -#}
{% macro tail(y) -%}
(1 / {{ y }} + 1 / (2 * POWER({{ y }}, 2)) + 1 / (6 * POWER({{ y }}, 3)) - 1 / (30 * POWER({{ y }}, 5)) + 1 / (42 * POWER({{ y }}, 7)) - 1 / (30 * POWER({{ y }}, 9)) + 5 / (66 * POWER({{ y }}, 11)))
{%- endmacro %}
{#- digamma(x) for x > 0: the recurrence up to x + 10, then the asymptotic series (error below 1e-14 there); the
    harmonic number H_n is digamma(n + 1) + Euler's gamma, so a sum of 1 / i over n < i <= N is digamma(N + 1) - digamma(n + 1). -#}
{% macro digamma(x) -%}
{%- set x = 'CAST(' ~ x ~ ' AS ' ~ DOUBLE ~ ')' -%}
{%- set y = '(' ~ x ~ ' + 10)' -%}
(LN({{ y }}) - 1 / (2 * {{ y }}) - 1 / (12 * POWER({{ y }}, 2)) + 1 / (120 * POWER({{ y }}, 4)) - 1 / (252 * POWER({{ y }}, 6)) + 1 / (240 * POWER({{ y }}, 8)) - 1 / (132 * POWER({{ y }}, 10)){% for k in range(10) %} - 1 / ({{ x }} + {{ k }}){% endfor %})
{%- endmacro %}
