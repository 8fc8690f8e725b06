"""The listing of the measure families: one row per family, as ``sqlrank measures`` prints it and the table of
docs/measures.md shows it, read from the registry."""
from __future__ import annotations

from typing import Any

from .params import EVALUATION_PARAMS
from .registry import REGISTRY

_CUTOFF_LETTER = {"rank": "k", "fraction": "x", "multiple": "x"}
_TREC_SYNTAX = {"gains": ".L=G,...", "gains_p": ".p=P", "p": ".P", "beta": ".B", "coefficients": ".a,b,c,d",
                "levels": ".x,..."}
_AVERAGED = {"mean": "mean", "sum": "sum", "geometric": "geometric mean", "weighted": "weighted mean",
             "catalog": "over all users"}


def listing() -> list[dict[str, str]]:
    """One row per family, as ``sqlrank measures`` prints it and docs/measures.md shows it."""
    rows = []
    for family in REGISTRY:
        letter = _CUTOFF_LETTER[family.cutoff_kind]
        names = {"none": [family.name], "optional": [family.name, f"{family.name}@{letter}"],
                 "required": [f"{family.name}@{letter}"]}[family.cutoff]
        trec = []
        for t in family.trec:
            if t.kind == "cut":
                trec.append(f"{t.name}.{letter}")
            else:
                trec.append(t.name + (_TREC_SYNTAX[family.trec_params] if family.trec_params and not t.params else ""))
        own = [name for name in family.params if name not in EVALUATION_PARAMS]
        params = [name if family.params[name].default is None else f"{name}={_shown(family.params[name].default)}"
                  for name in own]
        rows.append({"measure": ", ".join(names), "also": ", ".join(family.aliases), "trec_eval": ", ".join(trec),
                     "parameters": ", ".join(params), "averaged": _AVERAGED[family.aggregate],
                     "definition": family.definition})
    return rows


def _shown(value: Any) -> str:
    if isinstance(value, tuple):
        return "(" + ",".join(f"{v:g}" for v in value) + ")" if len(value) <= 3 else f"({value[0]:g},...,{value[-1]:g})"
    return f"{value:g}" if isinstance(value, float) else str(value)


def markdown_table() -> str:
    """The measure table of docs/measures.md."""
    def code(text: str) -> str:
        return ", ".join(f"`{part}`" for part in text.split(", ")) if text else ""

    lines = ["| measure | also | trec_eval | parameters | averaged | definition |", "|---|---|---|---|---|---|"]
    for row in listing():
        lines.append(f"| {code(row['measure'])} | {code(row['also'])} | {code(row['trec_eval'])} | "
                     f"{code(row['parameters'])} | {row['averaged']} | {row['definition']} |")
    return "\n".join(lines) + "\n"
