"""The picture of the package's layers, docs/layers.svg, drawn from the code: a box per part of the
package (its modules listed), rows in the order of tests/test_layers.py's LAYERS, and an arrow for
every part that imports another. test_layers.py fails when the committed picture is not this one.

    python tests/support/layers.py      # write docs/layers.svg anew
"""
from __future__ import annotations

import html
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PICTURE = ROOT / "docs" / "layers.svg"
# Top to bottom: what may import what (tests/test_layers.py's LAYERS) reads down this picture.
ROWS = (("cli", "__init__", "__main__"), ("tools", "export"), ("evaluation", "diagnostics", "results"), ("engines",),
        ("plan",), ("inputs",), ("rendering",), ("measures",), ("errors", "version", "progress"))
WIDTH, ROW_HEIGHT, BOX_HEIGHT, GAP = 960, 86, 50, 12


def boxes(modules: list[str]) -> dict[str, tuple[float, float, float, float, str]]:
    """part -> (x, y, width, height, the modules it holds)."""
    found = {}
    for row, parts in enumerate(ROWS):
        width = (WIDTH - 40 - GAP * (len(parts) - 1)) / len(parts)
        for index, part in enumerate(parts):
            inside = sorted(m.partition(".")[2] for m in modules if m.split(".")[0] == part and "." in m)
            found[part] = (20 + index * (width + GAP), 20 + row * ROW_HEIGHT, width, BOX_HEIGHT, " ".join(inside))
    return found


def picture(graph: dict[str, set[str]]) -> str:
    """The SVG text of the layers and the imports between them (graph: module -> modules it imports)."""
    placed = boxes(list(graph))
    edges = sorted({(a.split(".")[0], b.split(".")[0]) for a, targets in graph.items() for b in targets
                    if a.split(".")[0] != b.split(".")[0]})
    height = 20 + len(ROWS) * ROW_HEIGHT
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" '
           'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#7a869a"/></marker></defs>',
           f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>']
    for number, (source, target) in enumerate(edges):
        sx, sy, sw, _, _ = placed[source]
        tx, ty, tw, th, _ = placed[target]
        shift = ((number * 37) % 60 - 30) / 100  # arrows from one box spread over its width
        x1, x2 = sx + sw * (0.5 + shift), tx + tw * (0.5 + shift / 2)
        out.append(f'<line x1="{x1:.1f}" y1="{sy + BOX_HEIGHT:.1f}" x2="{x2:.1f}" y2="{ty:.1f}" stroke="#9aa5b8" '
                   f'stroke-width="1" marker-end="url(#arrow)"><title>{source} imports {target}</title></line>')
    for part, (x, y, w, h, inside) in placed.items():
        name = part if part.startswith("__") or part in ("errors", "version", "progress", "plan", "evaluation",
                                                         "diagnostics") else part + "/"
        out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h}" rx="6" fill="#eef2f8" '
                   f'stroke="#44546a"/>')
        out.append(f'<text x="{x + 8:.1f}" y="{y + 19:.1f}" font-weight="bold">{html.escape(name)}</text>')
        if inside:
            out.append(f'<text x="{x + 8:.1f}" y="{y + 38:.1f}" fill="#44546a" font-size="11">'
                       f'{html.escape(inside)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))
    from test_layers import graph  # noqa: E402

    PICTURE.write_text(picture(graph()), encoding="utf-8")
    print(f"wrote {PICTURE.relative_to(ROOT)}")
