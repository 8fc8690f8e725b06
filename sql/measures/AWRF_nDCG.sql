{#-
  AWRF_nDCG@k: AWRF@k (measures/AWRF.sql) times nDCG@k (measures/nDCG.sql, its gain, discount and ideal
  conventions), TREC Fair Ranking 2022's measure of a ranking fair and relevant at once. No value where
  AWRF has none.
  Reference: TREC Fair Ranking 2022 overview (Ekstrand, McDonald, Raj & Johnson).
-#}
{% import 'measures/nDCG.sql' as ndcg %}
{% import 'measures/AWRF.sql' as awrf %}
{% macro judged(m) %}{{ ndcg.judged(m) }}{% endmacro %}
{% macro retrieved(m) %}{{ ndcg.retrieved(m) }}{% endmacro %}
{% macro ideal(m) %}{{ ndcg.ideal(m) }}{% endmacro %}
{% macro perfect(m) %}{{ ndcg.perfect(m) }}{% endmacro %}
{% macro exposure(m) %}{{ awrf.exposure(m) }}{% endmacro %}
{% macro value(m) %}({{ awrf.value(m) }}) * {{ ndcg.value(m) }}{% endmacro %}
