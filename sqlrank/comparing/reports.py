"""Report: a comparison as one self-contained HTML page (tables and inline SVG plots; no scripts, no fonts or
styles fetched from anywhere). The terminal's table, Markdown and LaTeX are comparison_text.py's."""
from __future__ import annotations

import html
import math

from ..statistics import moments
from ..version import __version__
from .compare import Comparison
from .comparison_text import display_rows, latex, legend, markdown, missing  # noqa: F401  (latex, markdown: a report's too)
from .figures import curve_plot, diff_section

DEPTH = 10  # the documents of each run an HTML report shows side by side, rank by rank
# ------------------------------------------------------------------------------ HTML

_COLORS = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c"]
_UP, _DOWN, _FLAT = "#2e8b57", "#c0392b", "#9e9e9e"
_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2em auto; max-width: 1100px;
       color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.5em 0; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #eee; }
th { background: #f4f4f4; text-align: left; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.baseline td { color: #555; background: #fafafa; } .up { color: #1e7b45; } .down { color: #b03a2e; }
.sig { font-weight: 600; } .legend { color: #555; font-size: 0.85em; } figure { margin: 0.5em 0 1.5em 0; }
figcaption { font-size: 0.9em; color: #333; } .plots { display: flex; flex-wrap: wrap; gap: 1.5em; }
svg text { font-family: inherit; font-size: 11px; fill: #333; } svg text.mark { font-size: 13px; font-weight: 600; }
h3 { font-size: 1.05em; margin-top: 1.5em; } h4 { font-size: 0.95em; margin: 0.5em 0 0.2em 0; }
details { margin: 0.5em 0 1em 0; } summary { cursor: pointer; color: #333; }
td.unjudged { color: #999; font-style: italic; } table.diff td.doc { font-family: ui-monospace, monospace; }
"""


def _html_table(c: Comparison, gsb: bool, segment=None) -> str:
    """The rows of one segment (None: overall) as an HTML table."""
    rows = c.rows
    if "segment" in c.columns:
        rows = [{k: v for k, v in row.items() if k not in ("segment", "num_queries")} for row in rows
                if (missing(row["segment"]) if segment is None else row["segment"] == segment)]
    header, cells_of = display_rows(rows, gsb)
    out = ["<table>", "<thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr></thead>",
           "<tbody>"]
    for cells, record in zip(cells_of, rows):
        baseline = record["run"] == c.runs[0]
        tds = []
        for h, x in zip(header, cells):
            classes = [] if h in ("measure", "run", "95% CI of delta") else ["num"]
            if h == "delta" and x:
                classes.append("up" if x.startswith("+") and float(x) != 0 else "down" if x.startswith("-") else "")
            if h == "p adj." and x.endswith("*"):
                classes.append("sig")
            tds.append(f"<td class=\"{' '.join(k for k in classes if k)}\">{html.escape(x)}</td>")
        tr_class = ' class="baseline"' if baseline else ""
        out.append(f"<tr{tr_class}>" + "".join(tds) + "</tr>")
    out += ["</tbody>", "</table>"]
    return "\n".join(out)


def paired_values(c: Comparison) -> dict[str, tuple[list, dict[str, list[float]]]]:
    """Per measure with values paired in every run (AUC has none without both classes): its queries, in order, and
    each run's values over them."""
    by_measure: dict[str, dict] = {}
    for query, run, measure, value in c.score_rows:
        by_measure.setdefault(measure, {}).setdefault(query, {})[run] = value
    paired = {}
    for measure in c.measures:
        if measure in by_measure and c.compared.get(measure, c.num_queries):
            values = by_measure[measure]
            queries = sorted(values)
            paired[measure] = (queries, {run: [_number(values[q].get(run)) for q in queries] for run in c.runs})
    return paired


def _number(value) -> float:
    """A per-query value as a float: NaN where the run has none."""
    return math.nan if value is None else float(value)


def sorted_deltas(queries: list[str], deltas: list[float]) -> list[tuple[str, float]]:
    """(query_id, delta) from the largest loss to the largest gain; equal deltas by query id."""
    return sorted(zip(queries, (float(d) for d in deltas)), key=lambda pair: (pair[1], pair[0]))


def _delta_plot(pairs: list[tuple[str, float]], title: str, width: int = 500, height: int = 200) -> str:
    """Per-query differences sorted from worst to best, one bar per query, each with its query id
    as a hover title; the largest loss and the largest gain are labelled with theirs. Beyond one
    query per pixel column, each bar stands for a run of neighbouring queries and shows the largest
    difference among them (the sorted curve's shape, extremes kept), its title the queries' range.
    ``title`` ("... (12 better, 3 worse") is closed by a hint on hovering, and captions the plot."""
    n = len(pairs)
    top = max(max((abs(d) for _, d in pairs), default=0.0), 1e-12)
    pad_l, pad_r, pad_t, pad_b = 46, 8, 20, 22
    plot_w, plot_h = width - pad_l - pad_r, height - pad_t - pad_b
    zero = pad_t + plot_h / 2
    starts = list(range(n)) if n <= plot_w else [i * n // plot_w for i in range(plot_w)]  # each bar's first query
    groups = [pairs[start:end] for start, end in zip(starts, starts[1:] + [n])]
    step = plot_w / max(len(groups), 1)
    bars = []
    for i, (start, group) in enumerate(zip(starts, groups)):
        d = max(group[0][1], group[-1][1], key=abs)  # sorted: the largest difference is at an end
        h = abs(d) / top * (plot_h / 2)
        y = zero - h if d > 0 else zero
        color = _UP if d > 0 else _DOWN if d < 0 else _FLAT
        if len(group) == 1:
            tip = f"{group[0][0]}: {d:+.4f}"
        else:
            tip = (f"queries {start + 1:,} to {start + len(group):,} of {n:,} ({group[0][0]} ... {group[-1][0]}): "
                   f"{group[0][1]:+.4f} to {group[-1][1]:+.4f}")
        bars.append(f'<rect x="{pad_l + i * step:.2f}" y="{y:.2f}" width="{max(step * 0.85, 0.5):.2f}" '
                    f'height="{max(h, 0.6):.2f}" fill="{color}"><title>{html.escape(tip)}</title></rect>')
    marks = []
    if n and pairs[0][1] < 0:  # the largest loss, under its bar
        query, d = pairs[0]
        marks.append(f'<text class="mark" x="{pad_l + 2}" y="{height - pad_b + 14:.2f}" text-anchor="start">'
                     f'{html.escape(query)} {d:+.4f}</text>')
    if n and pairs[-1][1] > 0:  # the largest gain, above its bar
        query, d = pairs[-1]
        marks.append(f'<text class="mark" x="{width - pad_r}" y="{pad_t - 6}" text-anchor="end">'
                     f'{html.escape(query)} {d:+.4f}</text>')
    axis = (f'<line x1="{pad_l}" y1="{zero:.2f}" x2="{pad_l + plot_w}" y2="{zero:.2f}" stroke="#666"/>'
            f'<line x1="{pad_l}" y1="{pad_t}" x2="{pad_l}" y2="{pad_t + plot_h}" stroke="#666"/>'
            f'<text x="{pad_l - 4}" y="{pad_t + 9}" text-anchor="end">{top:+.3f}</text>'
            f'<text x="{pad_l - 4}" y="{zero + 4:.2f}" text-anchor="end">0</text>'
            f'<text x="{pad_l - 4}" y="{pad_t + plot_h:.2f}" text-anchor="end">{-top:+.3f}</text>'
            f'<text x="{pad_l + plot_w / 2:.2f}" y="{height - 4}" text-anchor="middle">{n} queries, sorted by '
            f'difference</text>') + "".join(marks)
    title += f"; hover a bar for its {'query' if len(groups) == n else 'queries'})"
    return (f'<figure><svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
            f'aria-label="{html.escape(title)}">{"".join(bars)}{axis}</svg>'
            f'<figcaption>{html.escape(title)}</figcaption></figure>')


def quartiles(values: list[float]) -> list[float]:
    """The minimum, quartiles and maximum: numpy.quantile(values, [0, 0.25, 0.5, 0.75, 1]) to the bit (its linear
    interpolation, a + (b - a) * t, from b back where t >= 0.5), without the import its first call makes."""
    ordered = sorted(float(x) for x in values)
    if any(x != x for x in ordered):
        return [math.nan] * 5
    out = []
    for q in (0, 0.25, 0.5, 0.75, 1):
        at = (len(ordered) - 1) * q
        below = math.floor(at)  # at most the last index: at is at most len - 1
        a, b, t = ordered[below], ordered[min(below + 1, len(ordered) - 1)], at - below
        out.append(b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t)
    return out


def _extreme(values: list[float], which) -> float:
    """numpy.min or numpy.max of the values: NaN where one is NaN."""
    return math.nan if any(x != x for x in values) else float(which(values))


def _distribution_plot(measure: str, values: dict[str, list[float]], width: int = 500) -> str:
    """Per run: a box (quartiles), whiskers (min, max), the median line and the mean (a diamond)."""
    row_h, pad_l, pad_r, pad_t = 26, 110, 12, 8
    height = pad_t + row_h * len(values) + 24
    plot_w = width - pad_l - pad_r
    lo = min(_extreme(v, min) for v in values.values())
    hi = max(_extreme(v, max) for v in values.values())
    span = hi - lo if hi > lo else 1.0

    def x(v: float) -> float:
        return pad_l + (v - lo) / span * plot_w

    parts = []
    for i, (run, v) in enumerate(values.items()):
        y = pad_t + i * row_h + row_h / 2
        q0, q1, q2, q3, q4 = quartiles(v)
        color = _COLORS[i % len(_COLORS)]
        label = run if len(run) <= 16 else "..." + run[-15:]
        tip = (f"{run}: min {q0:.4f}, quartiles {q1:.4f} {q2:.4f} {q3:.4f}, max {q4:.4f}, mean {moments.mean(v):.4f}, "
               f"{len(v)} queries")
        parts.append(f'<g><title>{html.escape(tip)}</title>'
                     f'<text x="{pad_l - 6}" y="{y + 4:.1f}" text-anchor="end">{html.escape(label)}</text>'
                     f'<line x1="{x(q0):.2f}" y1="{y:.1f}" x2="{x(q4):.2f}" y2="{y:.1f}" stroke="{color}"/>'
                     f'<rect x="{x(q1):.2f}" y="{y - 8:.1f}" width="{max(x(q3) - x(q1), 1):.2f}" height="16" '
                     f'fill="{color}" fill-opacity="0.35" stroke="{color}"/>'
                     f'<line x1="{x(q2):.2f}" y1="{y - 8:.1f}" x2="{x(q2):.2f}" y2="{y + 8:.1f}" stroke="{color}" '
                     f'stroke-width="2"/>'
                     f'<path d="M {x(moments.mean(v)):.2f} {y - 5:.1f} l 5 5 l -5 5 l -5 -5 z" fill="#222"/></g>')
    axis_y = pad_t + row_h * len(values) + 4
    parts.append(f'<line x1="{pad_l}" y1="{axis_y}" x2="{pad_l + plot_w}" y2="{axis_y}" stroke="#666"/>')
    for tick in _ticks(lo, hi):
        anchor = "start" if tick == lo else "end" if tick == hi else "middle"
        parts.append(f'<line x1="{x(tick):.2f}" y1="{axis_y}" x2="{x(tick):.2f}" y2="{axis_y + 4}" stroke="#666"/>'
                     f'<text x="{x(tick):.2f}" y="{axis_y + 16}" text-anchor="{anchor}">{tick:.3g}</text>')
    title = f"{measure}: per-query values per run (box: quartiles, line: median, diamond: mean)"
    return (f'<figure><svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
            f'aria-label="{html.escape(title)}">{"".join(parts)}</svg>'
            f'<figcaption>{html.escape(title)}</figcaption></figure>')


def _ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """The axis' ends and up to ``count`` round values between them (steps of 1, 2 or 5 x 10^n)."""
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    inner = [k * step for k in range(math.ceil(lo / step), math.floor(hi / step) + 1)]
    inner = [t for t in inner if abs(t - lo) > step / 3 and abs(hi - t) > step / 3]
    return [lo, *inner, hi]


def _query_table(pairs: list[tuple[str, float]], base: dict, other: dict, baseline: str, run: str) -> str:
    header = ["query_id", baseline, run, "delta"]
    rows = [f'<tr><td>{html.escape(q)}</td><td class="num">{base[q]:.4f}</td><td class="num">{other[q]:.4f}</td>'
            f'<td class="num {"up" if d > 0 else "down" if d < 0 else ""}">{d:+.4f}</td></tr>' for q, d in pairs]
    return ("<table><thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


LISTED = 1000  # queries listed by difference in a report section; beyond, the largest losses and gains


def _per_query_section(measure: str, baseline: str, run: str, pairs: list[tuple[str, float]], base: dict,
                       other: dict, shown: int = 10) -> str:
    """The queries a run lost and won most, and the queries by difference (in a details element):
    every one up to LISTED, else the LISTED / 2 largest losses and gains, which keeps a report on a
    hundred thousand users a page a browser opens."""
    losses = [pair for pair in pairs if pair[1] < 0][:shown]
    gains = [pair for pair in reversed(pairs) if pair[1] > 0][:shown]
    out = [f"<h3>{html.escape(measure)}: {html.escape(run)} against {html.escape(baseline)}</h3>",
           '<div class="plots"><div>', f"<h4>Largest losses ({sum(d < 0 for _, d in pairs)} queries lost)</h4>",
           _query_table(losses, base, other, baseline, run) if losses else "<p>none</p>",
           "</div><div>", f"<h4>Largest gains ({sum(d > 0 for _, d in pairs)} queries won)</h4>",
           _query_table(gains, base, other, baseline, run) if gains else "<p>none</p>", "</div></div>"]
    if len(pairs) <= LISTED:
        out += [f"<details><summary>All {len(pairs)} queries, from the largest loss to the largest gain</summary>",
                _query_table(pairs, base, other, baseline, run), "</details>"]
    else:
        half = LISTED // 2
        left = pairs[half:-half]
        out += [f"<details><summary>The {half} largest losses and the {half} largest gains of {len(pairs):,} "
                f"queries</summary>", _query_table(pairs[:half], base, other, baseline, run),
                f'<p class="legend">... {len(left):,} queries with differences from {left[0][1]:+.4f} to '
                f"{left[-1][1]:+.4f} (every query's values: sqlrank eval QRELS RUN -m MEASURE --per-query)</p>",
                _query_table(pairs[-half:], base, other, baseline, run), "</details>"]
    return "\n".join(out)


def html_page(c: Comparison, gsb: bool, title: str = "sqlrank comparison", pairs=None) -> str:
    """The report; with ``pairs`` (statistics.pairs.AllPairs), every pair of runs after the comparison's table."""
    body = [f"<h1>{html.escape(title)}</h1>",
            f'<p class="legend">{"<br>".join(html.escape(x) for x in legend(c))}</p>',
            "<h2>Comparison with the baseline</h2>", _html_table(c, gsb)]
    if pairs is not None:
        from ..statistics.pairs import pairs_html

        body += ["<h2>Every pair of runs</h2>", pairs_html(pairs)]
    paired = paired_values(c)  # per measure: its queries with a value in every run, and each run's values
    queries = {measure: [str(q) for q in listed] for measure, (listed, _) in paired.items()}
    differences = {}  # (measure, run): (query_id, delta) pairs from the largest loss
    for measure, (_, values) in paired.items():
        for run in c.runs[1:]:
            deltas = [a - b for a, b in zip(values[run], values[c.runs[0]])]
            differences[measure, run] = sorted_deltas(queries[measure], deltas)
    body.append("<h2>Per-query differences</h2>")
    if c.judgment_sources:  # prediction-powered: the estimates above; the per-query values below are the LLM's
        body.append(f'<p class="legend">Per query, from here on: the values with {html.escape(c.judgment_sources["llm"])}'
                    f"'s judgments, of every query (the estimates above correct their means with "
                    f"{html.escape(c.judgment_sources['gold'])}'s).</p>")
    body.append('<div class="plots">')
    for (measure, run), pairs in differences.items():
        better, worse = sum(d > 0 for _, d in pairs), sum(d < 0 for _, d in pairs)
        body.append(_delta_plot(pairs, f"{measure}: {run} - {c.runs[0]} per query ({better} better, {worse} worse"))
    body.append("</div><h2>Distribution of per-query scores</h2><div class=\"plots\">")
    for measure, (_, values) in paired.items():
        body.append(_distribution_plot(measure, values))
    body.append("</div>")
    if c.details is not None:
        body += ["<h2>Precision and recall</h2>", curve_plot(c.details.curves)]
    body.append("<h2>Per query</h2>")
    for measure in c.measures:
        if measure not in paired:
            body.append(f"<p>{html.escape(measure)}: no query has a value in every run.</p>")
    for (measure, run), pairs in differences.items():
        values = {r: dict(zip(queries[measure], paired[measure][1][r])) for r in (c.runs[0], run)}
        body.append(_per_query_section(measure, c.runs[0], run, pairs, values[c.runs[0]], values[run]))
        if c.details is not None:
            body.append(diff_section(c.details, measure, c.runs[0], run, pairs))
    if "segment" in c.columns:
        body.append("<h2>Per segment</h2>")
        for segment in dict.fromkeys(row["segment"] for row in c.rows if not missing(row["segment"])):
            count = max(row["num_queries"] for row in c.rows if row["segment"] == segment)
            body.append(f"<h3>{html.escape(str(segment))} ({count} queries)</h3>")
            body.append(_html_table(c, gsb, segment))
    body.append(f'<p class="legend">Made by sqlrank {__version__}. Self-contained: no scripts, nothing fetched.</p>')
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")
