"""``sqlrank dbt DIR``: ranking evaluations as a dbt package, run by ``dbt build`` in the warehouse.

The package (project name ``sqlrank``) holds, per evaluation NAME:

- ``macros/NAME.sql``: ``sqlrank.NAME(qrels, run, ...)``, the evaluation's statement per query
  (query_id, measure, value), and ``sqlrank.NAME_summary(qrels, run, ...)``, its summary (measure, value),
  with the relations as inputs, dispatched per adapter: sqlrank's statement rendered in the adapter's
  dialect (ADAPTERS), of one run, or per run (run_id first) where the run holds runs stored together (a run_id
  column, ``sqlrank.stored_runs``), or, where the dialect cannot compute a measure, a compiler error that says why;
- ``models/NAME.sql`` and ``models/NAME_summary.sql``: table models calling them on the relations the vars
  ``sqlrank_NAME_qrels`` (else ``sqlrank_qrels``) and ``sqlrank_NAME_run`` name (the default evaluation: else
  ``sqlrank_run``; and so the extra inputs the measures read: ``history``, ``items``, ``item_features``, ``groups``,
  ``targets``); a var names a model, seed, table or source, and one unset is a compiler error naming it
  (``sqlrank.input``); ``models/NAME_comparison.sql``: each run against the baseline run (the var
  ``sqlrank_baseline``): the paired differences' mean, standard deviation, t statistic and degrees of freedom;
- ``tests/NAME_inputs.sql``: a test of the inputs (a document judged or ranked twice for a query of a run, a missing
  id, label or score), which sqlrank eval checks before evaluating.

and, shared by the evaluations, ``macros/sqlrank.sql`` (dbt_files.py): the column names of the vars
``sqlrank_columns`` and the generic test ``sqlrank.one_row_per_document``. ``init=True`` (``--init``) makes
the folder a starter project, ``demo=True`` (``--demo``) one that ``dbt build`` runs as it is, with the demo's
seeds (dbt_files.py).

Writing an evaluation again replaces its files; other evaluations stay. Every file starts with a line
naming sqlrank dbt (``MARKER``) and the SHA-256 of the lines below it: a file without the line, or whose
lines no longer have that hash (profiles.yml with a password filled in), is the user's, and is never
replaced (``force=True``, ``--force``, replaces it). An evaluation's name never takes another node's:
``NAME``, ``NAME_summary`` and ``NAME_comparison`` are neither a seed, a model or another evaluation's model or macro
(the error offers a free name).
"""
from __future__ import annotations

import glob
import hashlib
import os
import re
from typing import Any

from ..errors import InputError, MeasureError, OptionError
from ..evaluation import render
from ..measures.conventions import resolve_conventions
from ..measures.resolve import needed_inputs, resolve_measures
from ..results.writer import starts_with, write_file
from .dbt_files import DEFAULT, MARKER, comparison, inputs_test, model, package_project, shared_macros, starter_files

# dbt adapter -> sqlrank dialect (dbt-databricks looks for databricks__ macros, then spark__)
ADAPTERS = {"duckdb": "duckdb", "postgres": "postgres", "redshift": "redshift", "snowflake": "snowflake",
            "bigquery": "bigquery", "spark": "spark", "databricks": "databricks", "trino": "trino",
            "clickhouse": "clickhouse"}
EXTRA = ("history", "items", "item_features", "groups", "targets")  # the extra inputs, as macro arguments
_PLACEHOLDER = re.compile(r"([\"`]?)__Sqlrank_(relation|column)_([a-z_]+?)(?:__([a-z_]+))?__\1")
_COLUMNS = {"qrels": ("query_id", "doc_id", "relevance"), "run": ("query_id", "doc_id", "score")}


def relation(name: str) -> str:
    """The stand-in of an input relation in a rendered statement (a name no dialect folds or quotes otherwise)."""
    return f"__Sqlrank_relation_{name}__"


def _column(kind: str, name: str) -> str:
    return f"__Sqlrank_column_{kind}__{name}__"


def _resolved(measures: Any, conventions: dict) -> list:
    return resolve_measures(measures, resolve_conventions(conventions.get("preset"), **{
        k: v for k, v in conventions.items() if k != "preset"}), conventions.get("preset"),
        {k for k, v in conventions.items() if v is not None})


def extra_inputs(measures: Any, conventions: dict) -> list[str]:
    """The extra inputs an evaluation's macro takes: those its measures read, the catalog as the items."""
    needs = needed_inputs(_resolved(measures, conventions))
    return [name for name in EXTRA if name in needs or (name == "items" and "catalog" in needs)]


