"""Labelled DataFrames of the engine's matrices: rows and columns named after tokens or dimensions.

Every table on a page comes from here, beside the heatmap of the same matrix.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

from attention import AttentionTrace, MultiHeadTrace
from viz import arithmetic
from viz.i18n import N_, decimal, listed, nt, sentences, t
from viz.labels import (
    MASKED_TEXT,
    dim_labels,
    format_number,
    markdown_text,
    queries_only,
    query_labels,
    row_labels,
    token_labels,
)

MASKED = "masked"  # frame.attrs key: a bool frame, True where the weight is masked
ROW_AT = "row_at"  # frame.attrs key: each row's number in the sentence, where it is not its place in the table


def matrix_frame(
    m: npt.ArrayLike, *, rows: list[str], columns: list[str], rows_name: str = "", columns_name: str = ""
) -> pd.DataFrame:
    """The matrix as a DataFrame with labelled axes; values are the engine's own, unrounded."""
    frame = pd.DataFrame(np.asarray(m, dtype=np.float64), index=list(rows), columns=list(columns))
    frame.index.name = rows_name or None
    frame.columns.name = columns_name or None
    return frame


# The tables' own words (a corner's name, the columns of a frame that names them, the Σ row): named in English in the
# frames (the CSV and the tests read them so) and shown in the reader's language (``header``). A frame whose columns
# are words, not tokens, says so (``WORD_COLUMNS``); a token is never translated, even one spelt "token".
HEADERS = frozenset({N_("position i"), N_("token"), N_("id"), N_("bias"), N_("query ↓ · key →"), N_("term"),
                     N_("in \\ out"), N_("Concat dim ↓ · output dim →"), N_("rank"),
                     # a real model's tables (viz.pretrained)
                     N_("layer"), N_("head"), N_("every head on"), N_("heads switched off"), N_("drop in log p"),
                     N_("p with it off"), N_("next token"), N_("probability"),
                     # writing with a cache (viz.generation)
                     N_("written"), N_("reads"), N_("cache: M mult-adds"), N_("whole: M mult-adds"), N_("cache: ms"),
                     N_("whole: ms"), N_("cache: MB read"), N_("whole: MB read"), N_("tokens read"),
                     N_("p sampled from"), N_("token ↓ · dimension →")})


WORD_COLUMNS = "word_columns"  # frame.attrs: its columns are HEADERS words (position i, token, id)
SUM_ROW = N_("Σ = output")


def header(name: object) -> str:
    """A corner's name or a column of a ``WORD_COLUMNS`` frame as the reader's language writes it: one of ``HEADERS``
    translated, any other (a dimension's number) as it is. The Σ row: ``row_names``."""
    return t(name) if isinstance(name, str) and name in HEADERS else str(name)


def column_names(frame: pd.DataFrame) -> list[str]:
    """A frame's columns as a table shows them: translated where they are words (``WORD_COLUMNS``), else as they are
    (tokens, dimensions)."""
    return [header(c) if frame.attrs.get(WORD_COLUMNS) else str(c) for c in frame.columns]


def row_names(frame: pd.DataFrame) -> list[str]:
    """A frame's row labels as a table shows them: the Σ row translated, every other (a token) as it is."""
    return [t(r) if r == SUM_ROW else str(r) for r in frame.index]


def token_frame(trace: AttentionTrace) -> pd.DataFrame:
    """Step 1: position, token and vocabulary id, one row a token."""
    return tokens_frame(trace.tokens, trace.token_ids)


def tokens_frame(tokens: Sequence[str], ids: Sequence[int]) -> pd.DataFrame:
    """Position (from 1), token and vocabulary id, one row a token (our tokens or a real model's)."""
    frame = pd.DataFrame({"position i": range(1, len(tokens) + 1), "token": list(tokens), "id": list(ids)})
    frame.attrs[WORD_COLUMNS] = True
    return frame


def token_by_dim_frame(trace: AttentionTrace | MultiHeadTrace, m: npt.ArrayLike) -> pd.DataFrame:
    """A [n, d] matrix (X, P, Q, K, V, an output): rows are tokens, columns dimensions."""
    m = np.asarray(m)
    frame = matrix_frame(m, rows=row_labels(trace, m.shape[0]), columns=dim_labels(m.shape[1]), rows_name="token")
    return _numbered_as_queries(frame, trace)


W_O_CORNER = "Concat dim ↓ · output dim →"  # W_O's table: its rows are Concat's columns


