"""Figures of the "Why √d_k" lesson: the spread of q·k, and softmax with and without scaling."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.figures import FONT, WEIGHTS_SCALE
from viz.labels import format_number

RAW_COLOUR, SCALED_COLOUR = "#D55E00", "#0072B2"  # Okabe–Ito vermillion and blue


def dot_histogram(dots: npt.ArrayLike, d_k: int) -> go.Figure:
    """Histograms of q·k and of q·k/√d_k for the same samples, on one axis."""
    dots = np.asarray(dots, dtype=np.float64)
    scaled = dots / np.sqrt(d_k)
    fig = go.Figure()
    fig.add_trace(go.Histogram(x=dots, name=f"q·k (variance {dots.var():.1f})", marker_color=RAW_COLOUR,
                               opacity=0.65, nbinsx=60))
    fig.add_trace(go.Histogram(x=scaled, name=f"q·k / √d_k (variance {scaled.var():.2f})",
                               marker_color=SCALED_COLOUR, opacity=0.65, nbinsx=60))
    fig.update_layout(
        barmode="overlay", font=FONT, height=340, margin=dict(l=10, r=10, t=50, b=40),
        title=dict(text=f"{dots.size:,} random pairs q, k with unit-variance entries, d_k = {d_k}", x=0,
                   font=dict(size=16)),
        legend=dict(orientation="h", y=-0.25),
    )
    fig.update_xaxes(title_text="score")
    fig.update_yaxes(title_text="count")
    return fig


def softmax_bars(panels: list[tuple[str, npt.ArrayLike]], *, title: str) -> go.Figure:
    """Side-by-side bar charts of softmax weights, one panel each, on the same 0–1 axis."""
    fig = make_subplots(rows=1, cols=len(panels), subplot_titles=[name for name, _ in panels],
                        shared_yaxes=True, horizontal_spacing=0.05)
    for c, (_, weights) in enumerate(panels, start=1):
        w = np.asarray(weights, dtype=np.float64)
        fig.add_trace(
            go.Bar(x=[f"k{j + 1}" for j in range(w.size)], y=w, text=[format_number(a) for a in w],
                   textposition="outside", showlegend=False,
                   marker=dict(color=w, colorscale=WEIGHTS_SCALE, cmin=0, cmax=1, line=dict(color="#444", width=1)),
                   hovertemplate="key %{x}<br>α = %{y:.4f}<extra></extra>"),
            row=1, col=c,
        )
    fig.update_yaxes(range=[0, 1.15], title_text="α", col=1)
    fig.update_xaxes(title_text="key")
    fig.update_layout(font=FONT, height=330, margin=dict(l=10, r=10, t=70, b=40),
                      title=dict(text=title, x=0, font=dict(size=16)))
    fig.update_annotations(font=dict(size=14))
    return fig
