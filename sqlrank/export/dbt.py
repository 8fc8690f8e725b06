"""``sqlrank dbt DIR``: ranking evaluations as a dbt package, run by ``dbt run`` in the warehouse.

The package (project name ``sqlrank``) holds, per evaluation NAME:

- ``macros/NAME.sql``: ``sqlrank.NAME(qrels, run)``, the evaluation's statement per query
  (query_id, measure, value) with the two relations as inputs, dispatched per adapter
  (``duckdb__NAME``, ``postgres__NAME``: sqlrank's statement rendered in that dialect; any other
  adapter stops with an error naming the ones there are);
- ``models/NAME.sql``: a table model calling it on ``ref(var('sqlrank_qrels'))`` and
  ``ref(var('sqlrank_run'))``, the project's models or seeds of judgments (query_id, doc_id,
  relevance) and results (query_id, doc_id, score);
- ``tests/NAME_inputs.sql``: a test that fails on a document judged or ranked twice for a query,
  on a missing id, label or score, or on several runs in the run's model (a run_id column, whose
  runs' documents the statement would rank together): sqlrank eval checks these before evaluating
  (and evaluates runs stored together run by run); in dbt they are tests.

Writing an evaluation again replaces its files; other evaluations stay. Every file starts with a
line naming sqlrank dbt (``MARKER``): a file without it is the user's, and is never replaced
(``force=True``, ``--force``, replaces it).
"""
from __future__ import annotations

import os
import re
from typing import Any

from ..errors import InputError, OptionError
from ..inputs.columns import column_mapping
from ..measures.conventions import resolve_conventions
from ..measures.resolve import resolve_measures
from ..rendering.dialects import DIALECTS, Dialect
from ..rendering.sqltext import call_macro
from ..rendering.statement import render_evaluation
from ..results.writer import starts_with, write_file

ADAPTERS = {"duckdb": "duckdb", "postgres": "postgres"}  # dbt adapter -> sqlrank dialect
_QRELS, _RUN = "__sqlrank_qrels_relation__", "__sqlrank_run_relation__"
MARKER = "Written by sqlrank dbt"  # the first line of every file the package holds, after a comment's opening
PROJECT = f"""# {MARKER}: ranking evaluations as dbt macros, models and tests.
name: sqlrank
version: "1.0.0"
config-version: 2
require-dbt-version: ">=1.7.0"
macro-paths: ["macros"]
model-paths: ["models"]
test-paths: ["tests"]
"""


def statement(measures: Any, dialect: Dialect, rank: bool, **conventions: Any) -> str:
    """The per-query statement for relations standing in as placeholders, in a dialect."""
    resolved = resolve_conventions(**conventions)
    explicit = {k for k, v in conventions.items() if v is not None}
    resolved_measures = resolve_measures(measures, resolved, conventions.get("preset"), explicit)
    qrels = call_macro(dialect, "_macros/inputs.sql", "tabular", _QRELS, column_mapping("qrels", None), "qrels", "typed")
    run_columns = column_mapping("run", None) | ({"rank": "rank"} if rank else {})
    run = call_macro(dialect, "_macros/inputs.sql", "tabular", _RUN, run_columns, "run", "typed")
    return render_evaluation(qrels.strip(), run.strip(), resolved_measures, resolved, "per_query", dialect=dialect)


def _jinja(sql: str) -> str:
    """The SQL as the body of a dbt macro: literal text in raw blocks, the relations as variables."""
    body = "{% raw %}" + sql.strip().replace(_QRELS, "{% endraw %}{{ qrels }}{% raw %}").replace(
        _RUN, "{% endraw %}{{ run }}{% raw %}") + "{% endraw %}"
    return body.replace("{% raw %}{% endraw %}", "")


