"""Plotly figures of an attention trace. Pure functions: a trace in, a ``go.Figure`` out.

Conventions every figure keeps:
- a matrix is drawn as it is written: row 1 at the top;
- axes are numeric positions with the token labels as tick text, so repeated tokens never merge;
- for query × key matrices the y axis says "query" and the x axis says "key";
- colour scales are colour-blind safe: Viridis for weights in [0, 1], RdBu (diverging, centred on 0)
  for signed numbers;
- user text is HTML-escaped before it reaches a title, tick or hover label.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go

from attention import AttentionTrace, MultiHeadTrace
from viz.labels import MASKED_TEXT, dim_labels, format_number, plotly_text, token_labels
from viz.tables import weighted_sum_frame

WEIGHTS_SCALE = "Viridis"
SIGNED_SCALE = "RdBu"
MAX_CELLS_WITH_NUMBERS = 400  # beyond this the numbers would be too small to read; the table has them
ROW_HEIGHT = 34
HEAD_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")  # Okabe–Ito
FONT = dict(family="DejaVu Sans, Arial, sans-serif", size=14)


def heatmap(
    m: npt.ArrayLike,
    *,
    row_labels: list[str],
    col_labels: list[str],
    title: str,
    row_title: str,
    col_title: str,
    value_name: str,
    weights: bool = False,
    decimals: int = 2,
    compact: bool = False,
    allowed: npt.ArrayLike | None = None,
) -> go.Figure:
    """A labelled heatmap of a matrix, with its numbers in the cells.

    Parameters
    ----------
    m : array [rows, cols]
        -inf (a masked score) is left blank and labelled "−∞".
    row_labels, col_labels : plain text, escaped here.
    weights : bool
        Values in [0, 1] on Viridis; otherwise a diverging scale centred on 0.
    compact : bool
        For a third of the page: no colour bar and no row-axis title, smaller numbers (the page
        states the colour scale in a caption instead).
    allowed : bool array [rows, cols], optional
        The attention mask: cells where it is False are masked. They are drawn blank on the grey
        background with "—", so a masked cell never looks like a small weight.
    """
    m = np.asarray(m, dtype=np.float64)
    n_rows, n_cols = m.shape
    rows = [plotly_text(r) for r in row_labels]
    cols = [plotly_text(c) for c in col_labels]
    blocked = np.zeros(m.shape, dtype=bool) if allowed is None else ~np.asarray(allowed, dtype=bool)
    z = np.where(np.isfinite(m) & ~blocked, m, np.nan)  # [rows, cols]; masked cells drawn blank
    text = [
        [MASKED_TEXT if b and np.isfinite(x) else format_number(x, decimals) for x, b in zip(row, brow, strict=True)]
        for row, brow in zip(m.tolist(), blocked.tolist(), strict=True)
    ]
    customdata = np.array([[[r, c] for c in cols] for r in rows], dtype=object)  # [rows, cols, 2]
    if weights:
        # 0 up to the largest weight: with many tokens every weight is small, and a fixed 0–1 scale
        # would paint them all alike. The colour bar shows the range.
        top = float(np.nanmax(z)) if np.isfinite(z).any() else 1.0
        colour = dict(colorscale=WEIGHTS_SCALE, zmin=0.0, zmax=max(top, 1e-9))
    else:
        top = float(np.nanmax(np.abs(z))) if np.isfinite(z).any() else 1.0
        colour = dict(colorscale=SIGNED_SCALE, zmin=-top or -1.0, zmax=top or 1.0, zmid=0.0)
    trace = go.Heatmap(
        z=z,
        x=list(range(n_cols)),
        y=list(range(n_rows)),
        text=text,
        texttemplate="%{text}" if m.size <= MAX_CELLS_WITH_NUMBERS else None,
        textfont=dict(size=11 if compact else 13),
        customdata=customdata,
        hovertemplate=(
            f"{row_title}: %{{customdata[0]}}<br>{col_title}: %{{customdata[1]}}"
            f"<br>{value_name} = %{{text}}<extra></extra>"
        ),
        xgap=1,
        ygap=1,
        colorbar=dict(thickness=12, len=0.9),
        showscale=not compact,
        **colour,
    )
    fig = go.Figure(trace)
    fig.update_layout(
        title=dict(text=title, x=0, xanchor="left", font=dict(size=16)),
        font=FONT,
        height=max(190, 110 + ROW_HEIGHT * n_rows),
        margin=dict(l=10, r=10, t=50, b=50),
        plot_bgcolor="#d9d9d9",  # blank (masked) cells read as grey, not as a small weight
    )
    fig.update_xaxes(
        title_text=col_title, tickmode="array", tickvals=list(range(n_cols)), ticktext=cols, side="bottom",
        showgrid=False, zeroline=False, tickfont=dict(size=14 if n_cols <= 12 else 10),
    )
    fig.update_yaxes(
        title_text=None if compact else row_title, tickmode="array", tickvals=list(range(n_rows)), ticktext=rows,
        autorange="reversed", showgrid=False, zeroline=False, tickfont=dict(size=14 if n_rows <= 12 else 10),
    )
    return fig


def tokens_figure(trace: AttentionTrace) -> go.Figure:
    """Step 1: the tokens in reading order, coloured by vocabulary id (repeats share a colour)."""
    labels = token_labels(trace.tokens)
    ids = np.array(trace.token_ids, dtype=np.float64)[None, :]  # [1, n]
    fig = go.Figure(
        go.Heatmap(
            z=ids,
            x=list(range(trace.n)),
            y=[0],
            text=[[plotly_text(label) for label in labels]],
            texttemplate="%{text}",
            textfont=dict(size=14),
            customdata=[[[i + 1, trace.token_ids[i]] for i in range(trace.n)]],
            hovertemplate="token %{text}<br>position i = %{customdata[0]}<br>id = %{customdata[1]}<extra></extra>",
            colorscale=WEIGHTS_SCALE,
            zmin=0,
            zmax=max(1, max(trace.token_ids)),
            showscale=False,
            xgap=3,
        )
    )
    fig.update_layout(
        title=dict(text=f"{trace.n} tokens", x=0, xanchor="left", font=dict(size=16)),
        font=FONT, height=160, margin=dict(l=10, r=10, t=50, b=50),
    )
    fig.update_xaxes(
        title_text="position i", tickmode="array", tickvals=list(range(trace.n)),
        ticktext=[str(i + 1) for i in range(trace.n)], showgrid=False, zeroline=False,
    )
    fig.update_yaxes(visible=False)
    return fig


def token_by_dim_figure(trace: AttentionTrace | MultiHeadTrace, m: npt.ArrayLike, name: str, *,
                        compact: bool = False) -> go.Figure:
    """A [n, d] matrix: one row a token, one column a dimension."""
    m = np.asarray(m)
    return heatmap(
        m, row_labels=token_labels(trace.tokens), col_labels=dim_labels(m.shape[1]),
        title=f"{name}  [{m.shape[0]} × {m.shape[1]}]", row_title="token", col_title="dimension",
        value_name="value", compact=compact,
    )


def projection_figure(w: npt.ArrayLike, name: str, *, compact: bool = False) -> go.Figure:
    """A [d_model, d_k] projection matrix: rows input dimensions, columns output dimensions."""
    w = np.asarray(w)
    return heatmap(
        w, row_labels=dim_labels(w.shape[0]), col_labels=dim_labels(w.shape[1]),
        title=f"{name}  [{w.shape[0]} × {w.shape[1]}]", row_title="input dim (d_model)",
        col_title="output dim (d_k)", value_name="weight", compact=compact,
    )


def query_key_figure(trace: AttentionTrace, m: npt.ArrayLike, name: str, *, weights: bool = False) -> go.Figure:
    """An [n, n] matrix of scores or weights: rows are queries, columns are keys.

    Under a causal mask the masked weights are drawn as masked, not as zeros.
    """
    labels = token_labels(trace.tokens)
    return heatmap(
        m, row_labels=labels, col_labels=labels, title=f"{name}  [{trace.n} × {trace.n}]",
        row_title="query i (row)", col_title="key j (column)", value_name=name.split(" ")[0],
        weights=weights, allowed=trace.mask if weights and trace.causal else None,
    )


def alpha_bars(trace: AttentionTrace, i: int) -> go.Figure:
    """Step 8: query i's attention weights α_i1 … α_in as bars over the keys."""
    labels = [plotly_text(label) for label in token_labels(trace.tokens)]
    row = trace.weights[i]  # [n]
    fig = go.Figure(
        go.Bar(
            x=list(range(trace.n)),
            y=row,
            text=[format_number(a) if allowed else MASKED_TEXT for a, allowed in zip(row, trace.mask[i], strict=True)],
            textposition="outside",
            marker=dict(color=row.tolist(), colorscale=WEIGHTS_SCALE, cmin=0, cmax=1, line=dict(color="#444", width=1)),
            customdata=labels,
            hovertemplate="key %{customdata}<br>α = %{y:.3f}<extra></extra>",
        )
    )
    query = plotly_text(token_labels(trace.tokens)[i])
    fig.update_layout(
        title=dict(text=f"α for query “{query}” (row {i + 1}); the bars sum to 1", x=0, xanchor="left",
                   font=dict(size=16)),
        font=FONT, height=300, margin=dict(l=10, r=10, t=50, b=50),
    )
    fig.update_xaxes(title_text="key j", tickmode="array", tickvals=list(range(trace.n)), ticktext=labels)
    fig.update_yaxes(title_text="α<sub>ij</sub>", range=[0, 1.15])
    return fig


def weighted_sum_figure(trace: AttentionTrace, i: int) -> go.Figure:
    """Step 8: each term α_ij·v_j as a row, and their sum, which is output row i (the table's rows)."""
    frame = weighted_sum_frame(trace, i)  # [n + 1, d_k]
    query = plotly_text(token_labels(trace.tokens)[i])
    return heatmap(
        frame.to_numpy(), row_labels=list(frame.index), col_labels=list(frame.columns),
        title=f"Σ<sub>j</sub> α<sub>ij</sub>·v<sub>j</sub> for query “{query}”  [{trace.n} terms + sum]",
        row_title="term", col_title="dimension", value_name="value",
    )
