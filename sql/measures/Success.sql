{#-
  Success@k (trec_eval success_k): 1 when a relevant document is in the top k, else 0.
  With tie_break=expected, its mean over all orders of tied documents: 1 when a relevant
  document is surely in the top k, else 1 minus the probability that none of the r relevant
  documents of the group cut by k reaches the top k (hypergeometric).
  Parameters: rel (minimum relevant label, default 1); cutoff k.
  Reference: trec_eval 10 m_success.c.
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/ties.sql' as ties %}
{% import '_macros/dialect.sql' as dialect %}

{% macro level(m) %}{{ m.level | key }}{% endmacro %}
{% macro judged(m) %}{{ judging.is_relevant_column(m.level) }}{% endmacro %}
{% macro tie(m) %}
{% if m.expected %}
{{ ties.group_columns() }}
{% call column("tie_rel_" ~ level(m)) %}SUM({{ judging.is_relevant(m.level) }}) OVER tie{% endcall %}
{% endif %}
{% endmacro %}
{#- In the group cut by k (s documents, r relevant, m = k - first + 1 of its positions within the
    top k), the chance that none of the r is among the first m: C(s - r, m) / C(s, m). -#}
{% macro none_reach(m) -%}
{%- set s = 'tie_size' -%}{%- set r = 'tie_rel_' ~ m.level -%}{%- set slots = '(' ~ m.cutoff ~ ' - tie_first + 1)' -%}
CASE WHEN {{ s }} - {{ r }} < {{ slots }} THEN 0 ELSE EXP({{ dialect.ln_choose(s ~ ' - ' ~ r, slots) }} - {{ dialect.ln_choose(s, slots) }}) END
{%- endmacro %}
{% macro retrieved(m) %}
{% if m.expected %}
{% call column("rel_" ~ level(m) ~ "_surely_top_" ~ (m.cutoff | number)) %}MAX(CASE WHEN {{ judging.is_relevant(m.level) }} = 1 AND tie_last <= {{ m.cutoff | number }} THEN 1 ELSE 0 END){% endcall %}
{% call column("rel_" ~ level(m) ~ "_none_top_" ~ (m.cutoff | number)) %}MAX(CASE WHEN tie_first <= {{ m.cutoff | number }} AND tie_last > {{ m.cutoff | number }} THEN {{ none_reach(m) }} END){% endcall %}
{% else %}
{{ judging.relevant_in_top_column(m.level, m.cutoff, m) }}
{% endif %}
{% endmacro %}
{% macro value(m) %}
{%- if m.expected -%}
{%- set surely = 'rel_' ~ level(m) ~ '_surely_top_' ~ m.cutoff -%}{%- set missed = 'rel_' ~ level(m) ~ '_none_top_' ~ m.cutoff -%}
CASE WHEN {{ surely }} = 1 THEN CAST(1 AS {{ DOUBLE }}) WHEN {{ missed }} IS NOT NULL THEN 1 - {{ missed }} ELSE 0 END
{%- else -%}
CASE WHEN {{ judging.relevant_in_top(m.level, m.cutoff) }} > 0 THEN CAST(1 AS {{ DOUBLE }}) ELSE 0 END
{%- endif -%}
{% endmacro %}
