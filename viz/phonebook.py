"""Figures and tables of the phonebook lookup: pure functions of an ``attention.phonebook.Lookup``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from attention.phonebook import Lookup, shared_ngrams, visible
from viz.figures import FONT, WEIGHTS_SCALE
from viz.labels import format_number, markdown_text, plotly_text
from viz.scaling import RAW_COLOUR, SCALED_COLOUR

MAX_BAR_LABELS = 20


def key_bars(result: Lookup, *, soft: bool) -> go.Figure:
    """One bar per name in the book: its score q·k (hard) or its weight α (soft)."""
    names = [plotly_text(n) for n in result.names]
    if soft:
        y, title, axis = result.weights, f"soft: weights α = softmax(q·k / {result.temperature:g})", "α"
        colour = dict(color=result.weights.tolist(), colorscale=WEIGHTS_SCALE, cmin=0, cmax=1)
    else:
        y, title, axis = result.scores, "hard: scores q·k (the chosen key in orange)", "q·k"
        colour = dict(color=[RAW_COLOUR if j == result.hard_index else "#bbbbbb" for j in range(len(names))])
    fig = go.Figure(go.Bar(
        x=list(range(len(names))), y=y, textposition="outside",
        text=[format_number(v) for v in y] if len(names) <= MAX_BAR_LABELS else None,  # the table has them all
        marker=dict(line=dict(color="#444", width=1), **colour), customdata=names,
        hovertemplate=f"key %{{customdata}}<br>{axis} = %{{y:.3f}}<extra></extra>",
    ))
    fig.update_layout(title=dict(text=title, x=0, font=dict(size=15)), font=FONT, height=300,
                      margin=dict(l=10, r=10, t=50, b=40))
    fig.update_xaxes(tickmode="array", tickvals=list(range(len(names))), ticktext=names, title_text="key (name)")
    fig.update_yaxes(title_text=axis, range=[min(0.0, float(np.min(y)) * 1.2), max(1.0, float(np.max(y))) * 1.2])
    return fig


def answers_figure(result: Lookup) -> go.Figure:
    """The hard answer (one number's digits) and the soft answer (the blend), digit by digit."""
    positions = [f"digit {c + 1}" for c in range(result.values.shape[1])]
    hard_name = plotly_text(result.names[result.hard_index])
    fig = go.Figure([
        go.Bar(x=positions, y=result.hard, name=f"hard: {hard_name}'s number", marker_color=RAW_COLOUR,
               text=[format_number(v, 0) for v in result.hard], textposition="outside"),
        go.Bar(x=positions, y=result.soft, name="soft: Σ α_j v_j", marker_color=SCALED_COLOUR,
               text=[format_number(v, 1) for v in result.soft], textposition="outside"),
    ])
    fig.update_layout(barmode="group", title=dict(text="The answers, digit by digit", x=0, font=dict(size=15)),
                      font=FONT, height=320, margin=dict(l=10, r=10, t=50, b=40), legend=dict(orientation="h", y=-0.2))
    fig.update_yaxes(range=[0, 11], title_text="digit")
    return fig


def lookup_frame(result: Lookup) -> pd.DataFrame:
    """The book with each key's shared trigrams, score and weight: the numbers behind both bar charts."""
    return pd.DataFrame({
        "name (key)": list(result.names),
        "number (value)": list(result.phones),
        "letter triples shared with the query": [" ".join(shared_ngrams(n, result.query)) or "none"
                                                 for n in result.names],
        "score q·k": result.scores,
        "weight α": result.weights,
    })


def answers_frame(result: Lookup) -> pd.DataFrame:
    """Rows: the hard answer and the soft answer; columns: digit positions."""
    return pd.DataFrame(
        [result.hard, result.soft],
        index=[f"hard: {result.names[result.hard_index]}", "soft: Σ α_j v_j"],
        columns=[f"digit {c + 1}" for c in range(result.values.shape[1])],
    )


def hard_answer(result: Lookup) -> str:
    """How the hard lookup chose, and what T → 0 does, as Markdown (user text escaped)."""
    name = markdown_text(result.names[result.hard_index])
    number = markdown_text(result.phones[result.hard_index])
    query = markdown_text(visible(result.query.strip()))
    row = result.hard_index + 1
    if result.scores.max() <= 0:
        return (f"**Hard answer** (no name shares a letter triple with “{query}”, so every score is 0 and all "
                f"{len(result.names)} names tie; the hard lookup has nothing to go on and takes the first row): "
                f"**{name}** (row {row}), {number}. With every score equal, the soft lookup is the plain average of "
                "all the numbers, at every temperature.")
    how = "an exact match" if result.exact else "no exact match, so the best score wins"
    text = f"**Hard answer** ({how}): **{name}** (row {row}), {number}."
    if len(result.best) > 1:
        tied = ", ".join(f"“{markdown_text(result.names[j])}” (row {j + 1})" for j in result.best)
        text += (f" {len(result.best)} names tie for the best score: {tied}. The hard lookup takes the first of "
                 "them in the book. As T → 0 the soft lookup shares the weight equally among them, so it tends to "
                 "the average of their numbers, not to the hard answer.")
    return text
