{#-
  WeightedRecall@k: CG@k over the cumulative gain of all the query's judgments (0 where no judgment has a gain):
  recall with each relevant document weighed by its gain. With the linear gain, PyG's LinkPredRecall(weighted=True)
  (edge_label_weight the labels).
  Reference: PyTorch Geometric, torch_geometric/metrics/link_pred.py (LinkPredRecall, weighted).
-#}
{% import 'measures/CG.sql' as cumulative %}

{% macro judgments(m) %}{{ cumulative.judged_cg_column(m) }}{% endmacro %}
{% macro judged(m) %}{{ cumulative.judged(m) }}{% endmacro %}
{% macro retrieved(m) %}{{ cumulative.retrieved(m) }}{% endmacro %}
{% macro value(m) %}COALESCE(COALESCE({{ cumulative.cg(m) }}, 0) / NULLIF({{ cumulative.judged_cg(m) }}, 0), 0){% endmacro %}