def keys(measures: Any, conventions: dict, merged: bool) -> dict[str, str]:
    """The second key of an input beside its query, where the evaluation reads one: the qrels' subtopic (the diversity
    measures) or source (judgments of several sources merged: ``merged``), the run's sample (expected exposure)."""
    resolved = _resolved(measures, conventions)
    found = {"qrels": "subtopic"} if any(m.spec.intent_aware for m in resolved) else {"qrels": "source"} if merged \
        else {}
    return found | ({"run": "sample"} if any(m.spec.sampled for m in resolved) else {})


def statement(measures: Any, dialect: str, per_query: bool, extra: list[str], label_type: str | None = None,
              prefer: str | None = None, combine: str | None = None, keyed: dict[str, str] | None = None,
              stored_runs: bool = False, **conventions: Any) -> str:
    """The evaluation's statement in a dialect, its relations and the qrels' and run's columns as stand-ins;
    ``keyed``: the inputs' second keys (keys()); ``stored_runs``: the run a table of runs stored together (run_id),
    evaluated per run."""
    columns = {kind: {name: _column(kind, name) for name in names} for kind, names in _COLUMNS.items()}
    if stored_runs:
        columns["run"]["run_id"] = _column("run", "run_id")
    if conventions.get("tie_break") == "input_rank":
        columns["run"]["rank"] = _column("run", "rank")
    for kind, key in (keyed or {}).items():
        columns[kind][key] = _column(kind, key)
    return render(relation("qrels"), relation("run"), measures, per_query, dialect, qrels_columns=columns["qrels"],
                  run_columns=columns["run"], label_type=label_type, **{name: relation(name) for name in extra},
                  declared=True, prefer=prefer, combine=combine, **conventions)


def macro_body(sql: str) -> str:
    """The statement as the body of a dbt macro: literal text in raw blocks, the relations the macro's arguments
    and the columns ``sqlrank.column(input, name)`` (the names the var sqlrank_columns gives)."""
    def jinja(match: re.Match) -> str:
        what, kind, name = match.group(2), match.group(3), match.group(4)
        return "{% endraw %}" + ("{{ " + kind + " }}" if what == "relation" else
                                 f"{{{{ sqlrank.column('{kind}', '{name}') }}}}") + "{% raw %}"
    body = "{% raw %}" + _PLACEHOLDER.sub(jinja, sql.strip()) + "{% endraw %}"
    return body.replace("{% raw %}{% endraw %}", "")


def macros(name: str, measures: Any, extra: list[str], label_type: str | None, prefer: str | None = None,
           combine: str | None = None, keyed: dict[str, str] | None = None, **conventions: Any) -> str:
    """macros/NAME.sql: NAME and NAME_summary, dispatched per adapter; ``keyed``: the inputs' second keys."""
    arguments = ", ".join(["qrels", "run"] + [f"{e}=none" for e in extra])
    passed = ", ".join(["qrels", "run"] + extra)
    text = [f"{{#- {MARKER}: sqlrank.{name}({arguments}) gives query_id, measure, value per query; "
            f"sqlrank.{name}_summary the same arguments' measure, value. -#}}"]
    for macro, per_query in ((name, True), (f"{name}_summary", False)):
        text += ["", f"{{% macro {macro}({arguments}) %}}",
                 f"  {{{{ return(adapter.dispatch('{macro}', 'sqlrank')({passed})) }}}}", "{% endmacro %}", "",
                 f"{{% macro default__{macro}({arguments}) %}}",
                 f"  {{{{ exceptions.raise_compiler_error('sqlrank.{macro} has SQL for the adapters "
                 f"{', '.join(ADAPTERS)}, not ' ~ adapter.type()) }}}}", "{% endmacro %}"]
        for adapter, dialect in ADAPTERS.items():
            one, stored = (_body(macro, adapter, measures, dialect, per_query, extra, label_type, prefer,
                                 combine, keyed, stored_runs, **conventions) for stored_runs in (False, True))
            text += ["", f"{{% macro {adapter}__{macro}({arguments}) %}}", "{%- if sqlrank.stored_runs(run) %}", stored,
                     "{%- else %}", one, "{%- endif %}", "{% endmacro %}"]
    return "\n".join(text) + "\n"


