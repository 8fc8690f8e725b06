{#-
  RBP (trec_eval rbp): rank-biased precision,
    RBP = (1 - p) * sum over retrieved d at rank i of gain(d) * p^(i - 1)
          gain = label / (the query's highest label) when that is above 1, else the label;
          0 for labels <= 0 and unjudged documents (trec_eval's intended rescaling to [0, 1]);
          with a gain map, the label's gain / the largest gain of the map (NTCIREVAL's grade / the top
          grade; a larger gain of the query's judgments, of a label the map leaves out, if there is one)
  With tie_break=expected, p^(i - 1) is its mean over the tie group's positions.
  With gain=exponential, (2^label - 1) / (2^top - 1), top the query's highest label (when above 1).
  Parameters: p (persistence, default 0.9), gain (linear, exponential or a mapping).
  Reference: Moffat & Zobel (2008); trec_eval 10 m_rbp.c (docs/trec_eval_semantics.md sec. 5, 9.4).
-#}
{% import '_macros/judging.sql' as judging %}
{% import '_macros/ties.sql' as ties %}
{% import '_macros/dialect.sql' as dialect %}
{% import '_macros/gain.sql' as gains %}

{#- p^(rank - 1), or with tie_break=expected its mean over the tie group's positions. -#}
{% macro weight(m) %}{% if m.expected %}tie_weight_{{ m.column }}{% else %}POWER({{ judging.real(m.p) }}, rank - 1){% endif %}{% endmacro %}
{% macro weight_columns(m) %}
{% if m.expected %}
{{ ties.group_columns() }}
{% call column("tie_weight_" ~ m.column) %}AVG(POWER({{ judging.real(m.p) }}, rank - 1)) OVER tie{% endcall %}
{% endif %}
{% endmacro %}

{% macro judgments(m) %}
{% if m.gain.map %}
{% call column("max_gain" ~ m.gain.sfx) %}MAX({{ gains.gain('relevance', m.gain) }}){% endcall %}
{% else %}
{% call column("max_label") %}MAX(CASE WHEN relevance >= 0 THEN relevance END){% endcall %}
{% endif %}
{% endmacro %}
{% macro tie(m) %}{{ weight_columns(m) }}{% endmacro %}
{#- A document's gain over the top of the scale: a map's (any judged label may have a gain), 2^label - 1 over
    2^top - 1, or trec_eval's label over the top label -#}
{% macro scaled(m) -%}
{%- if m.gain.map -%}
({{ gains.gain('relevance', m.gain) }}) / NULLIF(GREATEST(judgments.max_gain{{ m.gain.sfx }}, {{ judging.real(m.gain.map | map(attribute=1) | max) }}), 0)
{%- elif m.gain.kind == 'exponential' -%}
(POWER(CAST(2 AS {{ DOUBLE }}), relevance) - 1) / CASE WHEN judgments.max_label > 1 THEN POWER(CAST(2 AS {{ DOUBLE }}), judgments.max_label) - 1 ELSE 1 END
{%- else -%}
CAST(relevance AS {{ DOUBLE }}) / CASE WHEN judgments.max_label > 1 THEN judgments.max_label ELSE 1 END
{%- endif -%}
{%- endmacro %}
{% macro retrieved(m) %}
{% call column(m.column ~ "_sum") %}{{ dialect.sum_in_rank_order(scaled(m) ~ ' * ' ~ weight(m), 'relevance IS NOT NULL' if m.gain.map else 'relevance > 0') }}{% endcall %}
{% endmacro %}
{% macro value(m) %}(1 - {{ judging.real(m.p) }}) * COALESCE({{ m.column }}_sum, 0){% endmacro %}
