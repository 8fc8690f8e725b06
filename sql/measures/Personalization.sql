{#-
  Personalization@k: how little a user's top k shares with the other users' top k. For a user u among the n users
  with recommendations, its mean over the other users v of 1 - |top k(u) & top k(v)| / k:
    1 - (sum over the items i of u's top k of (c_i - 1)) / (k (n - 1)),   c_i = how many users have i in their top k
  so that the users' mean is the mean over every pair of users, as PyTorch Geometric's LinkPredPersonalization and
  recmetrics' personalization (1 - the mean cosine of the users' 0/1 vectors of k items) compute it. No value with
  fewer than two users. The counts are the shared step "personalized" (sql/evaluation/personalized.sql): over all
  users (with runs stored together, each run's).
  Reference: Zhou, Kuscsik, Liu, Medo, Wakeling & Zhang (PNAS 2010); PyG, torch_geometric/metrics/link_pred.py.
-#}
{% macro personalized(m) %}{% call column('personalization') %}1 - CAST(SUM(held.holders - 1) AS {{ DOUBLE }}) / NULLIF({{ m.cutoff | number }} * (MAX(users.users) - 1), 0){% endcall %}{% endmacro %}
{% macro value(m) %}{{ m.step_names.personalized }}.personalization{% endmacro %}
