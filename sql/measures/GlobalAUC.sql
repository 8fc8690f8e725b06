{#-
  GlobalAUC (CTR's AUC): one ROC curve over the retrieved judged documents of every evaluated
  query together (depth cuts each query's ranking first): the share of (relevant, judged non-relevant)
  pairs, whichever queries they come from, in which the relevant document scores higher, a pair
  of equal scores counting 1/2 (scores of different queries have no tie-break):
    GlobalAUC = 1 - (sum over scores s of P_s * (N_above_s + N_s / 2)) / (P * N),
  P_s, N_s = relevant and judged non-relevant documents scored s; N_above_s = judged
  non-relevant ones scored higher. One value for the whole evaluation, none per query; empty
  when P or N is 0. Labels as in AUC: relevant >= rel, judged non-relevant 0 <= label < rel.
  Parameters: rel (minimum relevant label, default 1).
  Reference: Fawcett (2006); RecBole's AUC; sklearn roc_auc_score over all rows.
-#}
{% import 'measures/AUC.sql' as auc %}

{% macro judged(m) %}{{ auc.judged(m) }}{% endmacro %}
{#- The share of (relevant, non-relevant) pairs over all queries ranked in order (pooled.sql counts them). -#}
{% macro pooled(m) %}{% call column('global_auc') %}1 - SUM(positive * (negative_above + CAST(negative AS {{ DOUBLE }}) / 2))
               / NULLIF(CAST(SUM(positive) AS {{ DOUBLE }}) * SUM(negative), 0){% endcall %}{% endmacro %}
{% macro value(m) %}{{ m.step_names.pooled }}.global_auc{% endmacro %}
