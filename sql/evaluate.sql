{#-
  One evaluation as one statement: the pieces Python chose (sqlrank/render/statement.py,
  render_evaluation), each a file of sql/evaluation/, then one output of sql/output/.
    inputs              qrels and run, typed (query_id, doc_id, relevance | score)
    evaluated_queries   which queries count, numbered
    query_segments      (results per segment) each query's segments
    judgments           per-query counts over all judgments (R, ...)
    ideal               an ideal ranking and its per-query DCG
    ranking[_sparse]    each retrieved document ranked, with its label and running columns,
                        once per distinct (tie_break, judged_only, depth) the measures ask for
    retrieved           per-query aggregates over a ranking
    values              one column per requested measure
    summary, segments   aggregates over queries
  Shared steps are computed once; every measure is one column of one per-query row.
-#}
{% import '_macros/dialect.sql' as dialect %}
-- sqlrank {{ version }}: {{ measure_names | join(', ') }}
{% if canonical %}
-- canonical: {{ canonical }}
{% endif %}
-- conventions: {{ conventions }}
WITH{{ ' RECURSIVE' if recursive }}
{% for piece in pieces %}
{% filter trim %}{% include piece.template %}{% endfilter %}{{ ',' if not loop.last }}
{% endfor %}
{#- The output's rows: one per measure and name asked (a measure asked by two names has a row under each). -#}
{% set measures = rows %}
{% filter trim %}{% include 'output/' ~ output ~ '.sql' %}{% endfilter %}{{ dialect.settings() }}