def projection_frame(w: npt.ArrayLike, *, corner: str = "in \\ out") -> pd.DataFrame:
    """A projection: rows are input dimensions, columns output dimensions (``corner`` says so: W_O's is
    ``W_O_CORNER``)."""
    w = np.asarray(w)
    return matrix_frame(w, rows=dim_labels(w.shape[0]), columns=dim_labels(w.shape[1]), rows_name=corner)


def bias_frame(trace: AttentionTrace) -> pd.DataFrame:
    """A real head's b_Q, b_K, b_V as three rows of d_k numbers."""
    return matrix_frame(np.stack([trace.b_q, trace.b_k, trace.b_v]), rows=["b_Q", "b_K", "b_V"],
                        columns=dim_labels(trace.d_k), rows_name="bias")


def query_key_frame(trace: AttentionTrace, m: npt.ArrayLike, *, weights: bool = False) -> pd.DataFrame:
    """An [n, n] matrix (scores, weights): rows are queries, columns are keys.

    For weights under a causal mask, ``frame.attrs[MASKED]`` marks the masked cells (a bool frame
    with the same labels, so it survives row selection), and ``formatted`` shows them as "—",
    as the heatmap beside the table does. The values stay the engine's (a masked weight is 0).
    """
    frame = matrix_frame(m, rows=query_labels(trace), columns=token_labels(trace.tokens), rows_name="query ↓ · key →")
    if weights and trace.causal:
        frame.attrs[MASKED] = pd.DataFrame(~trace.mask, index=frame.index, columns=frame.columns)
    return _numbered_as_queries(frame, trace)


def _numbered_as_queries(frame: pd.DataFrame, trace) -> pd.DataFrame:
    """A cached step's rows of its queries only (the token read: token 5 of 5) keep their numbers in the sentence
    (``ROW_AT``): a tooltip wrote q_1, s_1,5 and "query “mat” (1)" for the fifth token."""
    if queries_only(trace, len(frame)):
        frame.attrs[ROW_AT] = [int(p) + 1 for p in trace.query_positions]
    return frame


def weighted_sum_frame(trace: AttentionTrace, i: int) -> pd.DataFrame:
    """Step 8: one row α_ij·v_j per key j, then the row Σ_j α_ij·v_j, which is output i."""
    labels = token_labels(trace.tokens)
    rows = [f"α·v {label}" for label in labels] + [SUM_ROW]
    m = np.vstack([trace.weighted_values[i], trace.output[i][None, :]])  # [n + 1, d_k]
    return matrix_frame(m, rows=rows, columns=dim_labels(trace.d_k), rows_name="term")


def weighted_sum_decimals(trace: AttentionTrace, i: int) -> npt.NDArray[np.int64]:
    """The decimals of each cell of ``weighted_sum_frame`` [n + 1, d_k]: a column's terms carry as many
    as it takes for them to add up to the Σ row as shown (two decimals), by ``viz.arithmetic``'s rule;
    a column where none do is marked negative (write "≈"). The Σ row has two."""
    columns = arithmetic.sums(trace.weighted_values[i].T, trace.output[i])  # [d_k]
    return np.vstack([np.broadcast_to(columns, (trace.n, trace.d_k)), np.full((1, trace.d_k), 2)])


def row_sums_text(weights: npt.ArrayLike, labels: Sequence[str], allowed: npt.ArrayLike | None = None) -> str:
    """"Every row sums to 1", and, measured on these weights, the rows whose two-decimal cells do not
    add up to 1.00 (each cell is rounded on its own). Labels are plain text: escape them for Markdown."""
    w = np.asarray(weights, dtype=np.float64)
    ok = np.ones(w.shape, dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)
    cents = np.where(ok, arithmetic.digits(arithmetic.held(w), 2), 0).sum(axis=1)  # the shown cells' sum, in 0.01s
    off = [t("“{token}” to {sum}", token=labels[r], sum=decimal(arithmetic.text(c / 100)))
           for r, c in enumerate(cents.tolist()) if c != 100]
    if not off:
        return t("Every row of α sums to 1. So do the two-decimal cells of every row here.")
    rows = listed(off[:4] + ([nt("{n} more", "{n} more", len(off) - 4)] if len(off) > 4 else []))
    return t("Every row of α sums to 1. The two-decimal cells don't always show it: those of {rows}, because each "
             "cell is rounded on its own.", rows=rows)


