{#-
  Discount of the gain at rank i, by the discount convention with log base b:
    log       gain / log_b(i + 1) at every rank (rank 1 undiscounted when b = 2; trec_eval)
    jarvelin  gain undiscounted up to rank b, then gain / log_b(i) (Jarvelin & Kekalainen 2002;
              with b = 2 the tutorials' "rel_1 + sum rel_i / log2 i")
    map       gain * the weight the mapping gives rank i (0 for a rank it leaves out)
    flat      gain at every rank (DCG is CG; nDCG is NCG, the cumulative gain over the ideal one)
  Base 2 uses LOG2; other bases LN(x) / LN(b).
  Reference: Jarvelin & Kekalainen (2002); trec_eval 10 m_ndcg.c.
-#}
{% import '_macros/dialect.sql' as dialect %}
{% macro log_b(x, base) -%}
{%- if base == 2 -%}{{ dialect.log2(x) }}{%- else -%}(LN({{ x }}) / LN(CAST({{ base | number }} AS {{ DOUBLE }}))){%- endif -%}
{%- endmacro %}

{% macro discounted(gain, rank, d) -%}
{%- if d.kind == 'map' -%}
{{ gain }} * CASE {{ rank }}{% for position, weight in d.map %} WHEN {{ position | number }} THEN {{ weight | number }}{% endfor %} ELSE 0 END
{%- elif d.kind == 'flat' -%}
{{ gain }}
{%- elif d.kind == 'jarvelin' -%}
CASE WHEN {{ rank }} <= CAST({{ d.base | number }} AS {{ DOUBLE }}) THEN {{ gain }} ELSE {{ gain }} / {{ log_b(rank, d.base) }} END
{%- else -%}
{{ gain }} / {{ log_b(rank ~ ' + 1', d.base) }}
{%- endif -%}
{%- endmacro %}

{#- Sum of discounted gains over the rows of one query up to rank k (all ranks when k is none), added in
    rank order (dialect.sum_in_rank_order); with tie_break=expected each row's discount is the mean over its
    tie group's positions. -#}
{% macro dcg_column(gain, k, name, d, expected=false, weight=none) %}
{% if expected %}
{% call column(name) %}{{ dialect.sum_in_rank_order(gain ~ ' * ' ~ weight, gain ~ ' <> 0') }}{% endcall %}
{% else %}
{% call column(name) %}{{ dialect.sum_in_rank_order(discounted(gain, 'rank', d), gain ~ ' <> 0', k) }}{% endcall %}
{% endif %}
{% endmacro %}
