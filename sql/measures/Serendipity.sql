{#-
  Serendipity@k: for each item in the user's top k, relevance (1 when labelled >= rel, else 0)
  times 1 minus its mean similarity to the items of the user's history; the mean over the top k,
  then over users with a history. Similarity as ILD's.
  Reference: Zhang, Séaghdha, Quercia & Jambor (WSDM 2012); Microsoft Recommenders serendipity.
-#}
{% macro similar(m) %}{% call column('serendipity_' ~ (m.level | number)) %}AVG(CASE WHEN relevance >= {{ m.level | number }} THEN unexpectedness ELSE 0 END){% endcall %}{% endmacro %}
{% macro value(m) %}{{ m.step_names.similar }}.serendipity_{{ m.level | key }}{% endmacro %}
