"""The files of sqlrank's dbt package besides the evaluations' macros (dbt.py): the macros every evaluation
shares (column names from the var ``sqlrank_columns``, the generic test ``one_row_per_document``), the models
and the input test of an evaluation, and the starter project of ``sqlrank dbt DIR --init``: dbt_project.yml
with a profile and the vars, profiles.yml for dbt-duckdb with the other adapters' outputs in comments, and the
demo's judgments and results as seeds (trec_eval's test topics 301-303, shipped with sqlrank)."""
from __future__ import annotations

from pathlib import Path

MARKER = "Written by sqlrank dbt"  # the first line of every file the package holds, after a comment's opening

_PROJECT = """name: sqlrank
version: "1.0.0"
config-version: 2
require-dbt-version: ">=1.8.0"
macro-paths: ["macros"]
model-paths: ["models"]
test-paths: ["tests"]
"""

# {% raw %} is not needed here: these are dbt's own macros, written as dbt reads them.
_SHARED = r"""{#- Written by sqlrank dbt: what the package's evaluations share. -#}

{#- A column of an input, as the var sqlrank_columns names it ({qrels: {query_id: topic}, run: {score: sim}});
    by default its own name (query_id, doc_id, relevance, score, rank). The qrels' relevance given as null or ''
    is implicit feedback: no label column, every listed pair relevant (label 1). -#}
{% macro column(input, name) -%}
  {%- set named = var('sqlrank_columns', {}).get(input) or {} -%}
  {%- if input == 'qrels' and name == 'relevance' and name in named and named[name] in (none, '') -%}
    1
  {%- else -%}
    {{- sqlrank.quoted(named.get(name) or name) -}}
  {%- endif -%}
{%- endmacro %}

{#- The model or seed an evaluation reads as one of its inputs (qrels, run, history, ...): the var
    sqlrank_EVALUATION_INPUT, else the var sqlrank_INPUT the project's evaluations share; neither set is a compiler
    error that names both. -#}
{% macro input(evaluation, kind) -%}
  {%- set name = var('sqlrank_' ~ evaluation ~ '_' ~ kind, var('sqlrank_' ~ kind, none)) -%}
  {%- if name is none or name == '' -%}
    {{- exceptions.raise_compiler_error('sqlrank.' ~ evaluation ~ ' reads its ' ~ kind ~ ' from the model or seed '
                                        ~ 'that the var sqlrank_' ~ evaluation ~ '_' ~ kind ~ ' (or sqlrank_' ~ kind
                                        ~ ', shared by the evaluations) names: set one in dbt_project.yml or --vars') -}}
  {%- endif -%}
  {{- return(ref(name)) -}}
{%- endmacro %}

{#- A column name quoted for the adapter. Snowflake folds unquoted names to upper case: a lower-case name is
    quoted as the upper-case one a table created without quotes has. -#}
{% macro quoted(name) -%}
  {%- if name is not string or not modules.re.fullmatch('[^"`\\\\]+', name) -%}
    {{- exceptions.raise_compiler_error('sqlrank: ' ~ name ~ ' is not a column name sqlrank can quote: '
                                        ~ 'no quotes or backslashes in it') -}}
  {%- endif -%}
  {%- if target.type == 'snowflake' and modules.re.fullmatch('[a-z_][a-z0-9_$]*', name) -%}
    {{- adapter.quote(name | upper) -}}
  {%- else -%}
    {{- adapter.quote(name) -}}
  {%- endif -%}
{%- endmacro %}

{#- Fails on a query's document in more than one row, or a row without a query or document id: sqlrank
    evaluates one row per (query, document). On a model or seed of judgments or results:
      data_tests:
        - sqlrank.one_row_per_document:
            query_column: user_id     # default query_id
            document_column: item_id  # default doc_id -#}
{% test one_row_per_document(model, query_column='query_id', document_column='doc_id') %}
{%- set query, document = sqlrank.quoted(query_column), sqlrank.quoted(document_column) %}
SELECT {{ query }} AS query_id, {{ document }} AS doc_id, count(*) AS rows_of_it
FROM {{ model }}
GROUP BY {{ query }}, {{ document }}
HAVING count(*) > 1 OR {{ query }} IS NULL OR {{ document }} IS NULL
{% endtest %}

{#- The rows an evaluation's inputs must not have: a document judged or ranked twice for a query (and its second
    key, where an input has one: qrels_key='subtopic' or 'source', run_key='sample'), a missing id, key,
    label or score, and several runs in the run's model (a run_id column): their documents would be ranked
    together. sqlrank eval checks these before it evaluates; in dbt they are a test. -#}
{% macro input_problems(qrels, run, qrels_key=none, run_key=none) %}
{%- set text = dbt.type_string() %}
{%- for input, relation, value, key in (('qrels', qrels, 'relevance', qrels_key), ('run', run, 'score', run_key)) %}
{%- set query, document = sqlrank.column(input, 'query_id'), sqlrank.column(input, 'doc_id') %}
{%- set keyed = sqlrank.column(input, key) if key else none %}
{%- if not loop.first %}
UNION ALL
{%- endif %}
SELECT '{{ input }}' AS input, CAST({{ query }} AS {{ text }}) AS query_id,
       CAST({{ document }} AS {{ text }}) AS doc_id, count(*) AS rows_of_it
FROM {{ relation }}
GROUP BY {{ query }}, {% if keyed %}{{ keyed }}, {% endif %}{{ document }}
HAVING count(*) > 1 OR {{ query }} IS NULL OR {{ document }} IS NULL OR count({{ sqlrank.column(input, value) }}) < count(*)
{%- if keyed %} OR {{ keyed }} IS NULL{% endif %}
{%- endfor %}
{%- if execute and 'run_id' in (adapter.get_columns_in_relation(run) | map(attribute='name') | map('lower') | list) %}
UNION ALL
SELECT 'run: several runs (run_id); give each its own model' AS input, CAST(NULL AS {{ text }}) AS query_id,
       CAST(NULL AS {{ text }}) AS doc_id, count(DISTINCT {{ sqlrank.quoted('run_id') }}) AS rows_of_it
FROM {{ run }}
HAVING count(DISTINCT {{ sqlrank.quoted('run_id') }}) > 1
{%- endif %}
{% endmacro %}
"""

