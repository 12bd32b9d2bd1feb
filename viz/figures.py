"""Figures of an attention trace. Pure functions: a trace in, an ``Svg`` (drawn by ``viz.svg``) out.

Conventions every figure keeps:
- a matrix is drawn as it is written: row 1 at the top;
- for query × key matrices the rows are the queries and the columns the keys, and the axis titles
  say so;
- colour scales are colour-blind safe: Viridis for weights, RdBu (diverging, centred on 0) for
  signed numbers;
- repeated tokens get unique labels (``token_labels``); ``viz.svg`` escapes every text.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import numpy.typing as npt

from attention import AttentionTrace, MultiHeadTrace
from viz import svg
from viz.i18n import N_, nt, t
from viz.labels import MASKED_TEXT, dim_labels, format_number, query_labels, row_labels, token_labels
from viz.memo import by_content
from viz.tables import row_names, weighted_sum_decimals, weighted_sum_frame

MAX_CELLS_WITH_NUMBERS = 400  # beyond this the numbers would be too small to read; the table has them
HEAD_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")  # Okabe–Ito


@by_content(maxsize=128)  # a class's students draw the same charts: built once (viz/memo.py)
def heatmap(
    m: npt.ArrayLike,
    *,
    row_labels: list[str],
    col_labels: list[str],
    title: str,
    row_title: str,
    col_title: str,
    weights: bool = False,
    decimals: int | npt.ArrayLike = 2,
    compact: bool = False,
    allowed: npt.ArrayLike | None = None,
    top: float | None = None,
    fold: bool = False,
) -> svg.Svg:
    """A labelled heatmap of a matrix, with its numbers in the cells.

    Parameters
    ----------
    m : array [rows, cols]
        -inf (a masked score) is drawn blank and labelled "−∞".
    row_labels, col_labels : plain text.
    decimals : int, or an int a cell [rows, cols] (its sign is dropped: a "≈" marker of ``viz.arithmetic``)
    weights : bool
        Values on Viridis from 0 to the largest weight; otherwise a diverging scale centred on 0.
    compact : bool
        For a third of the page: no colour bar and no row-axis title, smaller numbers (the page
        states the colour scale in a caption instead).
    allowed : bool array [rows, cols], optional
        The attention mask: cells where it is False are masked. They are drawn blank on grey with
        "—", so a masked cell never looks like a small weight.
    top : float, optional
        The end of the colour scale (weights: 0 … top; signed: −top … top) instead of this matrix's
        own largest value, so that several heatmaps share one scale.
    fold : bool
        The columns are a vector's dimensions: a single row wider than FOLD_FROM is drawn folded
        (``fold_width``). Not for keys: "the row's first key + 3" means nothing.
    """
    m = np.asarray(m, dtype=np.float64)
    width = fold_width(m.shape) if fold else 0
    if width:
        return _folded(m, width, row_labels=row_labels, col_labels=col_labels, title=title, col_title=col_title,
                       weights=weights, decimals=decimals, compact=compact, allowed=allowed, top=top)
    blocked = np.zeros(m.shape, dtype=bool) if allowed is None else ~np.asarray(allowed, dtype=bool)
    z = np.where(np.isfinite(m) & ~blocked, m, np.nan)  # [rows, cols]; masked cells drawn blank
    cell_text = None
    if m.size <= MAX_CELLS_WITH_NUMBERS:
        places = np.abs(np.broadcast_to(np.asarray(decimals), m.shape)).tolist()
        cell_text = [[MASKED_TEXT if b and np.isfinite(x) else format_number(x, d)
                      for x, b, d in zip(row, brow, drow, strict=True)]
                     for row, brow, drow in zip(m.tolist(), blocked.tolist(), places, strict=True)]
    shown = z[np.isfinite(z)]
    if weights:
        # 0 up to the largest weight: with many tokens every weight is small, and a fixed 0–1 scale
        # would paint them all alike. The colour bar shows the range.
        scale, zmin, zmax = "weights", 0.0, max(top or (float(shown.max()) if shown.size else 1.0), 1e-9)
    else:
        top = top or (float(np.abs(shown).max()) if shown.size else 1.0)
        scale, zmin, zmax = "signed", -(top or 1.0), top or 1.0
    # a vector's columns are named in English ("dimension": the folded picture's names are keyed by it), others as shown
    col_title = t(col_title) if col_title in FOLDED_ROWS else col_title
    return svg.heatmap(z, cell_text=cell_text, row_labels=row_labels, col_labels=col_labels, title=title,
                       row_title=None if compact else row_title, col_title=col_title, scale=scale, zmin=zmin,
                       zmax=zmax, colour_bar=not compact, compact=compact)


FOLD_FROM = 16  # a single row wider than this is drawn folded (a cached step's q [1 × 64], its x [1 × 576])


def fold_width(shape: tuple[int, ...]) -> int:
    """How many cells a row of the folded picture of a one-row matrix holds, or 0 to draw it as it is: 8
    (its numbers fit, and its table's blocks hold up to 8 columns: static/view.js) up to 128 columns,
    32 beyond (a 576-wide x is 18 rows of 32). Only a width that divides the row: no padding cell."""
    if len(shape) != 2 or shape[0] != 1 or shape[1] <= FOLD_FROM:
        return 0
    width = 8 if shape[1] <= 128 else 32
    return width if shape[1] % width == 0 else 0


def _folded(m: npt.NDArray[np.float64], fold: int, *, row_labels: list[str], col_labels: list[str], title: str,
            col_title: str, **options) -> svg.Svg:
    """A [1 × D] matrix as a [D/fold × fold] heatmap, a row of the picture ``fold`` consecutive columns (a
    strip of 576 cells 1 px wide showed nothing, and its ticks ran into each other; issue 34). Its grid maps a
    drawn cell back to the column it is (``svg.Grid.fold``), so the tooltips and the table answer as before."""
    d = m.shape[1]
    shape = (d // fold, fold)
    decimals = options.pop("decimals")
    allowed = options.pop("allowed")
    drawn_title = t("{title}, folded", title=title)
    fig = heatmap(
        m.reshape(shape), row_labels=[f"{col_labels[k]}–{col_labels[k + fold - 1]}" for k in range(0, d, fold)],
        col_labels=[f"+{k}" for k in range(fold)], title=drawn_title, row_title=t(FOLDED_ROWS[col_title]),
        col_title=t(FOLDED_COLUMNS[col_title]), decimals=np.broadcast_to(np.asarray(decimals), m.shape
                                                                                   ).reshape(shape),
        allowed=None if allowed is None else np.asarray(allowed).reshape(shape), **options)
    picture = fig.alt[len(svg.titled(drawn_title, "")):]  # svg.heatmap's alt is svg.titled(its title, the picture)
    alt = t("{title}, folded: the {d} numbers of “{token}” in {rows} rows of {fold}, row 1 holding {what} "
            "{first}–{last}; {picture}", title=title, d=d, token=row_labels[0], rows=shape[0], fold=fold,
            what=t(FOLDED_ROWS[col_title]), first=col_labels[0], last=col_labels[fold - 1], picture=picture)
    return dataclasses.replace(fig, alt=alt, grid=dataclasses.replace(fig.grid, fold=fold))


# a folded heatmap's axes, by the name of the columns it folds
FOLDED_ROWS = {"dimension": N_("dimensions")}
FOLDED_COLUMNS = {"dimension": N_("dimension = the row's first + this")}


def tokens_figure(trace: AttentionTrace) -> svg.Svg:
    """Step 1: the tokens in reading order, one cell each, numbered by position i."""
    labels = token_labels(trace.tokens)
    ids = np.array(trace.token_ids, dtype=np.float64)[None, :]  # [1, n]
    fig = svg.heatmap(
        ids / max(1, max(trace.token_ids)) * 0.55 + 0.4, cell_text=[labels], row_labels=[""],
        col_labels=[str(i + 1) for i in range(trace.n)], title=nt("{n} token", "{n} tokens", trace.n), row_title=None,
        col_title=t("position i"), scale="weights", zmin=0.0, zmax=1.0, colour_bar=False,
    )  # coloured by id: a repeated token has its colour twice
    return dataclasses.replace(fig, alt=nt("{n} token in reading order: {tokens}.", "{n} tokens in reading order: "
                                           "{tokens}.", trace.n, tokens=svg.listing(labels, limit=64)))


def token_by_dim_figure(trace: AttentionTrace | MultiHeadTrace, m: npt.ArrayLike, name: str, *,
                        compact: bool = False, top: float | None = None) -> svg.Svg:
    """A [n, d] matrix: one row a token, one column a dimension."""
    m = np.asarray(m)
    return heatmap(
        m, row_labels=row_labels(trace, m.shape[0]), col_labels=dim_labels(m.shape[1]),
        title=f"{name}  [{m.shape[0]} × {m.shape[1]}]", row_title=t("token"), col_title="dimension",
        compact=compact, top=top, fold=True,
    )


W_O_AXES = (N_("Concat dim (h·d_k = d_model)"), N_("output dim (d_model)"))  # W_O [d_model × d_model]: Concat · W_O


def projection_figure(w: npt.ArrayLike, name: str, *, compact: bool = False,
                      axes: tuple[str, str] = (N_("input dim (d_model)"), N_("output dim (d_k)"))) -> svg.Svg:
    """A projection matrix: rows input dimensions, columns output dimensions. ``axes`` names them: by default
    W_Q's, W_K's and W_V's [d_model × d_k]; W_O's [d_model × d_model] is ``W_O_AXES`` (its rows are Concat's
    h·d_k = d_model columns)."""
    w = np.asarray(w)
    return heatmap(
        w, row_labels=dim_labels(w.shape[0]), col_labels=dim_labels(w.shape[1]),
        title=f"{name}  [{w.shape[0]} × {w.shape[1]}]", row_title=t(axes[0]), col_title=t(axes[1]), compact=compact,
    )


def query_key_figure(trace: AttentionTrace, m: npt.ArrayLike, name: str, *, weights: bool = False,
                     top: float | None = None) -> svg.Svg:
    """An [n, n] matrix of scores or weights (a cached step's: [1, n]): rows are queries, columns are keys.

    Under a causal mask the masked weights are drawn as masked, not as zeros. ``top``: a shared end
    of the colour scale (see ``heatmap``).
    """
    rows = query_labels(trace)
    return heatmap(
        m, row_labels=rows, col_labels=token_labels(trace.tokens), title=f"{name}  [{len(rows)} × {trace.n}]",
        row_title=t("query i (row)"), col_title=t("key j (column)"),
        weights=weights, allowed=trace.mask if weights and trace.causal else None, top=top,
    )


def alpha_bars(trace: AttentionTrace, i: int) -> svg.Svg:
    """Step 8: query i's attention weights α_i1 … α_in as bars over the keys (masked keys: "—"). ``i``
    is a row of the trace's queries."""
    labels = token_labels(trace.tokens)
    query, position = query_labels(trace)[i], trace.query_positions[i] + 1
    row = trace.weights[i]  # [n]
    numbers = [format_number(a) if allowed else MASKED_TEXT for a, allowed in zip(row, trace.mask[i], strict=True)]
    return svg.bars(
        labels, [svg.Series("α", row.tolist(), svg.colours("weights", row), numbers if trace.n <= 24 else None)],
        title=t("α for query “{query}” (position {position}); the bars sum to 1", query=query, position=position),
        x_title=t("key j"), y_title="α_ij",
        y_range=(0.0, 1.0),
    )


def weighted_sum_figure(trace: AttentionTrace, i: int) -> svg.Svg:
    """Step 8: each term α_ij·v_j as a row, and their sum, which is output row i (the table's rows)."""
    frame = weighted_sum_frame(trace, i)  # [n + 1, d_k]
    query = query_labels(trace)[i]
    return heatmap(
        frame.to_numpy(), row_labels=row_names(frame), col_labels=list(frame.columns),
        title=t("Σⱼ αᵢⱼ·vⱼ for query “{query}”  [{terms} + sum]", query=query,
                terms=nt("{n} term", "{n} terms", trace.n)),
        row_title=t("term"), col_title=t("dimension"), decimals=weighted_sum_decimals(trace, i),
    )
