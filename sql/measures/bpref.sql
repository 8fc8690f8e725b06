{#-
  Bpref, GMBpref, infAP: measures that use only judged documents above each relevant one.
    Bpref  = (1 / R) * sum over retrieved relevant d of (1 - min(n_d, R) / min(N, R)),
             n_d = judged non-relevant documents above d, N = judged non-relevant in the qrels
             (a term is 1 when n_d = 0)
    GMBpref = Bpref averaged over queries as exp(mean(ln(max(bpref, 1e-5))))
    infAP  = (1 / R) * sum over retrieved relevant d at rank r of
               1                                     when r = 1
               1/r + ((r-1)/r) * (a/(r-1)) * ((p + e) / (p + n + 2e))   otherwise,
             with p relevant, n judged non-relevant and a = p + n + pool-unjudged (negative
             label) documents above d, e = 1e-5
  Unjudged documents are skipped; negative labels are neither relevant nor non-relevant.
  Parameters: rel (minimum relevant label, default 1).
  Reference: Buckley & Voorhees (SIGIR 2004); Yilmaz & Aslam (CIKM 2006);
             trec_eval 10 m_bpref.c, m_gm_bpref.c, m_infap.c (SEMANTICS.md sec. 5, E2, E3).
-#}
{% import '_macros/judging.sql' as judging %}

{% macro Bpref_parts(m) %}
[judged] {{ judging.is_relevant_column(m.level) }}
[judged] {{ judging.is_nonrelevant_column(m.level) }}
[ranked] {{ judging.nonrelevant_so_far_column(m.level) }}
[judgments] {{ judging.num_rel_column(m.level) }}
[judgments] {{ judging.num_nonrel_column(m.level) }}
[join] judgments
[retrieved] SUM(CASE WHEN {{ judging.is_relevant(m.level) }} = 1 THEN CASE WHEN {{ judging.nonrelevant_so_far(m.level) }} > 0 THEN 1 - CAST(LEAST({{ judging.nonrelevant_so_far(m.level) }}, judgments.{{ judging.num_rel(m.level) }}) AS DOUBLE) / LEAST(judgments.{{ judging.num_nonrel(m.level) }}, judgments.{{ judging.num_rel(m.level) }}) ELSE 1 END ELSE 0 END) AS bpref_sum_{{ m.level | number }}
{% endmacro %}
{% macro Bpref_value(m) %}COALESCE(bpref_sum_{{ m.level | number }} / NULLIF({{ judging.num_rel(m.level) }}, 0), 0){% endmacro %}

{% macro GMBpref_parts(m) %}{{ Bpref_parts(m) }}{% endmacro %}
{% macro GMBpref_value(m) %}{{ Bpref_value(m) }}{% endmacro %}

{% macro infAP_parts(m) %}
[judged] {{ judging.is_relevant_column(m.level) }}
[judged] {{ judging.is_nonrelevant_column(m.level) }}
[judged] {{ judging.is_pool_unjudged_column() }}
[ranked] {{ judging.relevant_so_far_column(m.level) }}
[ranked] {{ judging.nonrelevant_so_far_column(m.level) }}
[ranked] {{ judging.pool_unjudged_so_far_column() }}
[judgments] {{ judging.num_rel_column(m.level) }}
[retrieved] SUM(CASE WHEN {{ judging.is_relevant(m.level) }} = 0 THEN 0 WHEN rank = 1 THEN CAST(1 AS DOUBLE) ELSE CAST(1 AS DOUBLE) / rank + (CAST(rank - 1 AS DOUBLE) / rank) * (CAST({{ judging.relevant_so_far(m.level) }} - 1 + {{ judging.nonrelevant_so_far(m.level) }} + pool_unjudged_so_far AS DOUBLE) / (rank - 1)) * (({{ judging.relevant_so_far(m.level) }} - 1 + CAST(0.00001 AS DOUBLE)) / ({{ judging.relevant_so_far(m.level) }} - 1 + {{ judging.nonrelevant_so_far(m.level) }} + 2 * CAST(0.00001 AS DOUBLE))) END) AS infap_sum_{{ m.level | number }}
{% endmacro %}
{% macro infAP_value(m) %}COALESCE(infap_sum_{{ m.level | number }} / NULLIF({{ judging.num_rel(m.level) }}, 0), 0){% endmacro %}
