{#-
  GMBpref (trec_eval gm_bpref): Bpref per query (measures/Bpref.sql), averaged over queries as
  exp(mean(ln(max(bpref, 1e-5)))) (the registry's aggregate "geometric").
  Parameters: rel (minimum relevant label, default 1).
  Reference: trec_eval 10 m_gm_bpref.c.
-#}
{% import 'measures/Bpref.sql' as bpref %}

{% macro judgments(m) %}{{ bpref.judgments(m) }}{% endmacro %}
{% macro judged(m) %}{{ bpref.judged(m) }}{% endmacro %}
{% macro ranked(m) %}{{ bpref.ranked(m) }}{% endmacro %}
{% macro retrieved(m) %}{{ bpref.retrieved(m) }}{% endmacro %}
{% macro value(m) %}{{ bpref.value(m) }}{% endmacro %}