_STARTER_PROJECT = f"""# {MARKER}: a starter project. In this folder, `dbt build` loads the seeds, tests them and
# builds every evaluation's models; `sqlrank dbt . -m MEASURES --name NAME` adds an evaluation.
{_PROJECT}profile: sqlrank
seed-paths: ["seeds"]
clean-targets: ["target", "logs"]
vars:
  sqlrank_qrels: qrels  # the judgments: a model or seed with query_id, doc_id, relevance
  sqlrank_run: run      # the results: a model or seed with query_id, doc_id, score
  # An evaluation NAME reads sqlrank_NAME_qrels, sqlrank_NAME_run, ... where set, else these shared ones.
  # sqlrank_columns:    # other column names, for example
  #   qrels: {{query_id: topic, doc_id: docno, relevance: label}}   # relevance: null: implicit feedback
  #   run: {{query_id: topic, doc_id: docno, score: sim}}
  # The measures beyond accuracy read more models (their user and item columns named as the run's):
  # sqlrank_history: history              # the history of interactions (Novelty, Serendipity, the catalog)
  # sqlrank_items: items                  # the item catalog (Coverage, Gini, Entropy)
  # sqlrank_item_features: item_features  # item, category (ILD and Serendipity with similarity=features)
  # sqlrank_groups: groups                # document, group (Exposure, ExposureGini, AWRF)
  # sqlrank_targets: targets              # group, share (AWRF with target=file)
"""

_PROFILES = f"""# {MARKER}: where `dbt build` runs this project. dbt-duckdb runs it as it is, into sqlrank.duckdb
# in the folder dbt is started from. For a warehouse: pip install its adapter (dbt-core 1.11 with its
# adapters), fill in its output below and set `target:` to it (or dbt build --target NAME).
sqlrank:
  target: duckdb
  outputs:
    duckdb:
      type: duckdb
      path: sqlrank.duckdb
      threads: 1
    # postgres:
    #   type: postgres
    #   host: localhost
    #   port: 5432
    #   user: "{{{{ env_var('PGUSER') }}}}"
    #   password: "{{{{ env_var('PGPASSWORD') }}}}"
    #   dbname: evaluation
    #   schema: sqlrank
    #   threads: 4
    # redshift:
    #   type: redshift
    #   host: example.abc123.eu-west-1.redshift.amazonaws.com
    #   port: 5439
    #   user: "{{{{ env_var('REDSHIFT_USER') }}}}"
    #   password: "{{{{ env_var('REDSHIFT_PASSWORD') }}}}"
    #   dbname: analytics
    #   schema: sqlrank
    #   threads: 4
    # snowflake:
    #   type: snowflake
    #   account: ab12345.eu-west-1
    #   user: "{{{{ env_var('SNOWFLAKE_USER') }}}}"
    #   authenticator: externalbrowser
    #   role: analyst
    #   warehouse: compute_wh
    #   database: analytics
    #   schema: sqlrank
    #   threads: 4
    # bigquery:
    #   type: bigquery
    #   method: oauth
    #   project: my-project
    #   dataset: sqlrank
    #   threads: 4
    # spark:              # dbt-spark[session]: a Spark session in the dbt process, no server
    #   type: spark
    #   method: session
    #   host: NA
    #   schema: sqlrank
    # databricks:
    #   type: databricks
    #   host: adb-1234567890123456.7.azuredatabricks.net
    #   http_path: /sql/1.0/warehouses/abc123
    #   token: "{{{{ env_var('DATABRICKS_TOKEN') }}}}"
    #   catalog: main
    #   schema: sqlrank
    # trino:
    #   type: trino
    #   method: none
    #   host: localhost
    #   port: 8080
    #   user: analyst
    #   database: hive
    #   schema: sqlrank
    # clickhouse:
    #   type: clickhouse
    #   host: localhost
    #   port: 8123
    #   schema: sqlrank
"""