def _body(macro: str, adapter: str, measures: Any, dialect: str, per_query: bool, extra: list[str],
          label_type: str | None, prefer: str | None, combine: str | None, keyed: dict[str, str] | None,
          stored_runs: bool, **conventions: Any) -> str:
    """A dispatched macro's body: the statement in the adapter's dialect (of a run, or of runs stored together), or
    where the dialect cannot compute a measure (or not per run), a compiler error that says why when the model is
    built (DuckDB's error for one run: what no dialect can do)."""
    try:
        return macro_body(statement(measures, dialect, per_query, extra, label_type, prefer, combine, keyed,
                                    stored_runs, **conventions))
    except (MeasureError, OptionError) as exc:
        if dialect == "duckdb" and not stored_runs or not isinstance(exc, MeasureError) and not stored_runs:
            raise
        reason = str(exc).replace("\\", "\\\\").replace("'", "\\'")
        return f"  {{{{ exceptions.raise_compiler_error('sqlrank.{macro} on {adapter}: {reason}') }}}}"


def write_package(folder: str, measures: Any, name: str = DEFAULT, force: bool = False, init: bool = False,
                  label_type: str | None = None, prefer: str | None = None, combine: str | None = None,
                  demo: bool = False, **conventions: Any) -> list[str]:
    """Write (or add to) the dbt package in ``folder``; returns the files written. ``init``: the folder becomes a
    starter project (dbt_project.yml with a profile and the vars, profiles.yml); ``demo`` (``init`` too): with the
    demo's judgments and results as seeds (kept once written: a project made with them stays so). A file there
    that sqlrank did not write is refused, named, unless ``force``."""
    if not isinstance(name, str) or not re.fullmatch(r"[a-z_][a-z0-9_]*", name) or name.startswith("sqlrank"):
        raise OptionError(f"--name {name!r} must be a lower-case dbt name (letters, digits, _), not starting "
                          f"with sqlrank")
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise InputError(f"{folder}: is a file; give a folder for the dbt package")
    extra, keyed = extra_inputs(measures, conventions), keys(measures, conventions, bool(prefer or combine))
    files = {os.path.join("macros", "sqlrank.sql"): shared_macros(),
             os.path.join("macros", f"{name}.sql"): macros(name, measures, extra, label_type, prefer, combine, keyed,
                                                           **conventions),
             os.path.join("models", f"{name}.sql"): model(name, extra, summary=False),
             os.path.join("models", f"{name}_summary.sql"): model(name, extra, summary=True),
             os.path.join("models", f"{name}_comparison.sql"): comparison(name),
             os.path.join("tests", f"{name}_inputs.sql"): inputs_test(name, keyed)}
    project = os.path.join(folder, "dbt_project.yml")
    seeds = os.path.join(folder, "seeds", "seeds.yml")
    demo = demo or init and os.path.lexists(seeds) and ours(seeds)
    if init or demo:  # the demo's seeds are written where no seed of that name is (a seed is the user's data)
        named = sorted(set(evaluations(folder)) | {name})
        files.update({path: text for path, text in starter_files(named, demo).items()
                      if not (path.endswith(".csv") and os.path.lexists(os.path.join(folder, path)))})
    elif not os.path.lexists(project):
        files["dbt_project.yml"] = package_project()
    _refuse_taken_names(folder, name, demo)
    paths = {os.path.join(folder, path): stamped(text) for path, text in files.items()}
    _refuse_foreign_files(folder, [path for path in paths if not force and os.path.lexists(path) and not ours(path)])
    if not (init or demo) and not force and os.path.lexists(project) and not starts_with(project, _marker_line(project)):
        _refuse_foreign_files(folder, [project])
    for path, text in paths.items():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_file(path, text)
    return list(paths)


def stamped(text: str) -> str:
    """TEXT with the SHA-256 of its lines after the first in its first line, after the marker (a seed's CSV,
    which has no marker, as it is)."""
    first, newline, rest = text.partition("\n")
    if MARKER not in first:
        return text
    return first.replace(MARKER, f"{MARKER} [{_digest(rest)}]", 1) + newline + rest


def ours(path: str) -> bool:
    """Whether the file at PATH is sqlrank dbt's as written: its marker, and its lines as the stamp says. A file
    without a stamp is the user's (whoever took the stamp out may have filled in a password below it)."""
    if not starts_with(path, _marker_line(path)):
        return False
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            first, _, rest = handle.read().partition("\n")
    except (OSError, UnicodeDecodeError):
        return False
    stamp = re.match(re.escape(_marker_line(path)) + r" \[([0-9a-f]{16})\]", first)
    return stamp is not None and stamp.group(1) == _digest(rest)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def evaluations(folder: str) -> list[str]:
    """The evaluations of the package in FOLDER: the macro files sqlrank dbt wrote, by name."""
    paths = glob.glob(os.path.join(folder, "macros", "*.sql"))
    return sorted(os.path.splitext(os.path.basename(p))[0] for p in paths
                  if os.path.basename(p) != "sqlrank.sql" and starts_with(p, _marker_line(".sql")))


