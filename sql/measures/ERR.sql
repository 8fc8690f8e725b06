{#-
  ERR and ERR@k: expected reciprocal rank (Chapelle et al., CIKM 2009), as gdeval.pl computes it.
  A user reads down the ranking and stops at the document at rank i with probability
  R_i = (2^label - 1) / 2^max_rel (0 for labels <= 0 and unjudged documents);
    ERR@k = sum over ranks i <= k of R_i / i * prod over ranks j < i of (1 - R_j)
  The product is exp of the running sum of ln(1 - R_j), which is finite as R_j < 1 for labels up
  to max_rel; labels above max_rel are refused before evaluating (the registry's label_limit).
  With stop=ntcir, R_i = gain_i / (top gain + 1), as NTCIREVAL computes ERR (its grade / (max grade + 1)):
  the gain of the gain convention (linear: the label; a map: its gain, one per label 1..max_rel;
  exponential: 2^label - 1, which gives Chapelle's R again), the top gain that of max_rel (a map's largest).
  Parameters: max_rel (the highest label, default 4 as in gdeval.pl), stop (exponential or ntcir), gain;
  cutoff k (default: the whole ranking).
  Reference: Chapelle, Metzler, Zhang & Grinspan, "Expected reciprocal rank for graded
  relevance" (CIKM 2009); gdeval.pl (TREC 2010 Web track), ir_measures' ERR@k; NTCIREVAL (Sakai),
  pyNTCIREVAL's metrics/err.py and grade_metric.py (stop=ntcir).
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/gain.sql' as gains %}

{% macro kind(m) %}{{ m.max_rel | key }}{% if m.stop == 'ntcir' %}_ntcir{{ m.gain.sfx }}{% endif %}{% endmacro %}
{% macro stop(m) %}err_stop_{{ kind(m) }}{% endmacro %}
{% macro continue_so_far(m) %}err_continue_{{ kind(m) }}_so_far{% endmacro %}
{% macro err(m) %}err_{{ kind(m) }}{{ judging.cut(m.cutoff) }}{% endmacro %}

{#- The chance that the user stops at this document: (2^label - 1) / 2^max_rel, or with stop=ntcir its gain over the
    top gain + 1 (the top gain: max_rel's, or a gain map's largest, which names every label 1..max_rel). -#}
{% macro judged(m) %}
{% if m.stop == 'ntcir' %}
{%- set top = judging.real(m.gain.map | map(attribute=1) | max) if m.gain.map else gains.gain(m.max_rel | number, m.gain) -%}
{% call column(stop(m)) %}CASE WHEN relevance IS NOT NULL THEN ({{ gains.gain('relevance', m.gain) }}) / (({{ top }}) + 1) ELSE 0 END{% endcall %}
{% else %}
{% call column(stop(m)) %}CASE WHEN relevance > 0 THEN (POWER(CAST(2 AS {{ DOUBLE }}), relevance) - 1) / POWER(CAST(2 AS {{ DOUBLE }}), {{ m.max_rel | number }}) ELSE 0 END{% endcall %}
{% endif %}
{% endmacro %}
{#- ln of the chance that the user reads past this document and every one above it. -#}
{% macro ranked(m) %}{% call column(continue_so_far(m)) %}SUM(LN(1 - {{ stop(m) }})) OVER ranking{% endcall %}{% endmacro %}
{% macro retrieved(m) %}
{%- set reached = 'EXP(' ~ continue_so_far(m) ~ ' - LN(1 - ' ~ stop(m) ~ '))' -%}
{% call column(err(m)) %}{{ dialect.sum_in_rank_order(stop(m) ~ ' * ' ~ reached ~ ' / rank', stop(m) ~ ' > 0', m.cutoff) }}{% endcall %}
{% endmacro %}
{% macro value(m) %}COALESCE({{ err(m) }}, 0){% endmacro %}
