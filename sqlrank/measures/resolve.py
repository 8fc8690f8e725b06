"""Measures resolved against conventions and presets: each measure's parameters made explicit,
what cannot be computed refused (tie_break=expected without a closed form), and the measures
beyond accuracy with the extra inputs they read."""
from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from ..errors import MeasureError
from .conventions import FIELD_NAMES, SIGNED_GAINS, Conventions
from .measure import Measure
from .names import distinct, parse_measures
from .presets import preset_family_conventions
from .registry import FAMILIES


def check_tie_break(measure) -> None:
    """tie_break=expected needs a closed form (the registry's tie_expected) and a single retrieved set;
    tie_break=block a family that reads it (the registry's tie_block) and the whole ranking."""
    if measure.param("tie_break") == "block":
        if not measure.spec.tie_block:
            blocks = ", ".join(name for name, spec in FAMILIES.items() if spec.tie_block)
            raise MeasureError(f"tie_break=block (a tie group whole above each of its documents, scikit-learn's "
                               f"thresholds) is read by {blocks} only, not {measure.family}: use another tie_break "
                               f"for it (expected averages over the orders of tied documents)")
        if measure.cutoff is not None or measure.param("depth") is not None:
            raise MeasureError(f"tie_break=block cannot be combined with a cutoff or depth in {measure}: a tie group "
                               f"cut at rank k has no block end (scikit-learn's thresholds rank the whole list)")
        return
    if measure.param("tie_break") != "expected":
        return
    if not measure.spec.tie_expected:
        raise MeasureError(f"tie_break=expected is not available for {measure.family} (no exact mean over "
                           f"the orders of tied documents is implemented); use another tie_break for it")
    if measure.param("depth") is not None:
        raise MeasureError(f"tie_break=expected cannot be combined with depth in {measure}: a depth cut "
                           f"through a tie group has no single retrieved set")
    if measure.family in ("AP", "GMAP") and measure.param("ap_denominator") == "retrieved_relevant" \
            and measure.cutoff is not None:
        raise MeasureError(f"tie_break=expected with ap_denominator=retrieved_relevant and a cutoff ({measure}) "
                           f"would average a ratio of random counts; not implemented")


def check_nerr(asked: Measure) -> None:
    """NERR's equations 8 and 9 stop at rank k (a cutoff is required), 10 and 11 read to rank 1000 (none); p is
    equation 10's and T equation 11's: given to another, either would be left unread, so it is an error."""
    if asked.family != "NERR":
        return
    eq = asked.param("eq")
    if (eq in (8, 9)) != (asked.cutoff is not None):
        raise MeasureError(f"{asked}: NERR(eq={eq}) " + ("stops at rank k: give it a cutoff, as in NERR8@10"
                           if eq in (8, 9) else "reads to rank 1000 (as cwl_eval): it takes no cutoff"))
    given = dict(asked.params)
    for name, owner in (("p", 10), ("T", 11)):
        if name in given and eq != owner:
            raise MeasureError(f"{asked}: {name} is the parameter of NERR(eq={owner}); NERR(eq={eq}) does not read it")


def gained(asked: Measure, measure: Measure) -> Measure:
    """The resolved measure as it reads the gain convention: RBP rescales each gain to [0, 1] by the top of the
    scale (trec_eval's top label, a gain map's largest gain, 2^top - 1); ERR reads it with stop=ntcir only
    (NTCIREVAL's grade / (top grade + 1), one gain per label 1..max_rel), its own (2^label - 1) / 2^max_rel
    otherwise: a gain map named on ERR itself is refused there, an evaluation's gain is not ERR's (its name says
    none). ``asked``: the measure as parsed, before the conventions were filled in. gain=signed (a negative label's
    gain negative) is read by DCG, nDCG and IdealDCG alone: the others' sums and scales assume gains >= 0."""
    if "gain" in measure.spec.params and measure.param("gain") == "signed" and measure.family not in SIGNED_GAINS:
        raise MeasureError(f"{measure}: gain=signed (negative labels as negative gains, scikit-learn's dcg_score) is "
                           f"read by {', '.join(SIGNED_GAINS)} only; {measure.family} reads gains >= 0: set gain on "
                           f"those measures (nDCG(gain=signed)@10), or another gain")
    if measure.family != "ERR":
        return measure
    gain = measure.param("gain")
    if measure.param("stop") != "ntcir":
        if "gain" in dict(asked.params) and gain != "linear":
            raise MeasureError(f"{measure}: ERR's stopping chance (2^label - 1) / 2^max_rel reads the labels; a gain "
                               f"is read by ERR(stop=ntcir) (gain / (top gain + 1), as NTCIREVAL)")
        return replace(measure, params=tuple((k, v) for k, v in measure.params if k != "gain"))
    if isinstance(gain, tuple):
        named = {float(label) for label, _ in gain}
        top = measure.param("max_rel")
        missing = [k for k in range(1, int(top) + 1) if float(k) not in named] + ([] if top == int(top) else [top])
        if missing:
            raise MeasureError(f"{measure}: stop=ntcir reads one gain per label 1..max_rel (the top gain is that of "
                               f"max_rel); the gain map names no label {missing[0]:g}: give each label a gain, or set "
                               f"max_rel to the top label it names")
    return measure


def needed_inputs(measures: list[Measure]) -> dict[str, list[str]]:
    """For each extra input, the measures that read it: {input: [measure names]}."""
    needs: dict[str, list[str]] = {}
    for m in measures:
        spec = FAMILIES[m.family]
        for name in spec.inputs_for({param: m.param(param) for param, _, _ in spec.inputs_when}):
            needs.setdefault(name, []).append(str(m))
        if "similarity" in FAMILIES[m.family].params and m.param("similarity") == "features":
            needs.setdefault("item_features", []).append(str(m))
        if "target" in FAMILIES[m.family].params and m.param("target") == "file":
            needs.setdefault("targets", []).append(str(m))
    return needs


def beyond_accuracy(measures: list[Measure]) -> list[Measure]:
    """The measures that read the extra inputs or are one value over all recommendations."""
    return [m for m in measures if FAMILIES[m.family].beyond_accuracy]


def resolve_measures(spec: str | Measure | Iterable[str | Measure], conventions: Conventions,
                     preset: str | None = None, explicit: Iterable[str] = ()) -> list[Measure]:
    """Measures with conventions filled in. Precedence: the measure's own parameters, then the
    caller's explicit conventions, then the preset's setting for the family, then the rest."""
    resolved: list[Measure] = []
    for measure in parse_measures(spec):
        family = preset_family_conventions(preset, measure.family)
        own = {k: v for k, v in family.items() if k not in FIELD_NAMES}  # the family's parameters (GAUC's weight)
        if own:
            measure = replace(measure, params={**own, **dict(measure.params)})
        family = {k: v for k, v in family.items() if k in FIELD_NAMES and k not in explicit}
        check_nerr(measure)
        resolved.append(gained(measure, measure.resolve(replace(conventions, **family) if family else conventions)))
    return distinct(resolved)
