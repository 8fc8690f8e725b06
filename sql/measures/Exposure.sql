{#-
  Exposure(group=G)@k: the share of the top k's exposure that group G's documents get: the sum over
  them of the attention of their rank (browse=log: 1 / log2(rank + 1), as DCG's discount; browse=rbp:
  p^(rank - 1), RBP's user), each document's split equally among its groups, over the attention of
  every rank of the top k (documents without a group included: the groups' shares then sum to less
  than 1). 0 for a query that retrieved nothing. The family step "exposure" (sql/evaluation/exposure.sql).
  Parameters: group (required; sqlrank names one measure per group when it is left out), browse (log or
  rbp, default log), p (rbp's patience, default 0.5); cutoff k (the whole ranking without one).
  Reference: Singh & Joachims (KDD 2018), the exposure of a group; FairRankTune EXP (its group exposures).
-#}
{% macro prefix(m) %}exposure_{{ m.browse }}_{{ m.p | key }}_{{ 'all' if m.cutoff is none else 'top_' ~ (m.cutoff | number) }}{% endmacro %}
{% macro exposure(m) %}
{% call column(prefix(m) ~ '_of_' ~ (m.group | name_key)) %}MAX(CASE WHEN group_id = {{ m.group | literal }} THEN exposure END){% endcall %}
{% call column(prefix(m) ~ '_total') %}MAX(total){% endcall %}
{% endmacro %}
{% macro value(m) %}COALESCE({{ prefix(m) }}_of_{{ m.group | name_key }} / NULLIF({{ prefix(m) }}_total, 0), 0){% endmacro %}
