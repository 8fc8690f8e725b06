{#-
  The sampled rankings of the expected exposure measures (inputs/keyed.py): (query_id, sample, doc_id,
  score), several rankings of a query. The family step "expected" reads them.
-#}
sampled_rankings AS (
    {{ samples_sql | trim | indent(4) }}
)
