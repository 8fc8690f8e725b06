{#-
  tie_break=expected: the mean of a measure over every order of the documents that share a
  score. Linear measures take, for each document, the mean of its weight over the positions
  its tie group occupies (tie_first .. tie_last); AP, RR and Success use closed forms.
  Reference: McSherry & Najork, "Computing information retrieval performance measures
  efficiently in the presence of tied scores" (ECIR 2008); sklearn ndcg_score.
-#}
{#- The tie step's columns of every measure under tie_break=expected: the group's first and last
    rank and its size. -#}
{% macro group_columns() %}
{% call column("tie_first") %}MIN(rank) OVER tie{% endcall %}
{% call column("tie_last") %}MAX(rank) OVER tie{% endcall %}
{% call column("tie_size") %}COUNT(*) OVER tie{% endcall %}
{% endmacro %}

{#- The weight of "this document is within the top k": 1/0, or with ties the share of its
    group's positions that are within the top k. k may be an expression. -#}
{% macro within(k, m) -%}
{%- if m.expected -%}
GREATEST(CAST(0 AS {{ DOUBLE }}), LEAST(CAST(tie_last AS {{ DOUBLE }}), CAST({{ k }} AS {{ DOUBLE }})) - tie_first + 1) / tie_size
{%- else -%}
CASE WHEN rank <= {{ k }} THEN 1 ELSE 0 END
{%- endif -%}
{%- endmacro %}
