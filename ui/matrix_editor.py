"""Hand-editable W_Q, W_K, W_V on the walkthrough.

The learner edits each matrix cell by cell, or pastes a block of cells, in ``st.data_editor``.
Cells are text, so anything can be typed. ``parse_edits`` (pure, tested without a server) keeps
the last good matrix and names every cell it refuses. An edit survives a sentence change while
d_model, d_k, the preset and the seed stay the same; a new one resets the matrices and says so (and a class's next
lesson replaces a student's edits: ``ui.classmode.apply``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import pandas as pd
import streamlit as st

from attention import Projections
from ui.components import in_a_class, text_box
from viz.i18n import N_, clauses, decimal, nt, t
from viz.labels import dim_labels, markdown_text

QUOTED_CHARS = 40  # a refused entry is quoted up to this long
BOUND = 100.0  # |entry| ≤ BOUND: beyond it the softmax saturates and the numbers stop teaching anything
NAMES = ("W_Q", "W_K", "W_V")
RESET = N_("Reset to the preset")
EDIT_STATE = "_matrix_edits"  # not a widget key: it survives reruns and page switches


def cell_text(x: float) -> str:
    """A matrix entry as editable text: 4 decimals, trailing zeros trimmed ("0.5", "-1.2346")."""
    text = f"{x:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def matrix_text(m: npt.ArrayLike) -> pd.DataFrame:
    """The editable table of a [d_model, d_k] matrix: rows input dims, columns output dims, text cells."""
    m = np.asarray(m, dtype=np.float64)
    return pd.DataFrame(
        [[cell_text(x) for x in row] for row in m], index=dim_labels(m.shape[0]), columns=dim_labels(m.shape[1])
    )


def parse_entry(text: str, where: str) -> tuple[float | None, str | None]:
    """One typed entry: (value, None) if usable, else (None, a message that names ``where``)."""
    quoted = text if len(text) <= QUOTED_CHARS else text[: QUOTED_CHARS - 1] + "…"  # a 10,000-character paste
    try:
        value = float(text.replace("−", "-").replace(",", "."))
    except ValueError:
        return None, (t("{where}: “{text}” is not a number.", where=where, text=quoted) if text
                      else t("{where} is empty.", where=where))
    if math.isnan(value):
        return None, t("{where}: NaN is not a number you can multiply by.", where=where)
    if math.isinf(value):
        return None, t("{where}: infinity can't be used; keep entries within {bound}.", where=where,
                       bound=f"±{BOUND:g}")
    if abs(value) > BOUND:
        return None, t("{where}: {text} is beyond the bound {bound}.", where=where, text=quoted, bound=f"±{BOUND:g}")
    return value + 0.0, None  # −0 is 0: the link leaves an unchanged cell out, so −0 must not differ from it


def parse_edits(
    name: str, current: npt.ArrayLike, shown: pd.DataFrame, edited: pd.DataFrame
) -> tuple[np.ndarray, list[str]]:
    """Apply the cells the learner changed to ``current``; refuse the ones that can't be used.

    A changed cell must parse as a finite number with |x| ≤ BOUND. Unchanged cells keep their full
    precision (the table shows them rounded).

    Parameters
    ----------
    current : [d_model, d_k], the last good matrix
    shown : the table as it was offered (``matrix_text(current)``)
    edited : the table as the editor returned it

    Returns
    -------
    (the new matrix, messages); the new matrix is ``current`` unchanged if any cell was refused.
    """
    new = np.array(current, dtype=np.float64)
    errors: list[str] = []
    for r in range(new.shape[0]):
        for c in range(new.shape[1]):
            raw = edited.iat[r, c]
            text = "" if raw is None or (isinstance(raw, float) and math.isnan(raw)) else str(raw).strip()
            if text == shown.iat[r, c]:
                continue
            value, error = parse_entry(text, t("{matrix} row {row}, column {column}", matrix=name, row=r + 1,
                                               column=c + 1))
            if error:
                errors.append(error)
            else:
                new[r, c] = value
    return (np.array(current, dtype=np.float64), errors) if errors else (new, [])


MAX_PASTE_CHARS = 20_000  # a 16 × 16 block needs under 3,000; more is a paste gone wrong
_SPLIT = re.compile(r"[\t;]|,(?=\s)|\s+")  # cells: tabs (a spreadsheet's copy), semicolons, ", " or spaces


def paste_block(name: str, current: npt.ArrayLike, text: str) -> tuple[np.ndarray | None, list[str], list[str]]:
    """A pasted block of numbers written over ``current`` from its top-left cell.

    Rows are lines; cells are split by tabs (what a spreadsheet copies), semicolons, ", " or spaces
    (a lone comma is a decimal comma, as the grid reads it). What lies outside the matrix is cut and
    the message says which rows and columns; a block smaller than the matrix changes only its cells.

    Returns
    -------
    (the new matrix, or None if nothing can be applied; notes on what was used and cut; errors).
    Any refused cell refuses the whole block, so a half-applied paste never happens.
    """
    m = np.array(current, dtype=np.float64)
    rows_n, cols_n = m.shape
    lines = [line for line in text.strip("\n").splitlines() if line.strip()]
    block = [[cell for cell in _SPLIT.split(line.strip()) if cell] for line in lines]
    if not block:
        return None, [], [t("The block for {matrix} is empty: paste rows of numbers, one row a line.",
                            matrix=name)]
    width = max(len(row) for row in block)
    errors = []
    for r, row in enumerate(block[:rows_n]):
        for c, cell in enumerate(row[:cols_n]):
            where = t("{matrix} row {row}, column {column} of the block", matrix=name, row=r + 1, column=c + 1)
            value, error = parse_entry(cell, where)
            if error:
                errors.append(error)
            else:
                m[r, c] = value
    if errors:
        return None, [], [*errors, t("Nothing of the block was applied to {matrix}.", matrix=name)]
    used_rows, used_cols = min(len(block), rows_n), min(width, cols_n)
    notes = [t("{matrix}: used rows 1–{rows} and columns 1–{columns} of the {height} × {width} block.", matrix=name,
               rows=used_rows, columns=used_cols, height=len(block), width=width)]
    shape = {"matrix": name, "height": rows_n, "width": cols_n}
    cut_rows = {"first": rows_n + 1, "last": len(block)}
    cut_columns = {"first_column": cols_n + 1, "last_column": width}
    if len(block) > rows_n and width > cols_n:
        notes.append(t("Cut: rows {first}–{last} and columns {first_column}–{last_column}, because {matrix} is "
                       "{height} × {width} (d_model × d_k).", **shape, **cut_rows, **cut_columns))
    elif len(block) > rows_n:
        notes.append(t("Cut: rows {first}–{last}, because {matrix} is {height} × {width} (d_model × d_k).",
                       **shape, **cut_rows))
    elif width > cols_n:
        notes.append(t("Cut: columns {first_column}–{last_column}, because {matrix} is {height} × {width} "
                       "(d_model × d_k).", **shape, **cut_columns))
    return m, notes, []


LINK_STATE = "_w_link"  # the session key that holds the hand-edited cells as a link writes them (w=…)
LINK_PATTERN = re.compile(r"[QKV]\d{1,2}\.\d{1,2}:[^;:]{1,25}(;[QKV]\d{1,2}\.\d{1,2}:[^;:]{1,25})*")
# The longest w=… the app can write: every cell of three 16 × 16 matrices, "Q16.16:" and 25 characters each.
MAX_EDITS_CHARS = 3 * 16 * 16 * (len("Q16.16:") + 25 + 1)


def encode_edits(matrices: dict[str, np.ndarray], preset: Projections) -> str:
    """The cells that differ from the preset, compactly: "Q1.1:5.0;K2.3:-0.25" (rows and columns from 1).

    The link also carries d_model, d_k, the preset and the seed, which rebuild the preset, so the
    changed cells are all it needs; values are written exactly (Python's shortest round-trip form).
    """
    parts = []
    for letter, name, base in zip("QKV", NAMES, preset, strict=True):
        for r, c in np.argwhere(matrices[name] != np.asarray(base)):
            parts.append(f"{letter}{r + 1}.{c + 1}:{float(matrices[name][r, c])!r}")
    return ";".join(parts)


def decode_edits(text: str, shape: tuple[int, int]) -> tuple[list[tuple[str, int, int, float]], list[str]]:
    """The cells of an ``encode_edits`` string that fit a d_model × d_k matrix, and a message for each
    part that doesn't."""
    if not LINK_PATTERN.fullmatch(text):
        return [], [t("The link's edited matrices (w=…) are not in the form Q1.1:5;K2.3:-0.5, so they were "
                      "ignored.")]
    cells, errors = [], []
    for part in text.split(";"):
        where, value_text = part.split(":")
        name = {"Q": "W_Q", "K": "W_K", "V": "W_V"}[where[0]]
        r, c = (int(x) for x in where[1:].split("."))
        if not (1 <= r <= shape[0] and 1 <= c <= shape[1]):
            errors.append(t("The link edits {matrix} row {row}, column {column}, outside the {height} × {width} "
                            "matrix; that cell was ignored.", matrix=name, row=r, column=c, height=shape[0],
                            width=shape[1]))
            continue
        value, error = parse_entry(value_text, t("The link's {matrix} row {row}, column {column}", matrix=name,
                                                 row=r, column=c))
        if error:
            errors.append(t("{error} That cell was ignored.", error=error))
        else:
            cells.append((name, r - 1, c - 1, value))
    return cells, errors


@dataclass
class EditState:
    basis: tuple  # (d_model, d_k, preset, seed): what the matrices were made for
    matrices: dict[str, np.ndarray]
    edited: bool = False
    version: int = 0  # part of the editors' keys: a new version starts them afresh
    notes: list[str] = field(default_factory=list)
    paste_messages: list[tuple[str, str]] = field(default_factory=list)  # ("info" | "error", text), last paste


def _reset(state: EditState, preset: Projections) -> None:
    state.matrices = dict(zip(NAMES, (np.array(w) for w in preset), strict=True))
    state.edited = False
    state.version += 1
    state.paste_messages = []


def _state(preset: Projections, basis: tuple) -> EditState:
    """The session's edit state for ``basis``: started from the link's cells on a session's first
    run, reset (and said so) when the basis changed."""
    state: EditState | None = st.session_state.get(EDIT_STATE)
    if state is None:
        state = EditState(basis=basis, matrices={})
        _reset(state, preset)
        st.session_state[EDIT_STATE] = state
        link = st.session_state.get(LINK_STATE)  # the link's w=…, read by ui.links on the session's first run
        if link:
            cells, state.notes = decode_edits(link, np.asarray(preset[0]).shape)
            for name, r, c, value in cells:
                state.matrices[name][r, c] = value
            state.edited = any(not np.array_equal(state.matrices[n], np.asarray(w))
                               for n, w in zip(NAMES, preset, strict=True))
    elif state.basis != basis:
        if state.edited:
            st.info(t("The hand-edited matrices were reset to the preset, because d_model, d_k, the preset or the "
                      "seed changed (a matrix must be d_model × d_k)."), icon="↩️")
        state.basis = basis
        _reset(state, preset)
    return state


def _sync_link(state: EditState, preset: Projections) -> None:
    """Keep the edited cells where the link reads them (ui.links writes them into the URL as w=…)."""
    st.session_state[LINK_STATE] = encode_edits(state.matrices, preset) if state.edited else None


def hand_edited(basis: tuple) -> bool:
    """Whether this run's trace used hand-edited matrices (read after the lesson has drawn its steps)."""
    state: EditState | None = st.session_state.get(EDIT_STATE)
    return state is not None and state.basis == basis and state.edited


def _edits(state: EditState) -> Projections | None:
    return Projections(*(state.matrices[name] for name in NAMES)) if state.edited else None


def _apply_paste(state: EditState, key: str) -> None:
    name = st.session_state.get(f"{key}-paste-into") or NAMES[0]
    matrix, notes, errors = paste_block(name, state.matrices[name], st.session_state.get(f"{key}-paste") or "")
    state.paste_messages = [("error", e) for e in errors] + [("info", n) for n in notes]
    if matrix is not None:
        state.matrices[name] = matrix
        state.edited = True
        state.version += 1  # the grids are drawn afresh with the pasted cells


def _paste_box(state: EditState, key: str) -> None:
    """A box for a block copied from a spreadsheet. The grids drop whatever lies outside them
    without a word (Streamlit's grid keeps its size); this box says what it used and what it cut."""
    left, right = st.columns([1, 3], vertical_alignment="bottom")
    left.selectbox(t("Paste a block into"), NAMES, key=f"{key}-paste-into")
    text_box(t("Block"), key=f"{key}-paste", limit=MAX_PASTE_CHARS, area=True, container=right, height=90,
             placeholder=t("Rows on lines, cells split by tabs (a spreadsheet's copy), spaces or semicolons"))
    st.button(t("Apply the block"), key=f"{key}-paste-apply", on_click=_apply_paste, args=(state, key))
    for kind, message in state.paste_messages:
        (st.error if kind == "error" else st.info)(markdown_text(message))  # quotes the pasted text


def current_edits(preset: Projections, *, basis: tuple) -> Projections | None:
    """The hand-edited matrices without drawing the editors (presenter mode)."""
    state = _state(preset, basis)
    _sync_link(state, preset)
    return _edits(state)


EDITED_SHOWN = 6  # edited cells named under a grid; more are counted


def edited_cells(matrix: np.ndarray, preset: np.ndarray) -> str:
    """The cells of ``matrix`` that differ from the preset's, as a caption ("" when none): the grid itself
    cannot mark a cell, and an edit was otherwise invisible among the other numbers."""
    rows, cols = np.nonzero(matrix != preset)
    if rows.size == 0:
        return ""
    def pair(a: float, b: float) -> tuple[str, str]:  # as the grid writes them, or closer where those agree
        return (cell_text(a), cell_text(b)) if cell_text(a) != cell_text(b) else (repr(float(a)), repr(float(b)))

    shown = [(r, c, *pair(matrix[r, c], preset[r, c])) for r, c in zip(rows[:EDITED_SHOWN], cols[:EDITED_SHOWN],
                                                                        strict=True)]
    def written(number: str) -> str:  # as the reader's language writes a number: 0,5 and a true minus sign
        return decimal(number).replace("-", "−")

    named = [t("row {row}, column {column}: {now} (preset {was})", row=r + 1, column=c + 1, now=written(now),
               was=written(was)) for r, c, now, was in shown]
    cells = clauses(named)
    if rows.size > EDITED_SHOWN:
        return nt("Edited by hand ({n} cell): {cells}; and {more} more.", "Edited by hand ({n} cells): {cells}; and "
                  "{more} more.", int(rows.size), cells=cells, more=rows.size - EDITED_SHOWN)
    return nt("Edited by hand ({n} cell): {cells}.", "Edited by hand ({n} cells): {cells}.", int(rows.size),
              cells=cells)


def edited_projections(preset: Projections, *, basis: tuple, key: str = "edit") -> Projections | None:
    """Draw the three editors; return the hand-edited matrices, or None while they equal the preset."""
    state = _state(preset, basis)
    while state.notes:
        st.warning(markdown_text(state.notes.pop(0)), icon=":material/link_off:")  # quotes the link
    st.caption(t("Click a cell to type a number, or paste a block of cells. Entries must be numbers within "
                 "{bound}. An edit lasts while d_model, d_k, the preset and the seed stay the same. A block bigger "
                 "than a matrix: paste it into the box below the grids, which says what it used and what it cut.",
                 bound=f"±{BOUND:g}"))
    if in_a_class():  # ui.classmode.apply puts the class's matrices back when it applies the class's lesson
        st.caption(t("In a class, your page replaces these edits when it next takes your teacher's lesson."))
    # side by side only while each grid shows all its columns there (at 1280 px an [8 × 4] grid in a third of
    # the page showed 3½ columns; issue 34); otherwise one under another
    d_k = preset[0].shape[1]
    columns = st.columns(3) if d_k <= 2 else [st.container() for _ in NAMES]
    for column, name, original in zip(columns, NAMES, preset, strict=True):
        with column:
            st.markdown(f"**{name}** [{preset[0].shape[0]} × {d_k}]")
            shown = matrix_text(state.matrices[name])
            edited = st.data_editor(shown, key=f"{key}-{name}-{state.version}", width="stretch")
            matrix, errors = parse_edits(name, state.matrices[name], shown, edited)
            for error in errors:
                st.error(markdown_text(t("{error} The last good matrix stays in use.", error=error)),  # quotes it
                         icon="⛔")
            if not errors and not np.array_equal(matrix, state.matrices[name]):
                state.matrices[name] = matrix
                state.edited = True
            changed = edited_cells(state.matrices[name], np.asarray(original))
            if changed:
                st.caption(changed)
    _paste_box(state, key)
    st.button(t(RESET), key=f"{key}-reset", on_click=_reset, args=(state, preset),
              disabled=not state.edited)
    _sync_link(state, preset)
    return _edits(state)
