{#-
  Agreement between two sets of judgments (judging/agree.py): the documents both judged, paired by
  (query_id, doc_id), counted per query and pair of labels; with `binary`, each label thresholded
  (1 where label >= binary, else 0). Rows: (query_id, label_a, label_b, pairs), and for each query
  the documents only one side judged (label_a or label_b NULL, pairs their count).
-#}
{% macro label(x) %}{% if binary is none %}{{ x }}{% else %}CASE WHEN {{ x }} >= {{ binary | number }} THEN 1 WHEN {{ x }} IS NOT NULL THEN 0 END{% endif %}{% endmacro %}
WITH
a AS (SELECT query_id, doc_id, relevance FROM ({{ a_sql }}) AS judged_a),
b AS (SELECT query_id, doc_id, relevance FROM ({{ b_sql }}) AS judged_b),
paired AS (
    SELECT COALESCE(a.query_id, b.query_id) AS query_id,
           {{ label('a.relevance') }} AS label_a,
           {{ label('b.relevance') }} AS label_b
    FROM a
    FULL OUTER JOIN b ON b.query_id = a.query_id AND b.doc_id = a.doc_id
)
SELECT query_id, label_a, label_b, count(*) AS pairs
FROM paired
GROUP BY query_id, label_a, label_b
ORDER BY query_id, label_a NULLS FIRST, label_b NULLS FIRST
