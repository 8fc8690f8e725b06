{#-
  IdealDCG and IdealDCG@k (trec_eval ideal_dcg): the DCG of the ideal ranking (measures/nDCG.sql,
  ideal convention).
  Reference: trec_eval 10 m_ideal_dcg.c.
-#}
{% import 'measures/DCG.sql' as dcg %}
{% import 'measures/nDCG.sql' as ndcg %}

{% macro judged(m) %}{% if m.ideal.kind == 'run' %}{{ dcg.judged(m) }}{% endif %}{% endmacro %}
{% macro retrieved(m) %}{{ ndcg.discount_sum(m) }}{% endmacro %}
{% macro ideal(m) %}{{ ndcg.ideal(m) }}{% endmacro %}
{% macro perfect(m) %}{{ ndcg.perfect(m) }}{% endmacro %}
{% macro value(m) %}COALESCE({{ ndcg.ideal_dcg(m) }}, 0){% endmacro %}
