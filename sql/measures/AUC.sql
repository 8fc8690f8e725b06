{#-
  AUC (per query): the area under the ROC curve of the query's retrieved judged documents, the
  share of (relevant, judged non-relevant) pairs in which the relevant document ranks higher:
    AUC = 1 - (sum over retrieved relevant d of n_d) / (P * N),
          n_d = retrieved judged non-relevant documents above d; P, N = the retrieved relevant
          (label >= rel) and judged non-relevant (0 <= label < rel) documents.
  Empty (NULL) where P or N is 0, so the mean is over the queries that have both. Unjudged
  documents, and judged ones the run did not score, take no part: in a click log, the
  impressions the model scored. With the default tie-break a pair of equal scores counts as
  ranked (1 or 0); with tie_break=expected, 1/2, as sklearn's roc_auc_score counts it: a
  relevant document in a tie group is expected below the group's B non-relevant ones above the
  group and half of its own s.
  Parameters: rel (minimum relevant label, default 1).
  Reference: Hanley & McNeil (1982), the Mann-Whitney statistic; per user as in GAUC (Zhou et
  al., KDD 2018), whose impression-weighted mean is sum(AUC * n) / sum(n) of the per-query values.
-#}
{#- Step columns auc_positive_L, auc_negative_L: not auc_rel_L, which is the column of the measure
    AUC(rel=L) itself (engines that see a SELECT's aliases in its own expressions would mix them). -#}
{% import '_macros/judging.sql' as judging %}

{% macro level(m) %}{{ m.level | key }}{% endmacro %}
{% macro judged(m) %}
{{ judging.is_relevant_column(m.level) }}
{{ judging.is_nonrelevant_column(m.level) }}
{% endmacro %}
{% macro ranked(m) %}{{ judging.nonrelevant_so_far_column(m.level) }}{% endmacro %}
{% macro tie(m) %}
{% if m.expected %}
{% call column("tie_nonrel_" ~ level(m)) %}SUM({{ judging.is_nonrelevant(m.level) }}) OVER tie{% endcall %}
{% call column("tie_nonrel_before_" ~ level(m)) %}MIN({{ judging.nonrelevant_so_far(m.level) }} - {{ judging.is_nonrelevant(m.level) }}) OVER tie{% endcall %}
{% endif %}
{% endmacro %}
{% macro retrieved(m) %}
{%- set above = 'tie_nonrel_before_' ~ level(m) ~ ' + CAST(tie_nonrel_' ~ level(m) ~ ' AS ' ~ DOUBLE ~ ') / 2' if m.expected else judging.nonrelevant_so_far(m.level) -%}
{% call column("auc_misordered_" ~ level(m)) %}SUM(CASE WHEN {{ judging.is_relevant(m.level) }} = 1 THEN {{ above }} ELSE 0 END){% endcall %}
{% call column("auc_positive_" ~ level(m)) %}SUM({{ judging.is_relevant(m.level) }}){% endcall %}
{% call column("auc_negative_" ~ level(m)) %}SUM({{ judging.is_nonrelevant(m.level) }}){% endcall %}
{% endmacro %}
{% macro value(m) %}1 - CAST(auc_misordered_{{ level(m) }} AS {{ DOUBLE }}) / NULLIF(CAST(auc_positive_{{ level(m) }} AS {{ DOUBLE }}) * auc_negative_{{ level(m) }}, 0){% endmacro %}
