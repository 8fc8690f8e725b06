"""The click models and off-policy estimators by name, and what each does: plain data the command line reads without
importing pandas or DuckDB (logs/clicks.py and logs/counterfactual.py compute them)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Model:
    name: str
    about: str
    fitted: str  # "counted": one statement; "em": expectation maximisation


MODELS = {m.name: m for m in (
    Model("ctr", "click-through rate: clicks over impressions", "counted"),
    Model("coec", "clicks over expected clicks: clicks over the sum of the click-through rates of the positions shown",
          "counted"),
    Model("cm", "the cascade model: clicks over impressions down to each session's first click", "counted"),
    Model("dcm", "the dependent click model: clicks over impressions down to each session's last click", "counted"),
    Model("sdbn", "the simplified dynamic Bayesian network: attractiveness (as dcm) x satisfaction (the sessions whose "
          "last click the document is, over its clicks)", "counted"),
    Model("pbm", "the position-based model: P(click) = alpha(query, document) x gamma(position), by EM", "em"),
    Model("ubm", "the user browsing model: P(click) = alpha(query, document) x gamma(position, position of the last "
          "click above), by EM", "em"),
    Model("dbn", "the dynamic Bayesian network: attractiveness x satisfaction per query and document, one continuation "
          "probability, by EM", "em"),
)}
ESTIMATORS = {
    "ips": "item-position IPS: the reward of each slot where the new run shows the logged document, over its propensity",
    "snips": "self-normalised item-position IPS: ips over the mean of its weights (same / propensity over the slots)",
    "iips": "independent IPS (Li et al. 2018): ips, as Open Bandit Pipeline names it",
    "rips": "reward-interaction IPS (McInerney et al. 2020): weights of the agreeing prefix, over prefix_propensity",
    "sips": "standard slate IPS: the page's reward where the new run shows the whole page, over slate_propensity",
    "dm": "direct method: the reward model's estimate of the new run's document at each position",
    "dr": "doubly robust: dm plus the ips-weighted error of the reward model on the logged documents",
}
NEEDS = {"rips": ("prefix_propensity",), "sips": ("slate_propensity",)}
