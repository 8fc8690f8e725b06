{#-
  Set measures over the whole retrieved list (trec_eval set_P, set_relative_P, set_recall,
  set_map, set_F, utility). With r = relevant retrieved, n = retrieved, R = relevant judged:
    SetP = r / n (relative=True: r / min(n, R)),  SetR = r / R,  SetAP = r^2 / (n * R)
    SetF = (beta + 1) * P * Rc / (beta * P + Rc) with P = r / n, Rc = r / R; 0 when r = 0
           (beta is not squared, as in trec_eval)
    Utility = a * r + b * (n - r) + c * (R - r) + d * (num_docs + r - n - R)
  Each is 0 where its denominator is 0. Parameters: rel, relative, beta, a, b, c, d, num_docs.
  Reference: trec_eval 10 m_set_P.c, m_set_rel_P.c, m_set_recall.c, m_set_map.c, m_set_F.c, m_utility.c.
-#}
{% import '_macros/judging.sql' as judging %}

{% macro counts(m) %}
[judged] {{ judging.is_relevant_column(m.level) }}
[retrieved] {{ judging.relevant_in_top_column(m.level, none, m) }}
[retrieved] {{ judging.num_ret_column() }}
[judgments] {{ judging.num_rel_column(m.level) }}
{% endmacro %}
{% macro r(m) %}CAST(COALESCE({{ judging.relevant_in_top(m.level, none) }}, 0) AS DOUBLE){% endmacro %}
{% macro big_r(m) %}COALESCE({{ judging.num_rel(m.level) }}, 0){% endmacro %}

{% macro SetP_parts(m) %}{{ counts(m) }}{% endmacro %}
{% macro SetP_value(m) %}
{%- if m.relative -%}
COALESCE({{ r(m) }} / NULLIF(LEAST(COALESCE(num_ret, 0), {{ big_r(m) }}), 0), 0)
{%- else -%}
COALESCE({{ r(m) }} / NULLIF(num_ret, 0), 0)
{%- endif -%}
{% endmacro %}

{% macro SetR_parts(m) %}{{ counts(m) }}{% endmacro %}
{% macro SetR_value(m) %}COALESCE({{ r(m) }} / NULLIF({{ big_r(m) }}, 0), 0){% endmacro %}

{% macro SetAP_parts(m) %}{{ counts(m) }}{% endmacro %}
{% macro SetAP_value(m) %}COALESCE({{ r(m) }} * {{ r(m) }} / NULLIF(COALESCE(num_ret, 0) * {{ big_r(m) }}, 0), 0){% endmacro %}

{% macro SetF_parts(m) %}{{ counts(m) }}{% endmacro %}
{% macro SetF_value(m) %}
{%- set p = r(m) ~ ' / num_ret' -%}
{%- set rc = r(m) ~ ' / ' ~ big_r(m) -%}
CASE WHEN {{ r(m) }} > 0 THEN ({{ judging.real(m.beta) }} + 1) * ({{ p }}) * ({{ rc }}) / ({{ judging.real(m.beta) }} * ({{ p }}) + ({{ rc }})) ELSE 0 END
{%- endmacro %}

{% macro Utility_parts(m) %}{{ counts(m) }}{% endmacro %}
{% macro Utility_value(m) %}
{%- set n = 'COALESCE(num_ret, 0)' -%}
{{ judging.real(m.a) }} * {{ r(m) }} + {{ judging.real(m.b) }} * ({{ n }} - {{ r(m) }}) + {{ judging.real(m.c) }} * ({{ big_r(m) }} - {{ r(m) }}) + {{ judging.real(m.d) }} * ({{ m.num_docs | number }} + {{ r(m) }} - {{ n }} - {{ big_r(m) }})
{%- endmacro %}
