"""The main lesson: Att(Q, K, V) = softmax(Q·Kᵀ / √d_k)·V on the learner's sentence, in eight steps.

Every number shown comes from one engine trace; nothing is recomputed here. Step 3 also holds the
hand editors of W_Q, W_K and W_V, which feed the trace, so the page lays out steps 1–2 in a
container first and fills it once the trace exists. Presenter mode shows one step a screen.
"""

import streamlit as st

from attention import PRESETS, preset_projections, trace_self_attention
from ui import components as ui
from ui.exercises import exercise_panel
from ui.exports import export_panel
from ui.links import PRESET_LABELS
from ui.matrix_editor import current_edits, edited_projections
from ui.presenter import presenter_controls
from ui.settings import shared, trace_or_explain
from ui.walkthrough import render_steps, step_intro

settings = shared()
d_k = st.sidebar.slider("d_k (query, key and value size)", 1, 16, value=4, key="d_k", bind="query-params")
preset = st.sidebar.radio(
    "W_Q, W_K, W_V", PRESETS, format_func=PRESET_LABELS.get, key="preset", bind="query-params",
    help="Seeded random: entries ~ N(0, 1/d_model). Identity: Q = K = V = X when d_k = d_model (otherwise "
         "the first d_k coordinates of X), pure similarity.",
)
presenting = st.sidebar.toggle("Presenter mode", key="present", bind="query-params",
                               help="One step a screen with large type, for a projector.")
basis = (settings.d_model, d_k, preset, settings.seed)
preset_matrices = preset_projections(preset, settings.d_model, d_k, settings.seed)


def presentation() -> None:
    """One step a screen (presenter mode)."""
    step = presenter_controls()
    edits = current_edits(preset_matrices, basis=basis)
    trace = trace_or_explain(settings, trace_self_attention, d_k=d_k, preset=preset, projections=edits)
    render_steps(trace, first=step, last=step)


def lesson() -> None:
    """All eight steps, the editor in step 3, the exercises and the downloads."""
    st.title("Self-attention, step by step")
    ui.lesson("walkthrough/00_intro")
    steps_1_2 = st.container()
    step_intro(3)
    with st.expander("Edit W_Q, W_K, W_V by hand", icon=":material/edit:", expanded="w" in st.query_params):
        edits = edited_projections(preset_matrices, basis=basis)
    if edits is not None:
        st.info("These are your hand-edited matrices; every step below uses them. “Reset to the preset” in the "
                "editor brings back the preset.", icon=":material/edit:")
    trace = trace_or_explain(settings, trace_self_attention, d_k=d_k, preset=preset, projections=edits)
    with steps_1_2:
        exercise_panel(trace)
        render_steps(trace, last=2)
    render_steps(trace, first=3, last=3, intro=False)
    render_steps(trace, first=4)
    export_panel(trace)


# No st.stop() here: it would also stop app.py, which draws the share-link box after the page.
if presenting:
    presentation()
else:
    lesson()
