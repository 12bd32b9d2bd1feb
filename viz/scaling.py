"""Figures of the "Why √d_k" lesson: the spread of q·k, and softmax with and without scaling."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from attention.scaling import SaturationStats
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
                   marker=dict(color=w.tolist(), colorscale=WEIGHTS_SCALE, cmin=0, cmax=1,
                               line=dict(color="#444", width=1)),
                   hovertemplate="key %{x}<br>α = %{y:.4f}<extra></extra>"),
            row=1, col=c,
        )
    fig.update_yaxes(range=[0, 1.15], title_text="α", col=1)
    fig.update_xaxes(title_text="key")
    fig.update_layout(font=FONT, height=330, margin=dict(l=10, r=10, t=70, b=40),
                      title=dict(text=title, x=0, font=dict(size=16)))
    fig.update_annotations(font=dict(size=14))
    return fig


SATURATED = 0.99  # a row whose largest weight is above this is saturated
NO_GRADIENT = 0.05  # ‖∂α/∂q‖ below this: almost no training signal reaches the query
_SIDES = ("no scaling", "÷ √d_k")


def saturation_frame(stats: list[SaturationStats]) -> pd.DataFrame:
    """One row per d_k: medians and shares over the random rows, without and with scaling."""
    rows = []
    for st in stats:
        row = {"d_k": st.d_k}
        for side, name in enumerate(_SIDES):
            row[f"median max α, {name}"] = float(np.median(st.max_weight[side]))
            row[f"share saturated, {name}"] = float(np.mean(st.max_weight[side] > SATURATED))
            row[f"median ‖∂α/∂z‖, {name}"] = float(np.median(st.jacobian_z[side]))
            row[f"share ‖∂α/∂q‖ < {NO_GRADIENT}, {name}"] = float(np.mean(st.gradient_q[side] < NO_GRADIENT))
        rows.append(row)
    return pd.DataFrame(rows).set_index("d_k")


def saturation_figure(frame: pd.DataFrame, *, chosen: int) -> go.Figure:
    """Three panels over d_k (log axis): median max α, median ‖∂α/∂z‖, the share of rows with no gradient."""
    panels = ["median max α", "median ‖∂α/∂z‖", f"share ‖∂α/∂q‖ < {NO_GRADIENT}"]
    titles = ["median largest weight", "median ‖∂α/∂z‖ (z: softmax input)",
              f"share of rows with ‖∂α/∂q‖ < {NO_GRADIENT}"]
    fig = make_subplots(rows=1, cols=3, subplot_titles=titles, horizontal_spacing=0.08)
    for c, panel in enumerate(panels, start=1):
        for name, colour in zip(_SIDES, (RAW_COLOUR, SCALED_COLOUR), strict=True):
            fig.add_trace(go.Scatter(
                x=frame.index, y=frame[f"{panel}, {name}"], mode="lines+markers", name=name, line_color=colour,
                showlegend=c == 1, hovertemplate=f"d_k = %{{x}}<br>{panel}, {name}: %{{y:.3f}}<extra></extra>",
            ), row=1, col=c)
        fig.add_vline(x=chosen, line_dash="dot", line_color="#555", row=1, col=c)
    fig.update_xaxes(type="log", title_text="d_k", tickvals=list(frame.index))
    fig.update_yaxes(rangemode="tozero")
    fig.update_layout(font=FONT, height=340, margin=dict(l=10, r=10, t=60, b=40),
                      legend=dict(orientation="h", y=-0.3))
    fig.update_annotations(font=dict(size=13))
    return fig


def row_verdict(row: npt.ArrayLike, typical: pd.Series) -> str:
    """Whether one row agrees with what the medians say, in a sentence.

    row : [2, 3] (no scaling, ÷ √d_k) × (max α, ‖∂α/∂z‖, ‖∂α/∂q‖), from ``row_statistics``;
    typical : that d_k's row of ``saturation_frame``.
    """
    row = np.asarray(row)
    median = np.array([[typical[f"median max α, {name}"], typical[f"median ‖∂α/∂z‖, {name}"]] for name in _SIDES])
    # the medians' direction: is the unscaled softmax sharper, and its Jacobian smaller, than the scaled one?
    agrees = [np.sign(row[0, c] - row[1, c]) == np.sign(median[0, c] - median[1, c]) for c in (0, 1)]
    if median[0, 0] == median[1, 0]:
        return "At d_k = 1, √d_k = 1: scaling divides by 1 and changes nothing."
    if all(agrees):
        sharper = "larger" if median[0, 0] > median[1, 0] else "smaller"
        flatter = "smaller" if median[0, 1] < median[1, 1] else "larger"
        return (f"This row is typical for this d_k: like the medians above, its unscaled softmax has the {sharper} "
                f"largest weight and the {flatter} ‖∂α/∂z‖.")
    return ("This row happens to be untypical: it goes against the medians over many rows above (unscaled: median "
            f"largest weight {median[0, 0]:.3f}, median ‖∂α/∂z‖ {median[0, 1]:.4f}; scaled: {median[1, 0]:.3f} and "
            f"{median[1, 1]:.4f}). One random row cannot show the rule; the medians can. Change the seed for "
            "another row.")