def write_package(folder: str, measures: Any, name: str = "evaluation", force: bool = False,
                  **conventions: Any) -> list[str]:
    """Write (or add to) the dbt package in ``folder``; returns the files written. A file there that
    sqlrank did not write is refused, named, unless ``force``."""
    if not isinstance(name, str) or not re.fullmatch(r"[a-z_][a-z0-9_]*", name) or name.startswith("sqlrank"):
        raise OptionError(f"--name {name!r} must be a lower-case dbt name (letters, digits, _), not starting "
                          f"with sqlrank")
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise InputError(f"{folder}: is a file; give a folder for the dbt package")
    relative = ["dbt_project.yml", os.path.join("macros", f"{name}.sql"), os.path.join("models", f"{name}.sql"),
                os.path.join("tests", f"{name}_inputs.sql")]
    paths = [os.path.join(folder, path) for path in relative]
    _refuse_foreign_files(folder, [path for path in paths if not force and os.path.lexists(path)
                                   and not starts_with(path, _marker_line(path))])
    rank = conventions.get("tie_break") == "input_rank"
    bodies = {adapter: statement(measures, DIALECTS[dialect], rank, **conventions) for adapter, dialect in ADAPTERS.items()}
    macro = [f"{{#- {MARKER}: sqlrank.{name}(qrels, run), query_id, measure, value per query. -#}}",
             f"{{% macro {name}(qrels, run) %}}",
             f"  {{{{ return(adapter.dispatch('{name}', 'sqlrank')(qrels, run)) }}}}",
             "{% endmacro %}", "",
             f"{{% macro default__{name}(qrels, run) %}}",
             f"  {{{{ exceptions.raise_compiler_error('sqlrank.{name} has SQL for the adapters "
             f"{', '.join(ADAPTERS)}, not ' ~ adapter.type()) }}}}",
             "{% endmacro %}"]
    for adapter, body in bodies.items():
        macro += ["", f"{{% macro {adapter}__{name}(qrels, run) %}}", _jinja(body), "{% endmacro %}"]
    model = (f"{{#- {MARKER}: the evaluation {name}. Set the vars sqlrank_qrels and sqlrank_run to the "
             f"judgments' and the results' models. -#}}\n"
             f"{{{{ config(materialized='table') }}}}\n"
             f"{{{{ sqlrank.{name}(ref(var('sqlrank_qrels')), ref(var('sqlrank_run'))) }}}}\n")
    inputs_test = (f"{{#- {MARKER}: a test of the inputs of {name}.\n"
                   "    Fails on a document judged or ranked twice for a query, a missing id, label or score, or on\n"
                   "    several runs in the run's model (a run_id column): their documents would be ranked together. -#}\n"
                   "SELECT 'qrels' AS input, query_id, doc_id, count(*) AS rows_of_it\n"
                   "FROM {{ ref(var('sqlrank_qrels')) }}\n"
                   "GROUP BY query_id, doc_id\n"
                   "HAVING count(*) > 1 OR query_id IS NULL OR doc_id IS NULL OR count(relevance) < count(*)\n"
                   "UNION ALL\n"
                   "SELECT 'run' AS input, query_id, doc_id, count(*) AS rows_of_it\n"
                   "FROM {{ ref(var('sqlrank_run')) }}\n"
                   "GROUP BY query_id, doc_id\n"
                   "HAVING count(*) > 1 OR query_id IS NULL OR doc_id IS NULL OR count(score) < count(*)\n"
                   "{%- if execute %}\n"
                   "{%- set run_columns = adapter.get_columns_in_relation(ref(var('sqlrank_run'))) | map(attribute='name')"
                   " | map('lower') | list %}\n"
                   "{%- if 'run_id' in run_columns %}\n"
                   "UNION ALL\n"
                   "SELECT 'run: several runs (run_id); give each its own model' AS input, NULL AS query_id, "
                   "NULL AS doc_id, count(DISTINCT run_id) AS rows_of_it\n"
                   "FROM {{ ref(var('sqlrank_run')) }}\n"
                   "HAVING count(DISTINCT run_id) > 1\n"
                   "{%- endif %}\n"
                   "{%- endif %}\n")
    for path, text in zip(paths, (PROJECT, "\n".join(macro) + "\n", model, inputs_test)):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_file(path, text)
    return paths


def _refuse_foreign_files(folder: str, foreign: list[str]) -> None:
    """Stop, nothing written, when a file the package would replace was not written by sqlrank dbt."""
    if not foreign:
        return
    project = os.path.join(folder, "dbt_project.yml")
    if project in foreign:
        raise InputError(f"{folder}: holds another dbt project ({project} was not written by sqlrank dbt); give an "
                         f"empty folder or sqlrank's package (--force replaces the files sqlrank writes)")
    it, was = ("it", "was") if len(foreign) == 1 else ("them", "were")
    raise InputError(f"{folder}: {', '.join(foreign)} {was} not written by sqlrank dbt; nothing was written (move {it} "
                     f"away, give another --name, or --force to replace {it})")


def _marker_line(path: str) -> str:
    """The opening every file of the package has: YAML's comment, or Jinja's."""
    return ("# " if path.endswith(".yml") else "{#- ") + MARKER
