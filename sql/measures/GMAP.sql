{#-
  GMAP (trec_eval gm_map): AP per query (measures/AP.sql), averaged over queries as
  exp(mean(ln(max(AP, 1e-5)))) (the registry's aggregate "geometric").
  Parameters: rel (minimum relevant label, default 1).
  Reference: trec_eval 10 m_gm_map.c.
-#}
{% import 'measures/AP.sql' as ap %}

{% macro judgments(m) %}{{ ap.judgments(m) }}{% endmacro %}
{% macro judged(m) %}{{ ap.judged(m) }}{% endmacro %}
{% macro ranked(m) %}{{ ap.ranked(m) }}{% endmacro %}
{% macro tie(m) %}{{ ap.tie(m) }}{% endmacro %}
{% macro retrieved(m) %}{{ ap.retrieved(m) }}{% endmacro %}
{% macro value(m) %}{{ ap.value(m) }}{% endmacro %}
