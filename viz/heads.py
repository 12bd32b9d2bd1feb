"""Figures of several attention heads: small-multiple heatmaps and the "head view" lines.

Pure functions: weights and tokens in, a ``go.Figure`` out. Colour-blind-safe colours only:
Viridis for weights, Okabe–Ito for telling heads apart.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.figures import FONT, HEAD_COLOURS, MASKED_TEXT, WEIGHTS_SCALE
from viz.labels import format_number, plotly_text, token_labels

HEADS_PER_ROW = 4
OPACITY_LEVELS = 10  # lines are grouped into this many opacity steps (one Plotly trace each)


def heads_grid(n_heads: int) -> tuple[int, int]:
    """Rows and columns of the small multiples: at most HEADS_PER_ROW heads side by side."""
    cols = min(n_heads, HEADS_PER_ROW)
    return math.ceil(n_heads / cols), cols


def heads_heatmaps(weights: npt.ArrayLike, tokens: tuple[str, ...], *, mask: npt.ArrayLike | None = None) -> go.Figure:
    """α of every head as small multiples with one shared colour scale.

    Parameters
    ----------
    weights : array [h, n, n]; rows are queries, columns are keys in every panel.
    mask : bool array [n, n], optional; False cells are drawn masked ("—"), not as 0.
    """
    w = np.asarray(weights, dtype=np.float64)
    n_heads, n, _ = w.shape
    labels = [plotly_text(t) for t in token_labels(tokens)]
    rows, cols = heads_grid(n_heads)
    fig = make_subplots(
        rows=rows, cols=cols, subplot_titles=[f"head {h + 1}" for h in range(n_heads)],
        horizontal_spacing=0.06, vertical_spacing=0.12 if rows > 1 else 0.0,
    )
    blocked = np.zeros((n, n), dtype=bool) if mask is None else ~np.asarray(mask, dtype=bool)
    top = float(w.max()) if w.size else 1.0
    show_numbers = n * n <= 64 and cols <= 4
    for h in range(n_heads):
        z = np.where(blocked, np.nan, w[h])  # [n, n]
        text = [[MASKED_TEXT if blocked[i, j] else format_number(w[h, i, j]) for j in range(n)] for i in range(n)]
        fig.add_trace(
            go.Heatmap(
                z=z, x=list(range(n)), y=list(range(n)), text=text,
                texttemplate="%{text}" if show_numbers else None, textfont=dict(size=11),
                customdata=[[[labels[i], labels[j]] for j in range(n)] for i in range(n)],
                hovertemplate=f"head {h + 1}<br>query: %{{customdata[0]}}<br>key: %{{customdata[1]}}"
                "<br>α = %{text}<extra></extra>",
                coloraxis="coloraxis", xgap=1, ygap=1,
            ),
            row=h // cols + 1, col=h % cols + 1,
        )
    fig.update_xaxes(tickmode="array", tickvals=list(range(n)), ticktext=labels, tickangle=-45, showgrid=False,
                     tickfont=dict(size=11))
    fig.update_yaxes(tickmode="array", tickvals=list(range(n)), ticktext=labels, autorange="reversed",
                     showgrid=False, tickfont=dict(size=11))
    for c in range(2, cols + 1):  # token names once per row of panels, on the left
        fig.update_yaxes(showticklabels=False, col=c)
    fig.update_layout(
        coloraxis=dict(colorscale=WEIGHTS_SCALE, cmin=0.0, cmax=max(top, 1e-9), colorbar=dict(title="α", thickness=12)),
        font=FONT, height=80 + rows * max(220, 30 * n + 90), margin=dict(l=10, r=10, t=40, b=40),
        plot_bgcolor="#d9d9d9",
    )
    fig.update_annotations(font=dict(size=14))
    return fig


def lines_view(
    weights: npt.ArrayLike,
    tokens: tuple[str, ...],
    *,
    highlight: int | None = None,
    head_names: list[str] | None = None,
) -> go.Figure:
    """The "head view": queries in a left column, keys in a right one, a line per pair whose
    opacity is the weight α_ij. One panel per head.

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
    labels = [plotly_text(t) for t in token_labels(tokens)]
    names = head_names or [f"head {h + 1}" for h in range(n_heads)]
    rows, cols = heads_grid(n_heads)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=names, horizontal_spacing=0.04,
                        vertical_spacing=0.08 if rows > 1 else 0.0)
    y = -np.arange(n, dtype=float)  # token i at height -i: the first token on top
    queries = range(n) if highlight is None else [highlight]
    for h in range(n_heads):
        colour = HEAD_COLOURS[h % len(HEAD_COLOURS)]
        r, c = h // cols + 1, h % cols + 1
        # One trace per opacity level: line segments separated by None.
        levels = np.minimum((w[h] * OPACITY_LEVELS).astype(int), OPACITY_LEVELS - 1)  # [n, n]
        for level in range(OPACITY_LEVELS):
            xs: list[float | None] = []
            ys: list[float | None] = []
            for i in queries:
                for j in np.flatnonzero((levels[i] == level) & (w[h, i] > 0.005)):
                    xs += [0.0, 1.0, None]
                    ys += [y[i], y[j], None]
            if xs:
                fig.add_trace(
                    go.Scatter(x=xs, y=ys, mode="lines", hoverinfo="skip", showlegend=False,
                               line=dict(color=colour, width=1.5 + 3 * (level + 1) / OPACITY_LEVELS),
                               opacity=(level + 1) / OPACITY_LEVELS),
                    row=r, col=c,
                )
        for side, x, anchor in (("query", 0.0, "left"), ("key", 1.0, "right")):  # labels outside the lines
            weight = [1.0 if highlight in (None, i) or side == "key" else 0.35 for i in range(n)]
            fig.add_trace(
                go.Scatter(
                    x=[x] * n, y=y, mode="markers+text", text=labels, textposition=f"middle {anchor}",
                    marker=dict(size=8, color=colour, opacity=weight), showlegend=False,
                    textfont=dict(size=13), hovertemplate=f"{side}: %{{text}}<extra></extra>",
                ),
                row=r, col=c,
            )
    fig.update_xaxes(range=[-1.1, 2.1], visible=False)
    fig.update_yaxes(range=[-n + 0.4, 0.8], visible=False)
    fig.update_layout(
        font=FONT, height=60 + rows * (28 * n + 70), margin=dict(l=10, r=10, t=40, b=10),
        plot_bgcolor="white",
    )
    fig.update_annotations(font=dict(size=14))
    fig.add_annotation(text="queries → keys", xref="paper", yref="paper", x=0, y=1.0, yanchor="bottom",
                       yshift=18, showarrow=False, font=dict(size=12, color="#555"))
    return fig
