{#-
  P@k, R@k, Success@k, relative_P@k, Rprec, Rprec_mult@x: counts of relevant documents near the top.
    P@k            = |relevant in top k| / k   (k even when fewer are retrieved)
    R@k            = |relevant in top k| / R   (0 when R = 0)
    Success@k      = 1 when a relevant document is in the top k, else 0
    relative_P@k   = |relevant in top k| / min(k, R)   (0 when R = 0)
    Rprec          = |relevant in top R| / R   (0 when R = 0)
    Rprec_mult@x   = P@c with c = floor(x * R + 0.9); 0 when c = 0
  Parameters: rel (minimum relevant label, default 1); cutoff k or multiple x.
  Reads: ranked (rank, is_rel_L), judgments (num_rel_L). Emits one DOUBLE per query.
  With tie_break=expected each is its mean over all orders of tied documents: linear in "this
  relevant document is within the top k" for all but Success, which takes the probability
  that no relevant document reaches the top k (hypergeometric, in the group cut by k).
  Reference: trec_eval 10 m_P.c, m_recall.c, m_success.c, m_rel_P.c, m_Rprec.c, m_Rprec_mult.c.
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/ties.sql' as ties %}
{% import '_macros/dialect.sql' as dialect %}

{% macro relevant_in_top_parts(m) %}
[judged] {{ judging.is_relevant_column(m.level) }}
{% if m.expected %}{{ ties.group_columns() }}{% endif %}
[retrieved] {{ judging.relevant_in_top_column(m.level, m.cutoff, m) }}
{% endmacro %}

{% macro P_parts(m) %}{{ relevant_in_top_parts(m) }}{% endmacro %}
{% macro P_value(m) %}CAST(COALESCE({{ judging.relevant_in_top(m.level, m.cutoff) }}, 0) AS DOUBLE) / {{ m.cutoff | number }}{% endmacro %}

{% macro R_parts(m) %}{{ relevant_in_top_parts(m) }}
[judgments] {{ judging.num_rel_column(m.level) }}
{% endmacro %}
{% macro R_value(m) %}COALESCE(CAST({{ judging.relevant_in_top(m.level, m.cutoff) }} AS DOUBLE) / NULLIF({{ judging.num_rel(m.level) }}, 0), 0){% endmacro %}

{% macro Success_parts(m) %}
{% if m.expected %}
[judged] {{ judging.is_relevant_column(m.level) }}
{{ ties.group_columns() }}
[tie] SUM({{ judging.is_relevant(m.level) }}) OVER tie AS tie_rel_{{ m.level | number }}
[retrieved] MAX(CASE WHEN {{ judging.is_relevant(m.level) }} = 1 AND tie_last <= {{ m.cutoff | number }} THEN 1 ELSE 0 END) AS rel_{{ m.level | number }}_surely_top_{{ m.cutoff | number }}
[retrieved] MAX(CASE WHEN tie_first <= {{ m.cutoff | number }} AND tie_last > {{ m.cutoff | number }} THEN {{ none_reach(m) }} END) AS rel_{{ m.level | number }}_none_top_{{ m.cutoff | number }}
{% else %}
{{ relevant_in_top_parts(m) }}
{% endif %}
{% endmacro %}
{#- In the group cut by k (s documents, r relevant, m = k - first + 1 of its positions within the
    top k), the chance that none of the r is among the first m: C(s - r, m) / C(s, m). -#}
{% macro none_reach(m) -%}
{%- set s = 'tie_size' -%}{%- set r = 'tie_rel_' ~ m.level -%}{%- set slots = '(' ~ m.cutoff ~ ' - tie_first + 1)' -%}
CASE WHEN {{ s }} - {{ r }} < {{ slots }} THEN 0 ELSE EXP({{ dialect.ln_choose(s ~ ' - ' ~ r, slots) }} - {{ dialect.ln_choose(s, slots) }}) END
{%- endmacro %}
{% macro Success_value(m) %}
{%- if m.expected -%}
CASE WHEN rel_{{ m.level | number }}_surely_top_{{ m.cutoff | number }} = 1 THEN CAST(1 AS DOUBLE) WHEN rel_{{ m.level | number }}_none_top_{{ m.cutoff | number }} IS NOT NULL THEN 1 - rel_{{ m.level | number }}_none_top_{{ m.cutoff | number }} ELSE 0 END
{%- else -%}
CASE WHEN {{ judging.relevant_in_top(m.level, m.cutoff) }} > 0 THEN CAST(1 AS DOUBLE) ELSE 0 END
{%- endif -%}
{% endmacro %}

{% macro relative_P_parts(m) %}{{ R_parts(m) }}{% endmacro %}
{% macro relative_P_value(m) %}COALESCE(CAST({{ judging.relevant_in_top(m.level, m.cutoff) }} AS DOUBLE) / NULLIF(LEAST({{ m.cutoff | number }}, {{ judging.num_rel(m.level) }}), 0), 0){% endmacro %}

{% macro Rprec_parts(m) %}
[judged] {{ judging.is_relevant_column(m.level) }}
{% if m.expected %}{{ ties.group_columns() }}{% endif %}
[judgments] {{ judging.num_rel_column(m.level) }}
[join] judgments
[retrieved] SUM({{ judging.is_relevant(m.level) }} * {{ ties.within(judging.num_rel(m.level), m) }}) AS rel_{{ m.level | number }}_top_r
{% endmacro %}
{% macro Rprec_value(m) %}COALESCE(CAST(rel_{{ m.level | number }}_top_r AS DOUBLE) / NULLIF({{ judging.num_rel(m.level) }}, 0), 0){% endmacro %}

{% macro r_multiple(m) %}FLOOR({{ judging.real(m.cutoff) }} * {{ judging.num_rel(m.level) }} + CAST(0.9 AS DOUBLE)){% endmacro %}
{% macro Rprec_mult_parts(m) %}
[judged] {{ judging.is_relevant_column(m.level) }}
{% if m.expected %}{{ ties.group_columns() }}{% endif %}
[judgments] {{ judging.num_rel_column(m.level) }}
[join] judgments
[retrieved] SUM({{ judging.is_relevant(m.level) }} * {{ ties.within(r_multiple(m), m) }}) AS rel_{{ m.level | number }}_top_r_times_{{ m.cut_key }}
{% endmacro %}
{% macro Rprec_mult_value(m) %}COALESCE(CAST(rel_{{ m.level | number }}_top_r_times_{{ m.cut_key }} AS DOUBLE) / NULLIF({{ r_multiple(m) }}, 0), 0){% endmacro %}
