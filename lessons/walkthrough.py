"""The main lesson: Att(Q, K, V) = softmax(Q·Kᵀ / √d_k)·V on the learner's sentence, in eight steps.

Every number shown comes from one engine trace; nothing is recomputed here. One step is drawn at a
time (Previous / Next / a step menu, the step in the link); "All steps on one page" draws all eight.
Step 3 holds the hand editors of W_Q, W_K and W_V, which feed the trace; the other steps read the
same edits without drawing the editor. Presenter mode shows the open step in large type.
"""

import streamlit as st

from attention import PRESETS, AttentionTrace, Projections, preset_projections, trace_self_attention
from ui import components as ui
from ui.exercises import exercise_panel
from ui.exports import export_panel
from ui.links import PRESET_LABELS
from ui.matrix_editor import current_edits, edited_projections
from ui.presenter import EDITOR_STEP, next_step_button, step_controls
from ui.settings import settings_popover, shared, trace_or_explain
from ui.walkthrough import STEPS, render_steps, step_intro

settings = shared()
with settings_popover("d_k and W_Q, W_K, W_V", key="walkthrough_settings"):
    d_k = st.slider("d_k (query, key and value size)", 1, 16, value=4, key="d_k", bind="query-params")
    preset = st.radio(
        "W_Q, W_K, W_V", PRESETS, format_func=PRESET_LABELS.get, key="preset", bind="query-params",
        help="Seeded random: entries ~ N(0, 1/d_model). Identity: Q = K = V = X when d_k = d_model (otherwise "
             "the first d_k coordinates of X), pure similarity.",
    )
st.sidebar.caption(f"d_k {d_k} · W_Q, W_K, W_V: {PRESET_LABELS[preset]}")
presenting = st.sidebar.toggle("Presenter mode", key="present", bind="query-params",
                               help="One step a screen with large type, for a projector.")
basis = (settings.d_model, d_k, preset, settings.seed)
preset_matrices = preset_projections(preset, settings.d_model, d_k, settings.seed)


def editor() -> Projections | None:
    """Step 3's hand editors; their edits feed every step."""
    # lazy: a closed editor builds no grids (and the browser loads no grid code for it)
    with ui.lazy_expander("Edit W_Q, W_K, W_V by hand", key="editor", icon=":material/edit:",
                          expanded="w" in st.query_params) as box:
        edits = (edited_projections if box.open else current_edits)(preset_matrices, basis=basis)
    if edits is not None:
        st.info("These are your hand-edited matrices; every step uses them. “Reset to the preset” in the "
                "editor brings back the preset.", icon=":material/edit:")
    return edits


def one_step(step: int) -> AttentionTrace:
    """The open step only; the editor only when step 3 is open."""
    step_intro(step)
    edits = editor() if step == EDITOR_STEP else current_edits(preset_matrices, basis=basis)
    if edits is not None and step != EDITOR_STEP:
        st.caption("Using your hand-edited W_Q, W_K, W_V (step 3 has the editor).")
    trace = trace_or_explain(settings, trace_self_attention, d_k=d_k, preset=preset, projections=edits)
    render_steps(trace, first=step, last=step, intro=False)
    return trace


def every_step() -> AttentionTrace:
    """All eight steps on one page, as a printed handout would have them (slower to draw)."""
    steps_1_2 = st.container()
    step_intro(EDITOR_STEP)
    edits = editor()
    trace = trace_or_explain(settings, trace_self_attention, d_k=d_k, preset=preset, projections=edits)
    with steps_1_2:
        render_steps(trace, last=2)
    render_steps(trace, first=EDITOR_STEP, last=EDITOR_STEP, intro=False)
    render_steps(trace, first=EDITOR_STEP + 1)
    return trace


def lesson() -> None:
    """The title and intro, the exercises, the steps, and the downloads."""
    st.title("Self-attention, step by step")
    ui.lesson("walkthrough/00_intro")
    exercises = st.container()  # filled once the trace exists: the editor in step 3 may change it
    all_steps = st.toggle("All steps on one page", key="all_steps", bind="query-params",
                          help=f"Draw all {len(STEPS)} steps at once, one under the other (slower to draw), "
                               "instead of one step at a time.")
    if all_steps:
        trace = every_step()
    else:
        step = step_controls()
        trace = one_step(step)
        next_step_button(step)
    with exercises:
        exercise_panel(trace)
    export_panel(trace)


# No st.stop() here: it would also stop app.py, which draws the share-link box after the page.
if presenting:
    one_step(step_controls(presenting=True))
else:
    lesson()
