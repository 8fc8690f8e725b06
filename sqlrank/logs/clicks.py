"""Click models (``sqlrank clicks``, ``sqlrank.clicks``): an impression log turned into real-valued judgments that any
measure reads, per query and document, with the sessions behind each. The counting models in one statement
(sql/clicks/counted.sql); the position-based and user browsing models by expectation maximisation, one statement per
iteration (sql/clicks/em_step.sql) on tables of the connection, until the parameters move less than the tolerance or
the iterations run out. Definitions: Chuklin, Markov and de Rijke, Click Models for Web Search (2015), as PyClick
implements them."""
from __future__ import annotations

import math
import uuid
from typing import Any

import pandas as pd

from ..engines.duckdb import session, session_options
from ..errors import OptionError
from ..evaluation import integer_ids
from ..rendering.dialects import DUCKDB
from ..rendering.sqltext import render_template
from .log import log_sql
from .names import MODELS, Model


# prior -> (a, b) of the counting models' (k + a) / (n + b); (a, b, the start, the cap) of EM's (a + sum) / (b + n)
PRIORS = {"pyclick": ((1, 2), (1, 5, 1 / 5, 1 - 1e-6)), "none": ((0, 0), (0, 0, 0.5, None))}


def clicks(log: Any, model: str = "pbm", iterations: int = 50, tolerance: float = 1e-9, min_sessions: int = 1,
           prior: str = "pyclick", log_columns: dict | None = None, log_format: str | None = None,
           **options: Any) -> pd.DataFrame:
    """Judgments from an impression log: query_id, doc_id, relevance (the model's estimate), sessions (the
    impressions it counts), clicks; sdbn also attractiveness and satisfaction. The EM models (pbm, ubm) run at most
    ``iterations`` iterations, stopping once no parameter moves more than ``tolerance``; attrs["iterations"] says how
    many ran, attrs["examination"] the examination probabilities. ``min_sessions``: the documents estimated from fewer
    impressions are left out. ``prior``: "pyclick" (PyClick's estimates: the counting models' ratios (k + 1) / (n + 2),
    EM's (1 + sum) / (5 + n) from 1/5, capped at 1 - 1e-6) or "none" (the plain ratios; EM from 0.5)."""
    spec = _checked(model, iterations, tolerance, min_sessions, prior)
    resources = session_options(options)
    if options:
        raise OptionError(f"unknown option {sorted(options)[0]!r} of clicks")
    with session(resources.pop("connection", None), **resources) as (con, registry):
        sql = log_sql(log, con, registry, log_columns, log_format)
        if spec.fitted == "counted":
            a, b = PRIORS[prior][0]
            statement = render_template(DUCKDB, "clicks/counted.sql", log=sql, model=spec.name, min_sessions=min_sessions,
                                        a=a, b=b)
            frame = con.execute(statement).df()
            frame.attrs.update(iterations=0, sql=statement)
        else:
            frame = _em(con, sql, spec.name, iterations, tolerance, min_sessions, PRIORS[prior][1])
    frame = integer_ids(frame) if len(frame) else frame
    frame.attrs.update(model=spec.name, prior=prior)
    return frame


def _checked(model: str, iterations: int, tolerance: float, min_sessions: int, prior: str) -> Model:
    if not isinstance(model, str) or model.lower() not in MODELS:
        raise OptionError(f"unknown click model {model!r}; choose one of {', '.join(MODELS)}")
    for name, value in (("iterations", iterations), ("min_sessions", min_sessions)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise OptionError(f"{name} {value!r} must be a whole number >= 1")
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not math.isfinite(tolerance) \
            or tolerance < 0:
        raise OptionError(f"tolerance {tolerance!r} must be a number >= 0")
    if prior not in PRIORS:
        raise OptionError(f"prior {prior!r} is not one of {', '.join(PRIORS)}")
    return MODELS[model.lower()]


def _em(con, log: str, model: str, iterations: int, tolerance: float, min_sessions: int, prior: tuple) -> pd.DataFrame:
    """EM on tables of the connection: the impressions once, then attraction and examination per iteration."""
    tag = uuid.uuid4().hex[:10]
    names = {k: f"sqlrank_{k}_{tag}" for k in ("impressions", "attraction", "examination", "step")}
    impressions = render_template(DUCKDB, "clicks/impressions.sql", log=log)
    con.execute(f"CREATE TEMP TABLE {names['impressions']} AS WITH {impressions} "
                f"SELECT *, ROW_NUMBER() OVER (ORDER BY session_id, position) AS slot FROM impressions")
    a, b, start, cap = prior
    key = "position, previous_click" if model == "ubm" else "position, 0 AS previous_click"
    con.execute(f"CREATE TEMP TABLE {names['attraction']} AS SELECT DISTINCT query_id, doc_id, {start!r} AS alpha "
                f"FROM {names['impressions']}")
    con.execute(f"CREATE TEMP TABLE {names['examination']} AS SELECT DISTINCT {key}, {start!r} AS gamma "
                f"FROM {names['impressions']}")
    step = render_template(DUCKDB, "clicks/em_step.sql", model=model, impressions=names["impressions"],
                           attraction=names["attraction"], examination=names["examination"], a=a, b=b, cap=cap)
    ran = 0
    try:
        for ran in range(1, iterations + 1):
            con.execute(f"CREATE OR REPLACE TEMP TABLE {names['step']} AS {step}")
            moved = con.execute(
                f"SELECT max(abs(step.value - old.alpha)) FROM {names['step']} AS step JOIN {names['attraction']} AS old "
                f"ON old.query_id = step.query_id AND old.doc_id = step.doc_id WHERE step.kind = 'attraction' "
                f"UNION ALL SELECT max(abs(step.value - old.gamma)) FROM {names['step']} AS step "
                f"JOIN {names['examination']} AS old ON old.position = step.position "
                f"AND old.previous_click = step.previous_click WHERE step.kind = 'examination'").fetchall()
            con.execute(f"CREATE OR REPLACE TEMP TABLE {names['attraction']} AS SELECT query_id, doc_id, value AS alpha "
                        f"FROM {names['step']} WHERE kind = 'attraction'")
            con.execute(f"CREATE OR REPLACE TEMP TABLE {names['examination']} AS SELECT position, previous_click, "
                        f"value AS gamma FROM {names['step']} WHERE kind = 'examination'")
            if max((m for m, in moved if m is not None), default=0.0) <= tolerance:
                break
        frame = con.execute(
            f"SELECT attraction.query_id, attraction.doc_id, attraction.alpha AS relevance, counts.sessions, counts.clicks "
            f"FROM {names['attraction']} AS attraction JOIN (SELECT query_id, doc_id, count(*) AS sessions, "
            f"CAST(sum(clicked) AS BIGINT) AS clicks FROM {names['impressions']} GROUP BY query_id, doc_id) AS counts "
            f"ON counts.query_id = attraction.query_id AND counts.doc_id = attraction.doc_id "
            f"WHERE counts.sessions >= {min_sessions} ORDER BY attraction.query_id, attraction.doc_id").df()
        examination = con.execute(f"SELECT * FROM {names['examination']} ORDER BY position, previous_click").df()
    finally:
        for name in names.values():
            con.execute(f"DROP TABLE IF EXISTS {name}")
    frame.attrs.update(iterations=ran, examination=examination if model == "ubm" else
                       examination.drop(columns="previous_click"), sql=step)
    return frame