def written_lines(folder: str, name: str, written: list[str], init: bool) -> list[str]:
    """What sqlrank dbt says of the evaluation NAME it wrote: the files, and for an evaluation of its own name, the var
    that names its run (it never reads the shared sqlrank_run, so that two evaluations do not read one run unawares),
    unless the starter project with the demo's seeds sets it."""
    what = "the starter project" if init else "the dbt package"
    lines = [f"sqlrank: wrote {len(written)} files of {what} in {folder}: {name}"]
    if name != DEFAULT and os.path.join(folder, "seeds", "seeds.yml") not in written:
        lines.append(f"sqlrank: note: {name} reads the run the var sqlrank_{name}_run names (never the shared "
                     f"sqlrank_run), and its judgments from sqlrank_{name}_qrels, else sqlrank_qrels: set "
                     f"sqlrank_{name}_run in dbt_project.yml or --vars")
    return lines


def _refuse_taken_names(folder: str, name: str, demo: bool) -> None:
    """Stop when the evaluation's models (NAME, NAME_summary, NAME_comparison) would take the name of another node
    of the project: a seed, a model of the user's, another evaluation's model or macro; the error names a free name."""
    def stems(pattern: str) -> set[str]:
        return {os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(folder, pattern), recursive=True)}

    others = set(evaluations(folder)) - {name}
    taken = {f"{e}{end}": f"{what} {e}" for e in others for end, what in (
        ("", "the evaluation"), ("_summary", "the summary of the evaluation"),
        ("_comparison", "the comparison of the evaluation"))}
    taken |= {s: f"a seed ({s}.csv)" for s in stems(os.path.join("seeds", "**", "*.csv"))
              | ({"qrels", "run"} if demo else set())}
    taken |= {os.path.splitext(os.path.basename(p))[0]: f"a model of yours ({os.path.relpath(p, folder)})"
              for p in glob.glob(os.path.join(folder, "models", "**", "*.sql"), recursive=True)
              if not starts_with(p, _marker_line(p))  # one at the path of a model of NAME: a file it would replace
              and os.path.dirname(p) != os.path.join(folder, "models")}

    def free(candidate: str) -> bool:
        return candidate not in others and all(f"{candidate}{end}" not in taken
                                               for end in ("", "_summary", "_comparison"))

    for node in (name, f"{name}_summary", f"{name}_comparison"):
        if node in taken:
            suggestion = next(f"{name}_{n}" for n in range(2, 10_000) if free(f"{name}_{n}"))
            raise OptionError(f"--name {name}: the model {node} would take the name of {taken[node]} in {folder}; "
                              f"dbt needs one node per name: give another --name (--name {suggestion} is free)")


def _refuse_foreign_files(folder: str, foreign: list[str]) -> None:
    """Stop, nothing written, when a file the package would replace was not written by sqlrank dbt, or was
    edited since (it is the user's now)."""
    if not foreign:
        return
    project = os.path.join(folder, "dbt_project.yml")
    edited = [path for path in foreign if starts_with(path, _marker_line(path))]
    if edited:
        it = "it" if len(edited) == 1 else "them"
        raise InputError(f"{folder}: {', '.join(edited)} {'was' if len(edited) == 1 else 'were'} edited after sqlrank "
                         f"dbt wrote {it}, so {'it is' if len(edited) == 1 else 'they are'} yours: nothing was written "
                         f"(keep your lines and leave out --init, or --force to write {it} anew, losing your lines)")
    if project in foreign:
        raise InputError(f"{folder}: holds another dbt project ({project} was not written by sqlrank dbt); give an "
                         f"empty folder or sqlrank's package (--force replaces the files sqlrank writes)")
    it, was = ("it", "was") if len(foreign) == 1 else ("them", "were")
    raise InputError(f"{folder}: {', '.join(foreign)} {was} not written by sqlrank dbt; nothing was written (move {it} "
                     f"away, give another --name, or --force to replace {it})")


def _marker_line(path: str) -> str:
    """The opening every file of the package has: a comment of YAML, or Jinja's."""
    return ("# " if path.endswith((".yml", ".gitignore")) else "{#- ") + MARKER
