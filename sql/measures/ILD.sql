{#-
  ILD@k (intra-list diversity): 1 minus the mean similarity of the pairs of distinct items in the
  user's top k, averaged over users with at least two items. Similarity: cosine over the users
  who interacted with both items in the history (cooccurrence, Microsoft Recommenders' default),
  or cosine of the items' feature vectors (features; categories are 0/1 vectors); a pair with no
  common user or feature has similarity 0.
  Reference: Ziegler, McNee, Konstan & Lausen (2005); Microsoft Recommenders diversity.
-#}
{% macro similar(m) %}{% call column('ild') %}1 - AVG(COALESCE(pair.similarity, 0)){% endcall %}{% endmacro %}
{% macro value(m) %}{{ m.step_names.similar }}.ild{% endmacro %}
