"""The main lesson: Att(Q, K, V) = softmax(Q·Kᵀ / √d_k)·V on the learner's sentence, in eight steps.

Every number shown comes from one engine trace; nothing is recomputed here.
"""

import streamlit as st

from attention import PRESETS, trace_self_attention
from ui import components as ui
from ui.settings import shared, trace_or_explain
from ui.walkthrough import render_steps

PRESET_NAMES = {"random": "Seeded random", "identity": "Identity (W = I)"}

st.title("Self-attention, step by step")
ui.lesson("walkthrough/00_intro")

d_k = st.sidebar.slider("d_k (query, key and value size)", 1, 16, value=4, key="d_k", bind="query-params")
preset = st.sidebar.radio(
    "W_Q, W_K, W_V", PRESETS, format_func=PRESET_NAMES.get, key="preset", bind="query-params",
    help="Seeded random: entries ~ N(0, 1/d_model). Identity: Q = K = V = X, pure similarity.",
)
render_steps(trace_or_explain(shared(), trace_self_attention, d_k=d_k, preset=preset))
