{#-
  PercentileRank: the expected percentile rank of the relevant documents (Hu, Koren & Volinsky, ICDM 2008): each
  judged document's percentile, (rank - 1) / n in a ranking of n documents (0 at the top), 1 where the ranking does
  not hold it, averaged with the documents' gains as weights: sum(gain * percentile) / sum(gain) over the query's
  judgments; 0 where no judgment has a gain. Lower is better. With the linear gain, RecPack's PercentileRanking (the
  run ranking its whole catalog).
  Reference: Hu, Koren & Volinsky (2008); RecPack, recpack/metrics/percentile_ranking.py.
-#}
{% import '_macros/gain.sql' as gains %}
{% import 'measures/DCG.sql' as dcg %}

{% macro total(m) %}percentile_gain{{ m.gain.sfx }}{% endmacro %}
{% macro ranked_gain(m) %}percentile_ranked{{ m.gain.sfx }}{% endmacro %}
{% macro placed(m) %}percentile_placed{{ m.gain.sfx }}{% endmacro %}

{% macro judgments(m) %}{% call column(total(m)) %}SUM({{ gains.gain('relevance', m.gain) }}){% endcall %}{% endmacro %}
{% macro judged(m) %}{{ dcg.judged(m) }}{% endmacro %}
{% macro retrieved(m) %}
{% call column(placed(m)) %}SUM({{ dcg.gain_name(m) }} * (rank - 1)) / COUNT(*){% endcall %}
{% call column(ranked_gain(m)) %}SUM({{ dcg.gain_name(m) }}){% endcall %}
{% endmacro %}
{#- the retrieved documents at their percentiles, the judged ones the ranking lacks at 1 -#}
{% macro value(m) %}COALESCE((COALESCE({{ placed(m) }}, 0) + {{ total(m) }} - COALESCE({{ ranked_gain(m) }}, 0)) / NULLIF({{ total(m) }}, 0), 0){% endmacro %}
