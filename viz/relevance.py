"""The geometry view: queries and keys as arrows in a plane, so a dot product can be seen."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go

from attention import AttentionTrace
from attention.relevance import self_matches
from viz.figures import FONT
from viz.labels import markdown_text, plotly_text, token_labels
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
            marker=dict(color=colour,
                        size=[12 if name == "query" and i == selected else 6 for i in range(len(labels))]),
            textfont=dict(color=colour, size=13), hovertemplate="%{text}<br>(%{x:.2f}, %{y:.2f})<extra></extra>",
        ))
    top = float(np.abs(np.vstack([q2, k2])).max()) * 1.25 or 1.0
    title = "q and k in the plane (d_k = 2: exact)" if exact else "q and k projected onto their top-2 directions"
    fig.update_layout(font=FONT, height=520, margin=dict(l=10, r=10, t=50, b=10), title=dict(text=title, x=0),
                      legend=dict(orientation="h", y=-0.05), plot_bgcolor="white")
    fig.update_xaxes(range=[-top, top], zeroline=True, zerolinecolor="#888", gridcolor="#eee")
    fig.update_yaxes(range=[-top, top], zeroline=True, zerolinecolor="#888", gridcolor="#eee", scaleanchor="x")
    return fig


def similarity_summary(trace: AttentionTrace, *, most: int = 3) -> str:
    """What the identity-projection α shows, counted from it, as Markdown (labels escaped).

    With W_Q = W_K = I the score is x_i·x_j. By Cauchy–Schwarz x_i·x_j ≤ ‖x_i‖‖x_j‖, so another
    token can beat x_i·x_i = ‖x_i‖² only if its vector is longer; each such row is named with its
    numbers (the first ``most`` of them).
    """
    labels = token_labels(trace.tokens)
    matches = self_matches(trace.weights, trace.tokens)
    others = [(i, j) for i, j in matches if trace.tokens[i] != trace.tokens[j]]
    text = (f"In **{trace.n - len(others)} of {trace.n}** rows the largest weight is on the token itself "
            "(the diagonal) or on another copy of the same word.")
    if not others:
        return text
    norms = np.linalg.norm(trace.x, axis=1)  # [n]
    named = []
    for i, j in others[:most]:
        q, k = markdown_text(labels[i]), markdown_text(labels[j])
        named.append(f"“{q}” → “{k}”: x·x = {trace.scores[i, j]:.2f} with “{k}”, more than "
                     f"{trace.scores[i, i]:.2f} with itself, because ‖x‖ of “{k}” is {norms[j]:.2f} and of "
                     f"“{q}” only {norms[i]:.2f}")
    more = f" (and {len(others) - most} more)" if len(others) > most else ""
    return (text + " In the other rows a longer vector wins: " + "; ".join(named) + more
            + ". A dot product grows with length, so “most similar” by dot product is not “the same”.")
