{#-
  ILD@k (intra-list diversity): 1 minus the mean similarity of the pairs of distinct items in the
  user's top k, averaged over users with at least two items (one_item=similar: a user with one
  item scores 0, the item as similar as can be to itself, as LensKit's ILS scores it 1).
  Similarity: cosine over the users who interacted with both items in the history (cooccurrence,
  Microsoft Recommenders' default), or cosine of the items' feature vectors (features; categories
  are 0/1 vectors); a pair with no common user or feature has similarity 0.
  Reference: Ziegler, McNee, Konstan & Lausen (2005); Microsoft Recommenders diversity; LensKit ILS.
-#}
{% import '_macros/recommended.sql' as recommended %}
{% macro similar(m) %}{% call column('ild') %}1 - AVG(COALESCE(pair.similarity, 0)){% endcall %}{% endmacro %}
{% macro retrieved(m) %}{% if m.one_item == 'similar' %}{{ recommended.listed_column(m) }}{% endif %}{% endmacro %}
{% macro value(m) %}
{%- if m.one_item == 'similar' -%}
COALESCE({{ m.step_names.similar }}.ild, CASE WHEN listed_{{ recommended.cut(m) }} = 1 THEN 0 END)
{%- else -%}
{{ m.step_names.similar }}.ild
{%- endif -%}
{% endmacro %}
