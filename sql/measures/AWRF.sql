{#-
  AWRF@k, attention-weighted rank fairness: 1 - d_JS(P, Q), the Jensen-Shannon distance (the square root
  of the divergence, logarithms base 2, as scipy's jensenshannon(P, Q, base=2)); with js=divergence
  1 - the divergence itself, and with js_base=b its logarithms base b (TREC Fair Ranking 2022: 1 - d * d,
  d = scipy's jensenshannon(P, Q) in base e, and browse=jarvelin: the trec_fair_2022 preset) between P, the groups'
  shares of the exposure their documents get in the top k (Exposure's attention, each document's split
  among its groups; documents without a group left out), and the target Q: uniform (1 / n for each of
  the n groups of the groups table), with target=relevant the groups' shares of the query's relevant
  documents (labels >= rel), with target=file the shares of --targets (the query's own, else those for
  every query; normalised to sum to 1; a group with a share but no document has P = 0, adding Q / 2 to the
  divergence). 1: exposure as the target says. No value for a query whose top k
  gives no group exposure, or whose target is empty.
  Parameters: rel, target (uniform, relevant or file; default uniform), browse (log, rbp or jarvelin), p,
  js (distance or divergence; default distance), js_base (2 or e, any number > 1; default 2); cutoff k.
  Reference: Sapiezynski, Zeng, Robertson, Mislove & Wilson (WWW 2019 companion); TREC Fair Ranking 2022.
-#}
{% import '_macros/dialect.sql' as dialect %}
{% import 'measures/Exposure.sql' as expo %}
{% macro prefix(m) %}awrf_{{ m.target }}_{{ m.level | key }}_{{ expo.prefix(m) }}{% endmacro %}
{% macro exposure(m) %}
{% set share = 'exposure / NULLIF(grouped_exposure, 0)' %}
{% set target = {'uniform': 'CAST(1 AS ' ~ DOUBLE ~ ') / groups', 'relevant': 'relevant / NULLIF(grouped_relevant, 0)',
                 'file': 'target / NULLIF(grouped_target, 0)'}[m.target] %}
{% set middle = '((' ~ share ~ ') + (' ~ target ~ ')) / 2' %}
{% call column(prefix(m) ~ '_divergence') %}SUM(CASE WHEN {{ share }} > 0 THEN ({{ share }}) * {{ dialect.log2('(' ~ share ~ ') / (' ~ middle ~ ')') }} ELSE 0 END + CASE WHEN {{ target }} > 0 THEN ({{ target }}) * {{ dialect.log2('(' ~ target ~ ') / (' ~ middle ~ ')') }} ELSE 0 END) / 2{% if m.target == 'file' %} + MAX(target_elsewhere / NULLIF(grouped_target, 0)) / 2{% endif %}{% endcall %}
{% call column(prefix(m) ~ '_grouped') %}MAX(grouped_exposure){% endcall %}
{% if m.target in ('relevant', 'file') %}
{% call column(prefix(m) ~ '_targeted') %}MAX({{ 'grouped_relevant' if m.target == 'relevant' else 'grouped_target' }}){% endcall %}
{% endif %}
{% endmacro %}
{% macro value(m) -%}
{% set divergence = 'GREATEST(' ~ prefix(m) ~ '_divergence, 0)' ~ ('' if m.js_base == 2 else ' / ' ~ dialect.log2(m.js_base | number)) %}
CASE WHEN {{ prefix(m) }}_grouped > 0{% if m.target != 'uniform' %} AND {{ prefix(m) }}_targeted > 0{% endif %} THEN 1 - {{ 'SQRT(' ~ divergence ~ ')' if m.js == 'distance' else divergence }} END
{%- endmacro %}