_SEEDS = f"""# {MARKER}: the demo's judgments and results (trec_eval's test topics 301-303, from
# usnistgov/trec_eval's test suite, MIT-style licence: keep this attribution with the files).
version: 2
seeds:
  - name: qrels
    description: judgments (query_id, doc_id, relevance)
    data_tests:
      - sqlrank.one_row_per_document
  - name: run
    description: results (query_id, doc_id, score)
    data_tests:
      - sqlrank.one_row_per_document
"""

_IGNORE = f"""# {MARKER}: what dbt writes here.
target/
logs/
dbt_packages/
sqlrank.duckdb
sqlrank.duckdb.wal
"""


def package_project() -> str:
    """dbt_project.yml of a package (no profile: the project that installs it has one)."""
    return f"# {MARKER}: ranking evaluations as dbt macros, models and tests.\n{_PROJECT}"


def shared_macros() -> str:
    return _SHARED


def model(name: str, extra: list[str], summary: bool) -> str:
    """models/NAME.sql or NAME_summary.sql: a table of the evaluation on the models the vars name."""
    macro, rows = (f"{name}_summary", "measure, value") if summary else (name, "query_id, measure, value per query")
    arguments = ", ".join([f"sqlrank.input('{name}', 'qrels')", f"sqlrank.input('{name}', 'run')"] +
                          [f"{e}=sqlrank.input('{name}', '{e}')" for e in extra])
    reads = ", ".join(f"sqlrank_{name}_{e} (or sqlrank_{e})" for e in ["qrels", "run", *extra])
    return (f"{{#- {MARKER}: the evaluation {name} ({rows}) on the models or seeds the vars {reads} name. -#}}\n"
            f"{{{{ config(materialized='table') }}}}\n"
            f"{{{{ sqlrank.{macro}({arguments}) }}}}\n")


def inputs_test(name: str, keys: dict[str, str] | None = None) -> str:
    """tests/NAME_inputs.sql: the test of the evaluation's inputs (sqlrank.input_problems); ``keys``: an input's second
    key beside the query ({"qrels": "subtopic"}), under which a document may come again."""
    keyed = "".join(f", {kind}_key='{key}'" for kind, key in (keys or {}).items())
    once = " for a query" + "".join(f" and {key}" for key in (keys or {}).values())
    return (f"{{#- {MARKER}: a test of the inputs of {name}: fails on a document judged or ranked twice{once}, a "
            f"missing id, key, label or score, or several runs in the run's model (a run_id column). -#}}\n"
            f"{{{{ sqlrank.input_problems(sqlrank.input('{name}', 'qrels'), sqlrank.input('{name}', 'run'){keyed}) }}}}\n")


def starter_files() -> dict[str, str]:
    """The files that make a package folder a project dbt builds as it is: {relative path: text}."""
    qrels, run = demo_seeds()
    return {"dbt_project.yml": _STARTER_PROJECT, "profiles.yml": _PROFILES, ".gitignore": _IGNORE,
            "seeds/seeds.yml": _SEEDS, "seeds/qrels.csv": qrels, "seeds/run.csv": run}


def demo_seeds() -> tuple[str, str]:
    """The demo's TREC judgments and run as CSV seeds: (query_id, doc_id, relevance), (query_id, doc_id, score),
    each value as written in the files."""
    here = Path(__file__).resolve().parent.parent
    for folder in (here / "demo", here.parent / "fixtures" / "demo"):  # in a wheel; in a checkout
        if (folder / "qrels.test").is_file():
            break
    else:
        raise RuntimeError(f"sqlrank's demo files are missing (looked in {here / 'demo'} and "
                           f"{here.parent / 'fixtures' / 'demo'})")
    qrels = ["query_id,doc_id,relevance"] + [
        f"{q},{d},{r}" for q, _, d, r in (line.split() for line in (folder / "qrels.test").read_text().splitlines())]
    run = ["query_id,doc_id,score"] + [
        f"{q},{d},{s}" for q, _, d, _, s, _ in (line.split() for line in (folder / "results.test").read_text().splitlines())]
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"