def weighted_sum_caption(decimals: npt.NDArray[np.int64]) -> str:
    """What the Σ table's decimals mean, for its caption (``weighted_sum_decimals``)."""
    columns = decimals[0]
    text = (t("Each term is α_ij·v_j of the unrounded α and v. Add up a column of terms and you get its Σ row (the "
              "terms carry as many decimals as that takes).") if (np.abs(columns) > 2).any() else
            t("Each term is α_ij·v_j of the unrounded α and v. Add up a column of terms and you get its Σ row."))
    approx = [str(c + 1) for c in np.flatnonzero(columns < 0)]
    if approx:
        text = sentences(text, nt("In dimension {dimensions} the exact sum sits on a rounding boundary of the Σ row: "
                                  "its terms give it only approximately (≈).",
                                  "In dimensions {dimensions} the exact sum sits on a rounding boundary of the Σ row: "
                                  "its terms give it only approximately (≈).", len(approx),
                                  dimensions=listed(approx)))
    return text


def formatted(frame: pd.DataFrame, decimals: int | None = 2, *, markdown: bool = True) -> pd.DataFrame:
    """The frame as on-screen text for ``st.table``, which renders Markdown in every cell.

    Numbers get fixed decimals (see ``format_number``); text cells, row and column labels are
    Markdown-escaped, so a token such as ">" or "[a](b)" shows as itself (``markdown=False``: for
    a data grid, which shows text as it is). ``decimals=None`` leaves numbers as they are (ids,
    positions). Cells marked in ``frame.attrs[MASKED]`` show "—".
    """
    escape = markdown_text if markdown else str

    def cell(x: object) -> object:
        if isinstance(x, str):
            return escape(x)
        if decimals is not None and isinstance(x, (float, np.floating)):
            return format_number(float(x), decimals)
        return x

    shown = frame.map(cell)
    shown.attrs = {}  # the mask is applied here; Streamlit would try to serialise it
    if MASKED in frame.attrs:
        blocked = frame.attrs[MASKED].reindex(index=frame.index, columns=frame.columns, fill_value=False)
        shown = shown.mask(blocked.to_numpy(dtype=bool), MASKED_TEXT)
    if not isinstance(frame.index, pd.RangeIndex):  # a RangeIndex is not shown
        shown.index = pd.Index([escape(str(r)) for r in frame.index], name=frame.index.name)
    shown.columns = [escape(str(c)) for c in frame.columns]
    if shown.index.name:
        shown.index.name = escape(shown.index.name)
    return shown


def markdown_table(frame: pd.DataFrame, decimals: int | None = 2) -> str:
    """The frame as one GitHub-flavoured Markdown table: the text of ``formatted(frame, decimals)``,
    row labels in bold (an unnamed RangeIndex is left out), numbers right-aligned.

    Why not ``st.table``: it renders every cell through its own Markdown pipeline, which cost
    Chromium ~50 ms for an 8 × 8 table on each rerun; the same table as one Markdown element costs
    ~13 ms (issue 9). The cells are Markdown-escaped by ``formatted`` (so "|" is "\\|" and cannot end
    a cell), and a line break inside a cell, which would end the table's row, becomes a space.
    """
    shown = formatted(frame, decimals)
    labelled = not isinstance(frame.index, pd.RangeIndex) or frame.index.name is not None  # e.g. "rank" 1…5
    numeric = [pd.api.types.is_numeric_dtype(dtype) for dtype in frame.dtypes]

    def row(cells: Sequence[object]) -> str:
        return "| " + " | ".join(" ".join(str(c).splitlines()) or " " for c in cells) + " |"

    header = ([shown.index.name or ""] if labelled else []) + list(shown.columns)
    rule = (["---"] if labelled else []) + ["--:" if right else ":--" for right in numeric]
    # stripped: "** x**" would not be bold, and would show its asterisks
    body = [row(([f"**{str(label).strip()}**" if str(label).strip() else label] if labelled else []) + values)
            for label, values in zip(shown.index, shown.to_numpy().tolist(), strict=True)]
    return "\n".join([row(header), row(rule), *body])


def one_row(frame: pd.DataFrame, i: int) -> pd.DataFrame:
    """Row ``i`` of a token's table as a table of its own, which remembers the row's number in the sentence (the
    frame's ``ROW_AT``, else i + 1): a cell's tooltip names the query by it, and a causal mask's cell says which query
    it hides a key from (it said "query 1" for every chosen query)."""
    row = frame.iloc[[i]]
    row.attrs[ROW_AT] = [frame.attrs[ROW_AT][i] if ROW_AT in frame.attrs else i + 1]
    return row
