"""Hand-editable W_Q, W_K, W_V on the walkthrough.

The learner edits each matrix cell by cell, or pastes a block of cells, in ``st.data_editor``.
Cells are text, so anything can be typed. ``parse_edits`` (pure, tested without a server) keeps
the last good matrix and names every cell it refuses. An edit survives a sentence change while
d_model and d_k stay the same. A new d_model, d_k, preset or seed resets the matrices and says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import pandas as pd
import streamlit as st

from attention import Projections
from viz.labels import dim_labels

BOUND = 100.0  # |entry| ≤ BOUND: beyond it the softmax saturates and the numbers stop teaching anything
NAMES = ("W_Q", "W_K", "W_V")
_STATE = "_matrix_edits"  # not a widget key: it survives reruns and page switches


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


def parse_edits(name: str, current: npt.ArrayLike, shown: pd.DataFrame, edited: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
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
            where = f"{name} row {r + 1}, column {c + 1}"
            try:
                value = float(text.replace("−", "-").replace(",", "."))
            except ValueError:
                errors.append(f"{where}: “{text}” is not a number." if text else f"{where} is empty.")
                continue
            if math.isnan(value):
                errors.append(f"{where}: NaN is not a number you can multiply by.")
            elif math.isinf(value):
                errors.append(f"{where}: infinity can't be used; keep entries within ±{BOUND:g}.")
            elif abs(value) > BOUND:
                errors.append(f"{where}: {text} is beyond the bound ±{BOUND:g}.")
            else:
                new[r, c] = value
    return (np.array(current, dtype=np.float64), errors) if errors else (new, [])


@dataclass
class EditState:
    basis: tuple  # (d_model, d_k, preset, seed): what the matrices were made for
    matrices: dict[str, np.ndarray]
    edited: bool = False
    version: int = 0  # part of the editors' keys: a new version starts them afresh
    notes: list[str] = field(default_factory=list)


def _reset(state: EditState, preset: Projections) -> None:
    state.matrices = dict(zip(NAMES, (np.array(w) for w in preset), strict=True))
    state.edited = False
    state.version += 1


def current_edits(basis: tuple) -> Projections | None:
    """The hand-edited matrices without drawing the editors (presenter mode), if they fit ``basis``."""
    state: EditState | None = st.session_state.get(_STATE)
    if state is None or not state.edited or state.basis != basis:
        return None
    return Projections(*(state.matrices[name] for name in NAMES))


def edited_projections(preset: Projections, *, basis: tuple, key: str = "edit") -> Projections | None:
    """Draw the three editors; return the hand-edited matrices, or None while they equal the preset."""
    state: EditState | None = st.session_state.get(_STATE)
    if state is None:
        state = EditState(basis=basis, matrices={})
        _reset(state, preset)
        st.session_state[_STATE] = state
    elif state.basis != basis:
        if state.edited:
            st.info("The hand-edited matrices were reset to the preset, because d_model, d_k, the preset or the "
                    "seed changed (a matrix must be d_model × d_k).", icon="↩️")
        state.basis = basis
        _reset(state, preset)

    st.caption(f"Click a cell to type a number, or paste a block of cells. Entries must be numbers within "
               f"±{BOUND:g}. An edit lasts while d_model and d_k stay the same.")
    columns = st.columns(3)
    for column, name in zip(columns, NAMES, strict=True):
        with column:
            st.markdown(f"**{name}** [{preset[0].shape[0]} × {preset[0].shape[1]}]")
            shown = matrix_text(state.matrices[name])
            edited = st.data_editor(shown, key=f"{key}-{name}-{state.version}", width="stretch")
            matrix, errors = parse_edits(name, state.matrices[name], shown, edited)
            for error in errors:
                st.error(error + " The last good matrix stays in use.", icon="⛔")
            if not errors and not np.array_equal(matrix, state.matrices[name]):
                state.matrices[name] = matrix
                state.edited = True
    st.button("Reset to the preset", key=f"{key}-reset", on_click=_reset, args=(state, preset),
              disabled=not state.edited)
    if not state.edited:
        return None
    return Projections(*(state.matrices[name] for name in NAMES))
