"""Two views of a report (comparing/reports.py), self-contained SVG and HTML: each run's interpolated precision-recall
curve (trec_eval's iprec_at_recall: the 11 recall levels' mean interpolated precision, one line per run), and,
for the queries a run won and lost most, the two runs' top documents side by side with each document's label
(unjudged marked), as diffir shows two rankings. Every point and cell carries its values as data attributes, so
that what a browser shows can be read back and checked."""
from __future__ import annotations

import html

from .compare import RECALL_LEVELS, Details

COLORS = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c"]


def curve_plot(curves: dict[str, list[float]], width: int = 520, height: int = 320) -> str:
    """One line per run through its interpolated precision at recall 0.0, 0.1, ..., 1.0, on axes from 0 to 1."""
    pad_l, pad_r, pad_t, pad_b = 46, 130, 10, 36
    plot_w, plot_h = width - pad_l - pad_r, height - pad_t - pad_b

    def x(recall: float) -> float:
        return pad_l + recall * plot_w

    def y(precision: float) -> float:
        return pad_t + (1 - precision) * plot_h

    parts = [f'<line x1="{pad_l}" y1="{y(0)}" x2="{x(1)}" y2="{y(0)}" stroke="#666"/>',
             f'<line x1="{pad_l}" y1="{y(0)}" x2="{pad_l}" y2="{y(1)}" stroke="#666"/>']
    for tick in (0, 0.2, 0.4, 0.6, 0.8, 1):
        parts.append(f'<text x="{x(tick):.1f}" y="{y(0) + 14:.1f}" text-anchor="middle">{tick:g}</text>'
                     f'<text x="{pad_l - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:g}</text>'
                     f'<line x1="{pad_l}" y1="{y(tick):.1f}" x2="{x(1)}" y2="{y(tick):.1f}" stroke="#eee"/>')
    parts.append(f'<text x="{x(0.5):.1f}" y="{height - 4}" text-anchor="middle">recall</text>')
    for i, (run, values) in enumerate(curves.items()):
        color = COLORS[i % len(COLORS)]
        points = " ".join(f"{x(float(level)):.2f},{y(v):.2f}" for level, v in zip(RECALL_LEVELS, values))
        parts.append(f'<g class="curve" data-run="{html.escape(run)}"><polyline points="{points}" fill="none" '
                     f'stroke="{color}" stroke-width="2"/>')
        for level, v in zip(RECALL_LEVELS, values):
            tip = f"{run}: interpolated precision {v:.4f} at recall {level}"
            parts.append(f'<circle class="point" cx="{x(float(level)):.2f}" cy="{y(v):.2f}" r="3" fill="{color}" '
                         f'data-run="{html.escape(run)}" data-recall="{level}" data-precision="{v!r}">'
                         f'<title>{html.escape(tip)}</title></circle>')
        label = run if len(run) <= 16 else "..." + run[-15:]
        key = pad_t + 14 + 16 * i
        parts.append(f'<line x1="{x(1) + 10:.1f}" y1="{key - 4}" x2="{x(1) + 26:.1f}" y2="{key - 4}" stroke="{color}" '
                     f'stroke-width="3"/><text x="{x(1) + 30:.1f}" y="{key}">{html.escape(label)}</text></g>')
    title = "Interpolated precision at 11 recall levels, mean over queries (trec_eval's iprec_at_recall)"
    return (f'<figure><svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
            f'aria-label="{html.escape(title)}">{"".join(parts)}</svg>'
            f'<figcaption>{html.escape(title)}</figcaption></figure>')


def side_by_side(details: Details, query: str, baseline: str, run: str, delta: float, measure: str) -> str:
    """The two runs' top documents of one query, rank by rank, each with its label or marked unjudged; a document
    both runs rank is in bold."""
    lists = {name: {rank: (doc, label) for rank, doc, label in details.rankings.get((query, name), [])}
             for name in (baseline, run)}
    both = {doc for doc, _ in lists[baseline].values()} & {doc for doc, _ in lists[run].values()}
    cells = []
    for rank in range(1, details.depth + 1):
        line = [f'<td class="num">{rank}</td>']
        for name in (baseline, run):
            found = lists[name].get(rank)
            line.append(_cell(found, name, both) if found else "<td></td><td></td>")
        cells.append("<tr>" + "".join(line) + "</tr>")
    head = (f'<table class="diff" data-query="{html.escape(query)}"><thead><tr><th>rank</th>'
            f"<th>{html.escape(baseline)}</th><th>label</th><th>{html.escape(run)}</th><th>label</th></tr></thead>")
    caption = f"<h4>{html.escape(query)}: {html.escape(measure)} {delta:+.4f}</h4>"
    return caption + head + "<tbody>" + "".join(cells) + "</tbody></table>"


def _cell(found: tuple, run: str, both: set) -> str:
    """A ranked document (doc_id, label: None when unjudged) and its label, as two cells."""
    doc, label = found
    judged = label is not None and label == label
    text = f"{float(label):g}" if judged else "unjudged"
    weight = ' style="font-weight:600"' if doc in both else ""
    name = html.escape(str(doc))
    return (f'<td class="doc" data-run="{html.escape(run)}" data-doc="{name}"{weight}>{name}</td>'
            f'<td class="label{"" if judged else " unjudged"}" data-label="{text}">{text}</td>')


def diff_section(details: Details, measure: str, baseline: str, run: str, pairs: list[tuple[str, float]],
                 shown: int = 3) -> str:
    """The ``shown`` queries ``run`` lost and won most on ``measure`` (``pairs``: query, difference, from the
    largest loss), each as the two rankings side by side."""
    losses = [pair for pair in pairs if pair[1] < 0][:shown]
    gains = [pair for pair in reversed(pairs) if pair[1] > 0][:shown]
    if not losses and not gains:
        return ""
    out = [f"<details><summary>{html.escape(measure)}: the top {details.depth} of {html.escape(baseline)} and "
           f"{html.escape(run)} side by side, for the {len(losses)} largest losses and {len(gains)} largest gains "
           f"(labels from the judgments; unjudged marked)</summary>", '<div class="plots">']
    out += [f"<div>{side_by_side(details, q, baseline, run, d, measure)}</div>" for q, d in losses + gains]
    return "\n".join(out + ["</div></details>"])
