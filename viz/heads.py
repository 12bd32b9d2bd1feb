"""Figures of several attention heads: small-multiple heatmaps and the "head view" lines.

Pure functions: weights and tokens in, an ``Svg`` out. Colour-blind-safe colours only: Viridis for
weights, Okabe–Ito for telling heads apart.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from viz import svg
from viz.figures import HEAD_COLOURS, MASKED_TEXT
from viz.labels import format_number, token_labels
from viz.memo import by_content

MIN_WEIGHT_DRAWN = 0.005  # lighter lines are invisible anyway


@by_content(maxsize=32)  # a class's students draw the same heads: built once (viz/memo.py), a tuple never changed
def heads_heatmaps(weights: npt.ArrayLike, tokens: tuple[str, ...], *,
                   mask: npt.ArrayLike | None = None) -> tuple[svg.Svg, ...]:
    """α of every head, one chart per head on one shared colour scale. Each chart has its own labels
    and colour bar, so that the heads can stand in a row that wraps (``ui.components.chart_row``):
    a grid of four in one image was 864 px wide and shrank, labels too, on a laptop's page.

    Parameters
    ----------
    weights : array [h, n, n]; rows are queries, columns are keys in every panel.
    mask : bool array [n, n], optional; False cells are drawn masked ("—"), not as 0.
    """
    w = np.asarray(weights, dtype=np.float64)
    n_heads, n, _ = w.shape
    labels = token_labels(tokens)
    blocked = np.zeros((n, n), dtype=bool) if mask is None else ~np.asarray(mask, dtype=bool)
    top = max(float(w.max()) if w.size else 1.0, 1e-9)  # one colour scale for every head
    show_numbers = n * n <= 64
    panels = []
    for h in range(n_heads):
        text = [[MASKED_TEXT if blocked[i, j] else format_number(w[h, i, j]) for j in range(n)] for i in range(n)]
        panels.append(svg.heatmap(
            np.where(blocked, np.nan, w[h]), cell_text=text if show_numbers else None, row_labels=labels,
            col_labels=labels, title=f"head {h + 1}", row_title="query i", col_title="key j", scale="weights",
            zmin=0.0, zmax=top, compact=True,
        ))
    return tuple(panels)


def opacity(weight: float) -> float:
    """A line's opacity: 0.15 + 0.85·α, rising with α and the same scale in every head. Opacity α alone drew a
    4-token sentence's even weights (0.25) too pale to see."""
    return 0.15 + 0.85 * weight


@by_content(maxsize=32)
def lines_view(
    weights: npt.ArrayLike,
    tokens: tuple[str, ...],
    *,
    highlight: int | None = None,
    head_names: list[str] | None = None,
) -> tuple[svg.Svg, ...]:
    """The "head view": queries in a left column, keys in a right one, a line per pair whose
    opacity is the weight α_ij. One chart per head (for a row that wraps, as ``heads_heatmaps``).

    Parameters
    ----------
    weights : array [h, n, n] (or [n, n] for one head)
    highlight : int, optional
        Show only the lines of this query token (0-based), and mark the token.
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim == 2:
        w = w[None]
    n_heads, n, _ = w.shape
    labels = token_labels(tokens)
    # one head, unnamed (the walkthrough's, a real model's open head): "head 1" named a head of nothing
    names = head_names or (["α as lines"] if n_heads == 1 else [f"head {h + 1}" for h in range(n_heads)])
    label_w = max((svg.text_width(label, 13) for label in labels), default=0) + 12
    row_h, gap = 26, 220  # lines 120 px long (a chart ~270 px wide) were hard to follow from one token to another
    queries = range(n) if highlight is None else [highlight]
    panels = []
    for h in range(n_heads):
        colour = HEAD_COLOURS[h % len(HEAD_COLOURS)]
        x0, x1, top = label_w, label_w + gap, 40
        out = [svg.text(0, 16, names[h], size=15, weight="bold", cls="title"),
               svg.text(x0, 30, "queries → keys", size=11, fill="#555555")]
        for i in queries:
            for j in np.flatnonzero(w[h, i] > MIN_WEIGHT_DRAWN):
                a = float(w[h, i, j])
                out.append(f'<line class="link" x1="{x0}" y1="{top + i * row_h}" x2="{x1}" y2="{top + j * row_h}" '
                           f'stroke="{colour}" stroke-width="{1.5 + 4 * a:.2f}" stroke-opacity="{opacity(a):.3f}"/>')
        for i, label in enumerate(labels):
            faded = highlight is not None and i != highlight
            y = top + i * row_h
            out.append(f'<circle cx="{x0}" cy="{y}" r="4" fill="{colour}" fill-opacity="{0.35 if faded else 1}"/>'
                       f'<circle cx="{x1}" cy="{y}" r="4" fill="{colour}"/>')
            out.append(svg.text(x0 - 8, y, label, anchor="end", cls="query", fill="#767676" if faded else None,
                                weight="bold" if highlight == i else None))
            out.append(svg.text(x1 + 8, y, label, cls="key"))
        panels.append(svg.document("".join(out), 2 * label_w + gap, top + n * row_h,
                                   f"{names[h]}: " + ("lines from each query" if highlight is None else
                                                      f"the lines from query “{labels[highlight]}”")
                                   + f" on the left to the keys on the right it gives α above {MIN_WEIGHT_DRAWN:g} "
                                   "(none to a masked key), thicker and darker where α is larger."))
    return tuple(panels)
