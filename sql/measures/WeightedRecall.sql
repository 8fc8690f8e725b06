{#-
  WeightedRecall@k: the gains of the top k over the gains of all the query's judgments (0 where no judgment has a
  gain): recall with each relevant document weighed by its gain. With the linear gain, PyG's
  LinkPredRecall(weighted=True) (edge_label_weight the labels).
  Reference: PyTorch Geometric, torch_geometric/metrics/link_pred.py (LinkPredRecall, weighted).
-#}
{% import '_macros/gain.sql' as gains %}
{% import '_macros/judging.sql' as judging %}
{% import 'measures/DCG.sql' as dcg %}

{% macro total(m) %}weighted_total{{ m.gain.sfx }}{% endmacro %}
{% macro found(m) %}weighted_found{{ m.gain.sfx }}{{ judging.cut(m.cutoff) }}{% endmacro %}

{% macro judgments(m) %}{% call column(total(m)) %}SUM({{ gains.gain('relevance', m.gain) }}){% endcall %}{% endmacro %}
{% macro judged(m) %}{{ dcg.judged(m) }}{% endmacro %}
{% macro retrieved(m) %}{% call column(found(m)) %}SUM({{ dcg.gain_name(m) }} * CASE WHEN rank <= {{ m.cutoff | number }} THEN 1 ELSE 0 END){% endcall %}{% endmacro %}
{% macro value(m) %}COALESCE(COALESCE({{ found(m) }}, 0) / NULLIF({{ total(m) }}, 0), 0){% endmacro %}
