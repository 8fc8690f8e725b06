{#-
  PercentileRank: the expected percentile rank of the relevant documents (Hu, Koren & Volinsky, ICDM 2008): each
  judged document's percentile, (rank - 1) / n in a ranking of n documents (0 at the top), 1 where the ranking does
  not hold it, averaged with the documents' gains as weights: sum(gain * percentile) / sum(gain) over the query's
  judgments; 0 where no judgment has a gain. The judged documents the ranking lacks weigh the judgments' cumulative
  gain less CG. Lower is better. With the linear gain, RecPack's PercentileRanking (the run ranking its whole
  catalog).
  Reference: Hu, Koren & Volinsky (2008); RecPack, recpack/metrics/percentile_ranking.py.
-#}
{% import 'measures/CG.sql' as cumulative %}
{% import 'measures/DCG.sql' as dcg %}

{% macro placed(m) %}percentile_placed{{ m.gain.sfx }}{% endmacro %}

{% macro judgments(m) %}{{ cumulative.judged_cg_column(m) }}{% endmacro %}
{% macro judged(m) %}{{ cumulative.judged(m) }}{% endmacro %}
{% macro retrieved(m) %}
{% call column(placed(m)) %}SUM({{ dcg.gain_name(m) }} * (rank - 1)) / COUNT(*){% endcall %}
{{ cumulative.retrieved(m) }}
{% endmacro %}
{% macro value(m) %}
{%- set total = cumulative.judged_cg(m) -%}
COALESCE((COALESCE({{ placed(m) }}, 0) + {{ total }} - COALESCE({{ cumulative.cg(m) }}, 0)) / NULLIF({{ total }}, 0), 0)
{%- endmacro %}
