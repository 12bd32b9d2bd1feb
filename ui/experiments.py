"""The √d_k lesson's experiment over many random rows, cached for every learner with the same d_k and
seed (in a module, not the page: see ui/models.py on functions defined in page scripts)."""

from __future__ import annotations

import streamlit as st

from attention.scaling import ExampleRow, SaturationStats, median_row, saturation_stats

KEYS, ROWS = 8, 401  # each random row: one query against KEYS keys; ROWS rows at each d_k (odd: the median of the
# rows' largest weights is one row's, the page's example)


@st.cache_data(max_entries=64, max_size="20MB", show_spinner=False)
def saturation(d_k: int, seed: int) -> SaturationStats:
    """The same numbers for every learner with this d_k and seed: safe to share between sessions."""
    return saturation_stats(d_k, ROWS, KEYS, seed)


@st.cache_data(max_entries=64, max_size="4MB", show_spinner=False)
def example(d_k: int, seed: int) -> ExampleRow:
    """The page's example: the median row of ``saturation(d_k, seed)``'s rows by their unscaled largest weight."""
    return median_row(d_k, ROWS, KEYS, seed)
