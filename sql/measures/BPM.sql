{#-
  BPM, the static Bejewelled Player Model (Zhang et al., SIGIR 2017; the C/W/L framework of cwl_eval):
  a user reads down the ranking until the gain so far reaches T or K documents are read, whichever
  comes first (the first document always), and BPM is the mean gain of the documents read:
    m = min(the first rank where the gain so far >= T, K, N), BPM = sum over ranks i <= m of gain(i) / m
  with gain = label / max_rel (0 for labels <= 0 and unjudged documents) and N = 1000 ranks as cwl_eval
  reads them (past the run's last document a gain of 0, so m may be beyond it).
  The gain so far reaches T when it is within 1e-9 of it: sums of gains such as thirds are not exact in
  floating point, and the sum above rank i is the running sum less gain(i), so both tests read one threshold.
  Parameters: T (default 1), K (1 to 1000, default 1000), max_rel (the label of gain 1, default 1).
  Reference: cwl_eval 1.0.12, ruler/measures/cwl_bpm.py (BPM-Static; expected utility per document).
-#}
{% import '_macros/judging.sql' as judging %}
{% import 'measures/INSQ.sql' as insq %}
{% macro so_far(m) %}cwl_gain_{{ m.max_rel | key }}_so_far{% endmacro %}
{% macro reached(m) %}bpm_reached_{{ m.T | key }}_{{ m.max_rel | key }}{% endmacro %}
{% macro read(m) %}bpm_read_{{ m.T | key }}_{{ m.K | key }}_{{ m.max_rel | key }}{% endmacro %}
{% macro threshold(m) %}({{ judging.real(m.T) }} - 1e-9){% endmacro %}
{% macro judged(m) %}{{ insq.judged(m) }}{% endmacro %}
{% macro ranked(m) %}{% call column(so_far(m)) %}SUM({{ insq.gain(m) }}) OVER ranking{% endcall %}{% endmacro %}
{% macro retrieved(m) %}
{% call column(reached(m)) %}MIN(CASE WHEN {{ so_far(m) }} >= {{ threshold(m) }} THEN rank END){% endcall %}
{% call column(read(m)) %}SUM(CASE WHEN rank <= {{ m.K | number }} AND (rank = 1 OR {{ so_far(m) }} - {{ insq.gain(m) }} < {{ threshold(m) }}) THEN {{ insq.gain(m) }} ELSE 0 END){% endcall %}
{% endmacro %}
{% macro value(m) %}COALESCE({{ read(m) }}, 0) / CASE WHEN {{ reached(m) }} < {{ m.K | number }} THEN {{ reached(m) }} ELSE {{ m.K | number }} END{% endmacro %}
