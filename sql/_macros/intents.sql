{#-
  The columns the diversity measures add to the family step "intents" (sql/evaluation/intents.sql),
  named by the step's relevance level and alpha, so that two such steps never share a name. The step's
  rows: the run's ranks (ideal = 0) and the greedy ideal ranking's (ideal = 1), each with its gain
  (the sum over the subtopics the document is relevant to of (1 - alpha)^(documents above it relevant
  to that subtopic)), pairs (those subtopics), fresh (those no document above covers) and share (the
  AP terms: for each of those subtopics, the documents down to it relevant to the subtopic, over its
  rank and over the subtopic's relevant documents); subtopics is S, the query's subtopics with a
  relevant document.
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/judging.sql' as judging %}
{% macro prefix(m) %}ia_{{ m.level | key }}_{{ m.get('alpha', 0.5) | key }}_{% endmacro %}
{% macro cut(m) %}{% if m.cutoff is none %}all{% else %}top_{{ m.cutoff | number }}{% endif %}{% endmacro %}
{% macro within(m) %}{% if m.cutoff is not none %} AND rank <= {{ m.cutoff | number }}{% endif %}{% endmacro %}
{% macro novelty(m) %}(1 - {{ judging.real(m.get('alpha', 0.5)) }}){% endmacro %}

{% macro subtopics(m) %}{% call column(prefix(m) ~ 'subtopics') %}MAX(subtopics){% endcall %}{% endmacro %}

{#- The gains of the run's (ideal=false) or the ideal ranking's top k, discounted by form: dcg 1/log2(rank + 1),
    err 1/rank, rbp beta^(rank - 1). -#}
{% macro discount(form, m) -%}
{%- if form == 'dcg' %} / {{ dialect.log2('rank + 1') }}{% elif form == 'err' %} / rank{% else %} * POWER({{ judging.real(m.beta) }}, rank - 1){% endif -%}
{%- endmacro %}
{% macro name(m, form, ideal) %}{{ prefix(m) }}{{ 'ideal_' if ideal }}{{ form }}{% if form == 'rbp' %}_{{ m.beta | key }}{% else %}_{{ cut(m) }}{% endif %}{% endmacro %}
{#- Sums of fractions are added rank by rank (dialect.sum_in_order), so that a value has the same bits on every run. -#}
{% macro discounted(m, form, ideal) %}
{% call column(name(m, form, ideal)) %}{{ dialect.sum_in_order('CASE WHEN ideal = ' ~ (1 if ideal else 0) ~ within(m) ~ ' THEN gain'
    ~ discount(form, m) ~ ' ELSE 0 END', 'ideal, rank') }}{% endcall %}
{% endmacro %}
{#- Per (query, document) columns summed over the run's top k: pairs, fresh (counts), share (fractions). -#}
{% macro counted(m, what) %}
{% set term = 'CASE WHEN ideal = 0' ~ within(m) ~ ' THEN ' ~ what ~ ' ELSE 0 END' %}
{% set summed = dialect.sum_in_order(term, 'ideal, rank') if what == 'share' else 'SUM(' ~ term ~ ')' %}
{% call column(prefix(m) ~ what ~ '_' ~ cut(m)) %}{{ summed }}{% endcall %}
{% endmacro %}

{#- The run's value over the ideal ranking's, 0 where the run has none. -#}
{% macro over_ideal(m, form) %}COALESCE({{ name(m, form, false) }} / NULLIF({{ name(m, form, true) }}, 0), 0){% endmacro %}
{#- The run's value over that of a ranking whose every document is relevant to every subtopic (ndeval's
    collection-independent normalisation): S * the sum over ranks i <= k of (1 - alpha)^(i - 1) discounted. -#}
{% macro over_ideal_ideal(m, form) -%}
COALESCE({{ name(m, form, false) }} / NULLIF({{ prefix(m) }}subtopics * (SELECT SUM(POWER({{ novelty(m) }}, position - 1){{ discount(form, m) | replace('rank', 'position') }}) FROM {{ dialect.positions(m.cutoff) }}), 0), 0)
{%- endmacro %}
{% macro per_subtopic(m, what) %}COALESCE(CAST({{ prefix(m) }}{{ what }}_{{ cut(m) }} AS {{ DOUBLE }}) / NULLIF({{ prefix(m) }}subtopics, 0), 0){% endmacro %}
