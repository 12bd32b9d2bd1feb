"""The geometry view: queries and keys as arrows in a plane, so a dot product can be seen."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go

from viz.figures import FONT
from viz.labels import plotly_text, token_labels
from viz.scaling import RAW_COLOUR, SCALED_COLOUR


def arrows_figure(q2: npt.ArrayLike, k2: npt.ArrayLike, tokens: tuple[str, ...], *, selected: int,
                  exact: bool) -> go.Figure:
    """Every q_i (orange) and k_j (blue) as an arrow from the origin; the selected query is bold.

    ``exact`` says whether these are the true 2-D vectors (d_k = 2) or a projection of them.
    """
    q2, k2 = np.asarray(q2, dtype=np.float64), np.asarray(k2, dtype=np.float64)
    labels = [plotly_text(t) for t in token_labels(tokens)]
    fig = go.Figure()
    for name, points, colour in (("key", k2, SCALED_COLOUR), ("query", q2, RAW_COLOUR)):
        for i, (x, y) in enumerate(points):
            chosen = name == "query" and i == selected
            faded = name == "query" and not chosen
            fig.add_annotation(x=x, y=y, ax=0, ay=0, xref="x", yref="y", axref="x", ayref="y", showarrow=True,
                               arrowhead=2, arrowsize=1.2, arrowwidth=3.5 if chosen else 1.8, arrowcolor=colour,
                               opacity=0.3 if faded else 1.0, text="")
        fig.add_trace(go.Scatter(
            x=points[:, 0], y=points[:, 1], mode="markers+text", name=f"{name}s",
            text=[f"{'q' if name == 'query' else 'k'}: {label}" for label in labels], textposition="top center",
            marker=dict(color=colour, size=[12 if name == "query" and i == selected else 6 for i in range(len(labels))]),
            textfont=dict(color=colour, size=13), hovertemplate="%{text}<br>(%{x:.2f}, %{y:.2f})<extra></extra>",
        ))
    top = float(np.abs(np.vstack([q2, k2])).max()) * 1.25 or 1.0
    title = "q and k in the plane (d_k = 2: exact)" if exact else "q and k projected onto their top-2 directions"
    fig.update_layout(font=FONT, height=520, margin=dict(l=10, r=10, t=50, b=10), title=dict(text=title, x=0),
                      legend=dict(orientation="h", y=-0.05), plot_bgcolor="white")
    fig.update_xaxes(range=[-top, top], zeroline=True, zerolinecolor="#888", gridcolor="#eee")
    fig.update_yaxes(range=[-top, top], zeroline=True, zerolinecolor="#888", gridcolor="#eee", scaleanchor="x")
    return fig
