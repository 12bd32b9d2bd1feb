"""The √d_k lesson's experiment over many random rows, cached for every learner with the same d_k and
seed (in a module, not the page: see ui/models.py on functions defined in page scripts)."""

from __future__ import annotations

import streamlit as st

from attention.scaling import SaturationStats, saturation_stats

KEYS, ROWS = 8, 400  # each random row: one query against KEYS keys; ROWS rows at each d_k


@st.cache_data(max_entries=64, max_size="20MB", show_spinner=False)
def saturation(d_k: int, seed: int) -> SaturationStats:
    """The same numbers for every learner with this d_k and seed: safe to share between sessions."""
    return saturation_stats(d_k, ROWS, KEYS, seed)
