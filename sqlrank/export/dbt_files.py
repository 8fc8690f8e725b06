"""The files of sqlrank's dbt package besides the evaluations' macros (dbt.py): the macros every evaluation
shares (column names from the var ``sqlrank_columns``, the generic test ``one_row_per_document``), the models
and the input test of an evaluation, and the starter project of ``sqlrank dbt DIR --init``: dbt_project.yml
with a profile and the vars, profiles.yml for dbt-duckdb with the other adapters' outputs in comments, and the
demo's judgments and results as seeds (trec_eval's test topics 301-303, shipped with sqlrank)."""
from __future__ import annotations

from pathlib import Path

DEFAULT = "evaluation"  # the evaluation of no --name: it reads the shared vars sqlrank_qrels and sqlrank_run
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

{#- The relation an evaluation reads as one of its inputs (qrels, run, history, ...): the var
    sqlrank_EVALUATION_INPUT, else, where `shared`, the var sqlrank_INPUT the project's evaluations share; neither
    set is a compiler error that names the var. A var names a model or seed (`judgments`), a table by its schema
    (`raw.judgments`, `warehouse.raw.judgments`: read as it is, no node of dbt's), or is a mapping: a source
    ({source: raw, table: runs}) or a table ({schema: raw, table: runs}, database too). -#}
{% macro input(evaluation, kind, shared=true) -%}
  {%- set own = 'sqlrank_' ~ evaluation ~ '_' ~ kind -%}
  {%- set name = var(own, var('sqlrank_' ~ kind, none) if shared else none) -%}
  {%- if name is none or name == '' -%}
    {%- if shared -%}
      {{- exceptions.raise_compiler_error('sqlrank.' ~ evaluation ~ ' reads its ' ~ kind ~ ' from the model, seed, '
                                          ~ 'source or table that the var ' ~ own ~ ' (or sqlrank_' ~ kind ~ ', shared '
                                          ~ 'by the evaluations) names: set one in dbt_project.yml or --vars') -}}
    {%- else -%}
      {{- exceptions.raise_compiler_error('sqlrank.' ~ evaluation ~ ' reads its ' ~ kind ~ ' from the model, seed, '
                                          ~ 'source or table that the var ' ~ own ~ ' names, and it is not set: set it '
                                          ~ 'in dbt_project.yml or --vars (an evaluation of its own name never reads '
                                          ~ 'the shared sqlrank_' ~ kind ~ ')') -}}
    {%- endif -%}
  {%- endif -%}
  {{- return(sqlrank.relation(name, own)) -}}
{%- endmacro %}

{#- A var's value as a relation: a model or seed's name (ref), [database.]schema.table, {source:, table:} or
    {table:, schema:, database:}. -#}
{% macro relation(name, var_name) -%}
  {%- if name is mapping and 'source' in name and 'table' in name -%}
    {{- return(source(name['source'], name['table'])) -}}
  {%- elif name is mapping and 'table' in name -%}
    {{- return(api.Relation.create(database=name.get('database', target.database), schema=name.get('schema', target.schema),
                                   identifier=name['table'])) -}}
  {%- elif name is string and '.' in name -%}
    {%- set parts = name.split('.') -%}
    {%- if parts | length > 3 or '' in parts -%}
      {{- exceptions.raise_compiler_error('sqlrank: the var ' ~ var_name ~ ' is ' ~ name ~ ': give a model or seed, '
                                          ~ 'schema.table or database.schema.table') -}}
    {%- endif -%}
    {{- return(api.Relation.create(database=parts[-3] if parts | length == 3 else target.database,
                                   schema=parts[-2], identifier=parts[-1])) -}}
  {%- elif name is string -%}
    {{- return(ref(name)) -}}
  {%- endif -%}
  {{- exceptions.raise_compiler_error('sqlrank: the var ' ~ var_name ~ ' must name a model or seed, a table '
                                      ~ '(schema.table), {source: ..., table: ...} or {table: ..., schema: ...}') -}}
{%- endmacro %}

{#- Whether the run holds runs stored together: a run_id column (or the column sqlrank_columns names for run_id),
    evaluated per run (a run without it is one run: the input test fails where its documents repeat). Read when dbt
    runs (not when it parses). -#}
{% macro stored_runs(run) -%}
  {%- set named = (var('sqlrank_columns', {}).get('run') or {}).get('run_id') -%}
  {%- if not execute -%}
    {{- return(false) -}}
  {%- endif -%}
  {%- set columns = adapter.get_columns_in_relation(run) | map(attribute='name') | map('lower') | list -%}
  {{- return((named or 'run_id') | lower in columns) -}}
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

{#- Fails on a query's document in more than one row (of one run, where the model has a run_id column: runs stored
    together), or a row without a query or document id: sqlrank evaluates one row per (query, document) of a run. On
    a model or seed of judgments or results:
      data_tests:
        - sqlrank.one_row_per_document:
            query_column: user_id     # default query_id
            document_column: item_id  # default doc_id
            run_column: system        # default run_id, where the model has it -#}
{% test one_row_per_document(model, query_column='query_id', document_column='doc_id', run_column='run_id') %}
{%- set query, document = sqlrank.quoted(query_column), sqlrank.quoted(document_column) %}
{%- set columns = adapter.get_columns_in_relation(model) | map(attribute='name') | map('lower') | list if execute else [] %}
{%- set run = sqlrank.quoted(run_column) if run_column and run_column | lower in columns else none %}
SELECT {{ query }} AS query_id, {{ document }} AS doc_id, count(*) AS rows_of_it
FROM {{ model }}
GROUP BY {% if run %}{{ run }}, {% endif %}{{ query }}, {{ document }}
HAVING count(*) > 1 OR {{ query }} IS NULL OR {{ document }} IS NULL
{% endtest %}

{#- Each run of an evaluation's per-query model (runs stored together) against the BASELINE run, per measure, over the
    queries every run has a value for (as sqlrank compare pairs them): the differences' mean, standard deviation, t
    statistic and degrees of freedom. A model of one run, or a baseline that is none of its runs, stops the build. -#}
{% macro comparison(per_query, baseline) %}
{%- if baseline is not string or not modules.re.fullmatch("[^'\"`\\\\]+", baseline) -%}
  {{- exceptions.raise_compiler_error('sqlrank: the baseline ' ~ baseline ~ ' must be a run_id (text without quotes or '
                                      ~ 'backslashes)') -}}
{%- endif %}
{%- if execute %}
  {%- set columns = adapter.get_columns_in_relation(per_query) | map(attribute='name') | map('lower') | list %}
  {%- if 'run_id' not in columns %}
    {{- exceptions.raise_compiler_error('sqlrank: ' ~ per_query ~ ' holds one run (no run_id column): a comparison with '
                                        ~ 'the baseline ' ~ baseline ~ ' needs runs stored together in the run') -}}
  {%- endif %}
  {%- set runs = run_query('SELECT DISTINCT run_id FROM ' ~ per_query).columns[0].values() | map('string') | list %}
  {%- if baseline not in runs %}
    {{- exceptions.raise_compiler_error('sqlrank: the baseline ' ~ baseline ~ ' is none of the runs of ' ~ per_query
                                        ~ ' (' ~ runs | sort | join(', ') ~ ')') -}}
  {%- endif %}
{%- endif %}
WITH per_query AS (
    SELECT run_id, query_id, measure, value FROM {{ per_query }} WHERE value IS NOT NULL
), runs AS (
    SELECT COUNT(DISTINCT run_id) AS number FROM per_query
), valued AS (
    SELECT query_id, measure FROM per_query GROUP BY query_id, measure
    HAVING COUNT(DISTINCT run_id) = (SELECT number FROM runs)
), paired AS (
    SELECT other.run_id AS run_id, other.measure AS measure, other.value - base.value AS difference
    FROM per_query AS other
    JOIN per_query AS base ON base.query_id = other.query_id AND base.measure = other.measure AND base.run_id = '{{ baseline }}'
    JOIN valued ON valued.query_id = other.query_id AND valued.measure = other.measure
    WHERE other.run_id <> '{{ baseline }}'
)
SELECT run_id, '{{ baseline }}' AS baseline, measure, COUNT(*) AS queries,
       AVG(difference) AS mean_difference, STDDEV_SAMP(difference) AS sd_difference,
       AVG(difference) / NULLIF(STDDEV_SAMP(difference) / SQRT(COUNT(*)), 0) AS t_statistic,
       COUNT(*) - 1 AS degrees_of_freedom
FROM paired
GROUP BY run_id, measure
{% endmacro %}

{#- The rows an evaluation's inputs must not have: a document judged or ranked twice for a query (and its second
    key, where an input has one: qrels_key='subtopic' or 'source', run_key='sample'; and its run, where the run holds
    runs stored together), a missing id, key, label or score. sqlrank eval checks these before it evaluates; in dbt
    they are a test. -#}
{% macro input_problems(qrels, run, qrels_key=none, run_key=none) %}
{%- set text = dbt.type_string() %}
{%- set run_id = sqlrank.column('run', 'run_id') if sqlrank.stored_runs(run) else none %}
{%- for input, relation, value, key in (('qrels', qrels, 'relevance', qrels_key), ('run', run, 'score', run_key)) %}
{%- set query, document = sqlrank.column(input, 'query_id'), sqlrank.column(input, 'doc_id') %}
{%- set keys = ([sqlrank.column(input, key)] if key else []) + ([run_id] if input == 'run' and run_id else []) %}
{%- if not loop.first %}
UNION ALL
{%- endif %}
SELECT '{{ input }}' AS input, CAST({{ query }} AS {{ text }}) AS query_id,
       CAST({{ document }} AS {{ text }}) AS doc_id, count(*) AS rows_of_it
FROM {{ relation }}
GROUP BY {{ query }}, {% for keyed in keys %}{{ keyed }}, {% endfor %}{{ document }}
HAVING count(*) > 1 OR {{ query }} IS NULL OR {{ document }} IS NULL OR count({{ sqlrank.column(input, value) }}) < count(*)
{%- for keyed in keys %} OR {{ keyed }} IS NULL{% endfor %}
{%- endfor %}
{% endmacro %}
"""

_STARTER_PROJECT = f"""# {MARKER}: a starter project. In this folder, `dbt build` {{builds}}
# builds every evaluation's models; `sqlrank dbt . -m MEASURES --name NAME` adds an evaluation.
{_PROJECT}profile: sqlrank
seed-paths: ["seeds"]
clean-targets: ["target", "logs"]
vars:
{{inputs}}  # An evaluation NAME reads sqlrank_NAME_run and, where set, sqlrank_NAME_qrels, sqlrank_NAME_history, ...
  # (else the shared ones); a var names a model or seed, a table (schema.table) or a source ({{{{source: raw, table: runs}}}}).
  # A run with a run_id column holds runs stored together: each is evaluated, and compared with the baseline var:
  # sqlrank_baseline: bm25  # the run the models NAME_comparison compare the others with (t statistics)
  # sqlrank_columns:    # other column names, for example
  #   qrels: {{{{query_id: topic, doc_id: docno, relevance: label}}}}   # relevance: null: implicit feedback
  #   run: {{{{query_id: topic, doc_id: docno, score: sim, run_id: system}}}}
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


def _inputs(name: str, extra: list[str] = ()) -> list[str]:
    """The arguments reading an evaluation's inputs: qrels, run and EXTRA, from the vars (sqlrank.input); the run of
    an evaluation of its own name from its own var only."""
    shared = "" if name == DEFAULT else ", shared=false"
    return ([f"sqlrank.input('{name}', 'qrels')", f"sqlrank.input('{name}', 'run'{shared})"]
            + [f"{e}=sqlrank.input('{name}', '{e}')" for e in extra])


def model(name: str, extra: list[str], summary: bool) -> str:
    """models/NAME.sql or NAME_summary.sql: a table of the evaluation on the models the vars name."""
    macro, rows = (f"{name}_summary", "measure, value") if summary else (name, "query_id, measure, value per query")
    run = f"sqlrank_{name}_run" + (" (or sqlrank_run)" if name == DEFAULT else "")
    reads = ", ".join([f"sqlrank_{name}_qrels (or sqlrank_qrels)", run]
                      + [f"sqlrank_{name}_{e} (or sqlrank_{e})" for e in extra])
    return (f"{{#- {MARKER}: the evaluation {name} ({rows}; run_id first for runs stored together) on the inputs the "
            f"vars {reads} name. -#}}\n"
            f"{{{{ config(materialized='table') }}}}\n"
            f"{{{{ sqlrank.{macro}({', '.join(_inputs(name, extra))}) }}}}\n")


def comparison(name: str) -> str:
    """models/NAME_comparison.sql: each run of runs stored together against the baseline run (the var
    sqlrank_NAME_baseline, else sqlrank_baseline), per measure: the per-query differences over the queries every run
    has a value for (as sqlrank compare pairs them), their mean, standard deviation, t statistic and degrees of
    freedom. Built only where a baseline is set."""
    return (f"{{#- {MARKER}: the runs of the evaluation {name} against the baseline run the var sqlrank_{name}_baseline "
            f"(or sqlrank_baseline) names: run_id, baseline, measure, queries, mean_difference, sd_difference, "
            f"t_statistic, degrees_of_freedom (sqlrank compare --engine ... --paired-t reads it for p-values). -#}}\n"
            f"{{%- set baseline = var('sqlrank_{name}_baseline', var('sqlrank_baseline', none)) %}}\n"
            f"{{{{ config(materialized='table', enabled=baseline is not none) }}}}\n"
            f"{{% if baseline is not none %}}{{{{ sqlrank.comparison(ref('{name}'), baseline) }}}}{{% endif %}}\n")


def inputs_test(name: str, keys: dict[str, str] | None = None) -> str:
    """tests/NAME_inputs.sql: the test of the evaluation's inputs (sqlrank.input_problems); ``keys``: an input's second
    key beside the query ({"qrels": "subtopic"}), under which a document may come again."""
    keyed = "".join(f", {kind}_key='{key}'" for kind, key in (keys or {}).items())
    once = " for a query" + "".join(f" and {key}" for key in (keys or {}).values())
    return (f"{{#- {MARKER}: a test of the inputs of {name}: fails on a document judged or ranked twice{once} (and "
            f"run, for runs stored together), a missing id, key, label or score. -#}}\n"
            f"{{{{ sqlrank.input_problems({', '.join(_inputs(name))}{keyed}) }}}}\n")


def starter_files(evaluations: list[str], demo: bool) -> dict[str, str]:
    """The files that make a package folder a project dbt builds as it is: {relative path: text}. With ``demo``,
    the demo's judgments and results as seeds, read by EVALUATIONS; without, the vars to set in comments."""
    named = [e for e in evaluations if e != DEFAULT]
    if demo:
        inputs = ("  sqlrank_qrels: qrels  # the judgments: a model or seed with query_id, doc_id, relevance\n"
                  "  sqlrank_run: run      # the results: a model or seed with query_id, doc_id, score\n"
                  + "".join(f"  sqlrank_{e}_run: run  # the run the evaluation {e} reads\n" for e in named))
    else:
        inputs = ("  # Set these to your judgments and results (models, seeds, tables or sources):\n"
                  "  # sqlrank_qrels: judgments  # query_id, doc_id, relevance\n"
                  + ("  # sqlrank_run: results     # query_id, doc_id, score (read by the evaluation evaluation)\n"
                     if DEFAULT in evaluations else "")
                  + "".join(f"  # sqlrank_{e}_run: results  # the run the evaluation {e} reads\n" for e in named))
    builds = "loads the seeds, tests them and" if demo else "tests the inputs the vars below name and"
    files = {"dbt_project.yml": _STARTER_PROJECT.format(builds=builds, inputs=inputs), "profiles.yml": _PROFILES,
             ".gitignore": _IGNORE}
    if demo:
        qrels, run = demo_seeds()
        files |= {"seeds/seeds.yml": _SEEDS, "seeds/qrels.csv": qrels, "seeds/run.csv": run}
    return files


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
