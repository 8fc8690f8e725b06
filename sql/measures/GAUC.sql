{#-
  GAUC (group AUC): each query's AUC (measures/AUC.sql), averaged with the query weighted by its
  retrieved judged documents, w = P + N (in a click log, the user's impressions), or with
  weight=positives by its retrieved relevant ones, w = P (the user's clicks):
    GAUC = sum over queries with an AUC of AUC * w, divided by the sum of their w
  (the registry's aggregate "weighted": the macro weight gives each query's weight). Per query
  the value is the query's AUC.
  Parameters: rel (minimum relevant label, default 1), weight (impressions, when not given, or positives).
  Reference: Zhou et al., Deep Interest Network for Click-Through Rate Prediction (KDD 2018),
  GAUC weighted by impressions or clicks; RecBole's GAUC weighs users by their positive items.
-#}
{% import 'measures/AUC.sql' as auc %}

{% macro judged(m) %}{{ auc.judged(m) }}{% endmacro %}
{% macro ranked(m) %}{{ auc.ranked(m) }}{% endmacro %}
{% macro tie(m) %}{{ auc.tie(m) }}{% endmacro %}
{% macro retrieved(m) %}{{ auc.retrieved(m) }}{% endmacro %}
{% macro value(m) %}{{ auc.value(m) }}{% endmacro %}
{% macro weight(m) %}auc_positive_{{ auc.level(m) }}{% if m.weight != 'positives' %} + auc_negative_{{ auc.level(m) }}{% endif %}{% endmacro %}
