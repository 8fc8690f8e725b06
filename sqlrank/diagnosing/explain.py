"""Explain numbers: which conventions reproduce a value, and what makes two presets differ.

``reproduce`` enumerates every combination of the conventions that apply to a measure, computes
them all in one statement, and keeps those whose value matches a target (say, a number
printed in a paper) within its printed precision. ``attribute`` walks from one preset's
conventions to another's, one convention at a time, and reports per query how much each step
moves the value.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

from ..engines.base import Rows
from ..errors import ConventionError, MeasureError, OptionError, require_tolerance
from ..evaluation import evaluate_result
from ..measures.conventions import (DEFAULTS, EVALUATION_FIELDS, FIELD_NAMES, Conventions, format_value,
                                   resolve_conventions)
from ..measures.measure import Measure
from ..measures.names import parse_measures
from ..measures.presets import get_preset
from ..measures.resolve import check_tie_break, resolve_measures

# Values tried for each convention, in the order they are tried.
CANDIDATES: dict[str, tuple] = {
    "gain": ("linear", "exponential"),
    "discount": ("log", "jarvelin"),
    "log_base": (2.0, math.e, 10.0),
    "ideal": ("qrels", "run", "perfect"),
    "ap_denominator": ("num_rel", "retrieved_relevant", "min_num_rel_cutoff"),
    "tie_break": ("trec_eval", "doc_id_asc", "expected"),
    "rel": (1, 2),
    "missing_queries": ("skip", "zero"),
    "judged_only": (False, True),
}
# Steps from one set of conventions to another, in this order (query set and ranking first).
STEPS = ("missing_queries", "unjudged_queries", "judged_only", "depth", "nonpositive_scores", "tie_break", "rel", "gain", "discount",
         "log_base", "ideal", "ap_denominator")


def _single(measures: Any) -> Measure:
    parsed = parse_measures(measures)
    if len(parsed) != 1:
        raise MeasureError(f"explain takes one measure, not {len(parsed)} ({', '.join(map(str, parsed))})")
    return parsed[0]


def candidates(measure: Measure) -> list[Measure]:
    """Every combination of the applicable conventions the measure does not fix itself."""
    fixed = dict(measure.params)
    names = [name for name in CANDIDATES if name in measure.spec.params and name not in fixed]
    out: dict[Measure, None] = {}  # in the order tried, each once
    for values in itertools.product(*(CANDIDATES[name] for name in names)):
        params = dict(fixed, **dict(zip(names, values)))
        try:
            candidate = Measure(measure.family, measure.cutoff, params).resolve(DEFAULTS)
        except MeasureError:
            continue
        try:
            check_tie_break(candidate)
        except MeasureError:
            continue
        out.setdefault(candidate)
    return list(out)


@dataclass(frozen=True)
class Reproduction:
    """The convention combinations tried for a target: (measure, value, matches) rows, best matches first (the
    matches, with the fewest conventions that differ from trec_eval's first), and the tolerance they were held to."""

    rows: list[tuple[str, float, bool]]
    tolerance: float

    def matches(self) -> list[tuple[str, float, bool]]:
        return [row for row in self.rows if row[2]]

    def text(self, target: str, everything: bool = False) -> str:
        """As the command line prints it: the combinations that give the target (the first ten, or all), else the
        five closest."""
        matches = self.matches()
        shown = matches if everything else matches[:10]
        lines = [f"{len(matches)} of {len(self.rows)} convention combinations give {target} "
                 f"(within {self.tolerance:.2g}){', simplest first' if matches else ''}:"]
        lines += [f"  {name:<60} {value:.6f}" for name, value, _ in shown]
        if len(matches) > len(shown):
            lines.append(f"  ... {len(matches) - len(shown)} more (--all)")
        if not matches:
            lines += ["closest:"] + [f"  {name:<60} {value:.6f}" for name, value, _ in self.rows[:5]]
        return "\n".join(lines) + "\n"

    def frame(self):
        """The rows as a DataFrame (measure, value, matches), with attrs tried and tolerance."""
        import pandas as pd

        frame = pd.DataFrame(self.rows, columns=["measure", "value", "matches"]).astype({"value": "float64"})
        frame.attrs["tried"] = len(self.rows)
        frame.attrs["tolerance"] = self.tolerance
        return frame


def reproduce(qrels: Any, run: Any, measure: Any, target: float | str, tolerance: float | None = None,
              query: str | None = None, run_id: str | None = None, **options: Any):
    """The convention combinations whose value equals ``target`` within ``tolerance`` (default:
    half a unit of the target's last printed decimal); of the run ``run_id`` where ``run`` holds
    runs stored together. Returns a DataFrame with the columns measure (its canonical name: the
    conventions), value and matches, best matches first."""
    return reproduction(qrels, run, measure, target, tolerance, query, run_id, **options).frame()


def reproduction(qrels: Any, run: Any, measure: Any, target: float | str, tolerance: float | None = None,
                 query: str | None = None, run_id: str | None = None, **options: Any) -> Reproduction:
    """What ``reproduce`` returns, as rows (the command line prints them without pandas)."""
    base = _single(measure)
    text = str(target).strip()
    value = _target(text)
    if tolerance is None:
        decimals = len(text.split(".", 1)[1]) if "." in text else 0
        tolerance = 0.5 * 10 ** -decimals
    tolerance = require_tolerance(tolerance) + 1e-12
    scored = []
    for name, got, settings in _tried(qrels, run, candidates(base), query, run_id, options):
        distance = abs(got - value)
        matched = distance <= tolerance
        scored.append(((not matched, settings, math.isnan(distance), distance), (name, got, matched)))
    # simplest first: among matches, the fewest conventions that differ from trec_eval's (a value that is no number last)
    scored.sort(key=lambda pair: pair[0])
    return Reproduction([row for _, row in scored], tolerance)


def _tried(qrels: Any, run: Any, tried: list[Measure], query: str | None, run_id: str | None,
           options: dict) -> list[tuple[str, float, int]]:
    """The value of every candidate (of ``query``, else the mean), with how many conventions it sets: (measure, value,
    settings) rows; where the options leave trec_eval_version open, each also under trec_eval 9's code (pytrec_eval's:
    scores as 32-bit floats, its recall levels) where that gives another number, named '... with
    trec_eval_version=9'."""
    settings = {str(m): len(m.params) for m in tried}
    rows: list[tuple[str, float, int]] = []
    versions = [None] if "trec_eval_version" in options else [10, 9] if _version_matters(tried, run, options) else [10]
    for version in versions:
        given = dict(options, **({} if version is None else {"trec_eval_version": version}))
        values = _values(qrels, run, tried, query, run_id, given)
        found = [(name, values[name], settings[name]) for name in settings if name in values]
        if version == 9:
            before = {name: got for name, got, _ in rows}
            found = [(f"{name} with trec_eval_version=9", got, count + 1) for name, got, count in found
                     if before.get(name) != got]
        rows += found
    return rows


# Settings of a convention that on some data give the number trec_eval's setting gives, and so can take its value
# where the statement shows it: (convention, setting). missing_queries=zero scores 0 the queries the run does not
# answer: where it answers every evaluated query, no number moves. gain=exponential makes a label's gain
# 2^label - 1: where no label is above 1 and none has a fraction, every gain is the label's, as gain=linear has it.
TWINS = (("missing_queries", "zero"), ("gain", "exponential"))
ABOVE_ONE = "NumRel(rel=2)"  # the judgments with a label of 2 or more, summed over the evaluated queries


def _values(qrels: Any, run: Any, tried: list[Measure], query: str | None, run_id: str | None,
            options: dict) -> dict[str, float]:
    """Each candidate's value (of ``query``, else the mean). A candidate with a setting of TWINS whose twin (the same
    but for trec_eval's setting) is tried too takes the twin's value where the statement shows that the setting
    moves no number. The first candidate that scores unanswered queries 0 is evaluated with its twin, which is valued
    for as many queries only where no query is unanswered; ABOVE_ONE is evaluated with them, 0 with no label that has
    a fraction only where no label is above 1 (options that set conventions, trec_eval_version apart, leave the gains
    to the statement). What is not shown is evaluated in a second statement."""
    twins = {name: _twins(tried, name, setting) for name, setting in TWINS}
    paired = set().union(*twins.values())
    probe = next((m for m, twin in twins["missing_queries"].items() if twin not in paired), None)
    labels = bool(twins["gain"]) and not set(options) & {*FIELD_NAMES, "preset"} - {"trec_eval_version"}
    first = [m for m in tried if m not in paired or m == probe] + (parse_measures(ABOVE_ONE) if labels else [])
    values, result = _measured(qrels, run, first, query, run_id, options)
    shown = {"missing_queries": probe is not None and result.queries(str(probe), run_id)
             == result.queries(str(twins["missing_queries"][probe]), run_id),
             "gain": labels and not result.real_labels and values.get(ABOVE_ONE) == 0}
    taken = {}  # each candidate not evaluated: the candidate whose value it takes (itself where nothing is shown)
    for m in tried:
        if str(m) not in values:
            twin = m
            for name, _ in TWINS:
                twin = twins[name].get(twin, twin) if shown[name] else twin
            taken[m] = twin
    rest = list(dict.fromkeys(twin for twin in taken.values() if str(twin) not in values))
    if rest:
        values.update(_measured(qrels, run, rest, query, run_id, options)[0])
    return dict(values, **{str(m): values[str(twin)] for m, twin in taken.items()})


def _twins(tried: list[Measure], convention: str, setting: Any) -> dict[Measure, Measure]:
    """The candidates with the convention's setting whose twin, the same but for trec_eval's setting, is tried too."""
    named = {str(m): m for m in tried}
    twins = {}
    for m in tried:
        if m.param(convention) == setting:
            params = tuple((name, value) for name, value in m.params if name != convention)
            twin = named.get(str(Measure(m.family, m.cutoff, params).resolve(DEFAULTS)))
            if twin is not None:
                twins[m] = twin
    return twins


def _measured(qrels: Any, run: Any, measures: list[Measure], query: str | None, run_id: str | None, options: dict):
    """The measures' values by name (of ``query``, else the means), and the evaluation's Result."""
    result = evaluate_result(qrels, run, measures, per_query=query is not None, printable=False, **options)
    picked = one_run_rows(result.values(), run_id)  # no statement printed: rendered once, not twice
    if query is not None:
        picked = [row for row in picked if row["query_id"] == query]
        if not picked:
            raise MeasureError(f"query {query!r} is not evaluated (not in the qrels, or not in the run)")
    return {row["measure"]: math.nan if row["value"] is None else float(row["value"]) for row in picked}, result


def _version_matters(tried: list[Measure], run: Any, options: dict) -> bool:
    """Whether trec_eval 9's code can give another number: interpolated precision (its recall levels), or a query
    whose distinct scores are equal as 32-bit floats (it ranks those)."""
    if any("interpolated" in m.spec.reads for m in tried):
        return True
    from ..engines.duckdb import session, session_options
    from ..inputs.load import load

    given = dict(options)
    engine = session_options(given)
    with session(engine.pop("connection", None), **engine) as (con, registry):
        source = load(run, "run", con, registry, given.get("run_format"), given.get("run_columns"), ranks=False)
        return bool(con.execute(f"SELECT count(*) FROM (SELECT query_id, CAST(score AS FLOAT) AS single FROM "
                                f"({source.sql()}) AS run GROUP BY 1, 2 HAVING count(DISTINCT score) > 1) AS ties"
                                ).fetchall()[0][0])


def _target(text: str) -> float:
    """The number to reproduce, written as a value prints (0.7512): a percentage or a decimal comma
    would be read wrong, so they are refused with the spelling to use."""
    try:
        value = float(text) if text.isascii() and "_" not in text else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        hint = ""
        if text.endswith("%"):
            hint = f"; a percentage is a share: give {text[:-1]}% as {_share(text[:-1])}"
        elif "," in text:
            hint = f"; write the decimal separator as a point: {text.replace(',', '.')}"
        raise OptionError(f"target {text!r} is not a number as sqlrank prints one (e.g. 0.7512){hint}")
    return value


def _share(percent: str) -> str:
    try:
        return repr(float(percent.replace(",", ".")) / 100)
    except ValueError:
        return "a number such as 0.75"


def one_run(frame, run_id: str | None):
    """The rows of the run ``run_id`` of an evaluation of runs stored together (a run_id column),
    without that column; an evaluation of one run as it is. A number belongs to one run: without
    ``run_id`` several runs are an error that names them."""
    if not _picked_run("run_id" in frame.columns, lambda: frame["run_id"].unique(), run_id):
        return frame
    return frame[frame["run_id"] == run_id].drop(columns="run_id").reset_index(drop=True)


def one_run_rows(rows: Rows, run_id: str | None) -> list[dict]:
    """``one_run`` of rows as fetched: each row a dict of its columns."""
    if not _picked_run("run_id" in rows.columns, lambda: [row[rows.columns.index("run_id")] for row in rows.rows],
                       run_id):
        return rows.records()
    return [{k: v for k, v in record.items() if k != "run_id"} for record in rows.records() if record["run_id"] == run_id]


def _picked_run(stored_together: bool, run_ids: Any, run_id: str | None) -> bool:
    """Whether an evaluation's rows are of runs stored together, of which ``run_id`` is one (else an error)."""
    if not stored_together:
        if run_id is not None:
            raise OptionError(f"run_id={run_id!r} picks one of runs stored together (a run_id column); this run is one")
        return False
    runs = sorted(set(run_ids()))
    if run_id not in runs:
        given = f"run_id {run_id!r} is not one of them" if run_id is not None else "name the one to explain"
        raise OptionError(f"the run holds {len(runs)} runs stored together ({', '.join(runs)}): {given} "
                          f"(--run-id NAME, run_id=)")
    return True


def _conventions(spec: str | dict | None) -> tuple[Conventions, str | None, tuple[str, ...]]:
    """A preset name, 'preset=x,gain=exponential,...', or a dict, as resolved conventions, the preset, and the
    conventions set explicitly (which win over the preset's setting for a family, as in an evaluation)."""
    if spec is None:
        return DEFAULTS, None, ()
    if isinstance(spec, dict):
        settings = dict(spec)
    elif "=" not in spec:
        get_preset(spec)
        return resolve_conventions(spec), spec, ()
    else:
        settings = {}
        for part in spec.split(","):
            key, _, value = part.partition("=")
            settings[key.strip()] = _parse_value(value.strip())
    preset = settings.pop("preset", None)
    return resolve_conventions(preset, **settings), preset, tuple(settings)


def _parse_value(text: str) -> Any:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    if text in ("true", "false"):
        return text == "true"
    if text == "none":
        return None
    return text


def attribute(qrels: Any, run: Any, measure: Any, start: str | dict, end: str | dict, run_id: str | None = None,
              **options: Any):
    """Per query, how much each convention that differs between ``start`` and ``end`` (presets,
    or 'preset=x,field=value' strings) moves the value, taking them one at a time in STEPS order, then
    those of a whole evaluation (trec_eval_version, ...: one evaluation each, the measure as ``end`` computes
    it); of the run ``run_id`` where ``run`` holds runs stored together. Returns a DataFrame: query_id
    ('all' for the mean), step, convention, before, after, delta."""
    import pandas as pd

    base = _single(measure)
    first, first_preset, first_set = _conventions(start)
    last, last_preset, last_set = _conventions(end)
    a = resolve_measures([base], first, first_preset, explicit=first_set)[0]
    b = resolve_measures([base], last, last_preset, explicit=last_set)[0]
    path, steps = _path(a, b)
    whole = [name for name in EVALUATION_FIELDS if getattr(first, name) != getattr(last, name)]
    if not steps and not whole:
        raise ConventionError(f"{start} and {end} compute {base} the same way: there is no gap to attribute")
    fields = {name: getattr(first, name) for name in EVALUATION_FIELDS}
    values, means = _evaluated(qrels, run, path, fields, run_id, options)
    rows = []
    for number, (name, setting) in enumerate(steps):
        rows += _step_rows(values, means, str(path[number]), values, means, str(path[number + 1]), number + 1,
                           f"{name}={setting}")
    for number, name in enumerate(whole, len(steps) + 1):  # a whole evaluation's convention: evaluated again
        fields[name] = getattr(last, name)
        after_values, after_means = _evaluated(qrels, run, path[-1:], fields, run_id, options)
        rows += _step_rows(values, means, str(path[-1]), after_values, after_means, str(path[-1]), number,
                           f"{name}={format_value(fields[name])}")
        values, means = after_values, after_means
    frame = pd.DataFrame(rows, columns=["query_id", "step", "convention", "before", "after", "delta"])
    named = [(name, format_value(getattr(first, name)), format_value(getattr(last, name))) for name in whole]
    frame.attrs["start"] = str(a) + "".join(f" ({name}={x})" for name, x, _ in named)
    frame.attrs["end"] = str(b) + "".join(f" ({name}={y})" for name, _, y in named)
    return frame


def _path(a: Measure, b: Measure) -> tuple[list[Measure], list[tuple[str, str]]]:
    """The measures from ``a`` to ``b``, one convention of STEPS changed at a time, and each step's setting."""
    path, steps = [a], []
    current = dict(_settings(a))
    for name in STEPS:
        target = _settings(b).get(name)
        if current.get(name) != target:
            current[name] = target
            path.append(Measure(a.family, a.cutoff, {k: v for k, v in current.items() if v is not None})
                        .resolve(DEFAULTS))
            steps.append((name, format_value(target)))
    return path, steps


def _evaluated(qrels: Any, run: Any, measures: list[Measure], fields: dict, run_id: str | None, options: dict):
    """Per-query values (query x measure) and means of ``measures`` under the whole-evaluation conventions ``fields``."""
    result = evaluate_result(qrels, run, measures, per_query=True, **fields, **options)
    values = one_run(result.frame, run_id).pivot(index="query_id", columns="measure", values="value")
    return values, one_run(result.summary, run_id).set_index("measure")["value"]


def _step_rows(values, means, before: str, after_values, after_means, after: str, number: int,
               convention: str) -> list[tuple]:
    """One step's rows: per query (the queries either side evaluated) and 'all' for the means."""
    rows = []
    for qid in values.index.union(after_values.index):
        x = values.at[qid, before] if qid in values.index and before in values else math.nan
        y = after_values.at[qid, after] if qid in after_values.index and after in after_values else math.nan
        rows.append((qid, number, convention, x, y, y - x))
    rows.append(("all", number, convention, means[before], after_means[after], after_means[after] - means[before]))
    return rows


def _settings(measure: Measure) -> dict:
    """The measure's conventions, every field filled in (trec_eval's where it sets none)."""
    return {name: measure.param(name) for name in STEPS if name in measure.spec.params}
