"""The picture of the package's layers, docs/layers.svg, drawn from the code: a row and a column per
part of the package, from the command line at the top to the leaves at the bottom, each row naming
the part's modules. A dark square: the row's part imports the column's; a light one: tests/project/test_layers.py
allows it; white: not allowed. Every dark square lies right of the diagonal, where the lower layers
are: imports point down. test_layers.py fails when the committed picture is not this one.

    python tests/support/layers.py      # write docs/layers.svg anew
"""
from __future__ import annotations

import html
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PICTURE = ROOT / "docs" / "layers.svg"
# The parts from the top layer to the bottom one (tests/project/test_layers.py's LAYERS says what may import what).
ORDER = ("__main__", "cli", "__init__", "evaluating", "judging", "comparing", "tracking", "trec", "diagnosing", "fusing", "logs", "statistics",
         "export",
         "evaluation", "diagnostics", "results", "engines", "plan",
         "inputs", "rendering", "measures", "progress", "version", "errors")
ROW, CELL, LABEL, TOP = 30, 30, 560, 118


def picture(graph: dict[str, set[str]], allowed: dict[str, set[str]]) -> str:
    """The SVG text: graph is module -> the modules it imports; allowed is part -> the parts it may import."""
    imports = {(a.split(".")[0], b.split(".")[0]) for a, targets in graph.items() for b in targets}
    modules = {part: sorted(m.partition(".")[2] for m in graph if m.split(".")[0] == part and "." in m) for part in ORDER}
    width, height = LABEL + CELL * len(ORDER) + 60, TOP + ROW * len(ORDER) + 50
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'font-family="sans-serif" font-size="12">', f'<rect width="{width}" height="{height}" fill="#ffffff"/>']
    for j, part in enumerate(ORDER):  # column heads, turned
        x = LABEL + j * CELL + CELL / 2 + 4
        out.append(f'<text transform="translate({x:.0f},{TOP - 8}) rotate(-60)" fill="#44546a">{html.escape(part)}</text>')
    for i, source in enumerate(ORDER):
        y = TOP + i * ROW
        name = source + ("/" if modules[source] else "")
        out.append(f'<text x="10" y="{y + 19}" font-weight="bold">{html.escape(name)}</text>')
        if modules[source]:
            out.append(f'<text x="110" y="{y + 19}" fill="#44546a" font-size="11">{html.escape(" ".join(modules[source]))}</text>')
        for j, target in enumerate(ORDER):
            fill = ("#2f4a73" if (source, target) in imports and source != target else
                    "#dfe6f0" if target in allowed[source] or target == source else "#ffffff")
            title = (f"{source} imports {target}" if fill == "#2f4a73" else
                     f"{source} may import {target}" if fill == "#dfe6f0" else f"{source} may not import {target}")
            out.append(f'<rect x="{LABEL + j * CELL + 2}" y="{y + 2}" width="{CELL - 4}" height="{ROW - 4}" rx="3" '
                       f'fill="{fill}" stroke="#c5cedb"><title>{html.escape(title)}</title></rect>')
    legend_y = TOP + ROW * len(ORDER) + 28
    for k, (fill, text) in enumerate((("#2f4a73", "imports"), ("#dfe6f0", "may import"), ("#ffffff", "may not import"))):
        x = 10 + k * 220
        out.append(f'<rect x="{x}" y="{legend_y - 13}" width="16" height="16" rx="3" fill="{fill}" stroke="#c5cedb"/>')
        out.append(f'<text x="{x + 24}" y="{legend_y}">row {text} column</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.path[:0] = [str(HERE.parent), str(HERE.parent / "project")]
    from test_layers import LAYERS, graph  # noqa: E402

    PICTURE.write_text(picture(graph(), LAYERS), encoding="utf-8")
    print(f"wrote {PICTURE.relative_to(ROOT)}")
