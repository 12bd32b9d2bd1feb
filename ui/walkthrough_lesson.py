"""The walkthrough page's flow: one step at a time or all eight, the hand editor in step 3, the questions
each step's numbers answer, and downloads. The page (lessons/walkthrough.py) draws its controls and calls these.

Functions here, not in the page: a function defined in a page script keeps that run's globals in a
reference cycle that only a full garbage collection frees (see ui/models.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import streamlit as st

from attention import AttentionTrace, Projections, trace_self_attention
from ui import arrival, bridge, model_map
from ui import components as ui
from ui.exercises import offer_to_class, step_questions
from ui.exports import export_panel
from ui.matrix_editor import RESET, current_edits, edited_projections
from ui.presenter import EDITOR_STEP, next_step_button, step_controls
from ui.settings import Shared, trace_or_explain
from ui.walkthrough import STEPS, render_steps, step_intro, step_more
from viz.exercises import make_questions
from viz.i18n import t

BRIDGED_STEP = 7  # all steps on one page: the step "the same step in a trained model" opens


@dataclass(frozen=True)
class Choice:
    """What the page's controls chose: the shared settings, d_k, the preset and its matrices."""

    settings: Shared
    d_k: int
    preset: str
    matrices: Projections  # the preset's W_Q, W_K, W_V

    @property
    def basis(self) -> tuple:
        """What the hand edits were made on: a change of any of these resets them."""
        return (self.settings.d_model, self.d_k, self.preset, self.settings.seed)

    def trace(self, edits: Projections | None) -> AttentionTrace:
        return trace_or_explain(self.settings, trace_self_attention, d_k=self.d_k, preset=self.preset,
                                projections=edits)


def editor(choice: Choice) -> Projections | None:
    """Step 3's hand editors; their edits feed every step."""
    # lazy: a closed editor builds no grids (and the browser loads no grid code for it)
    # open at first for a link with edited cells; fixed for the session: a changed ``expanded`` is a new
    # element to Streamlit, which then closed the editor on the next run after "Reset to the preset"
    opened_by_link = st.session_state.setdefault("_editor_opened_by_link", bool(st.session_state.get("_w_link")))
    with ui.lazy_expander(t("Edit W_Q, W_K, W_V by hand"), key="editor", icon=":material/edit:",
                          expanded=opened_by_link) as box:
        edits = (edited_projections if box.open else current_edits)(choice.matrices, basis=choice.basis)
    if edits is not None:
        st.info(t("These are your hand-edited matrices; every step uses them. “{reset}” in the editor brings back "
                  "the preset.", reset=t(RESET)), icon=":material/edit:")
    return edits


def one_step(choice: Choice, step: int, *, questions: bool = True, presenting: bool = False) -> AttentionTrace:
    """The open step only; the editor only when step 3 is open; then the questions its numbers answer. The step's
    chart comes right after its heading, the map's line and the text's lead (in presenter mode none of the text:
    the teacher tells it); the rest of the text is under the step's charts (issue 47)."""
    arrival.linked("step", f"step-{step}")  # a link that names its step opens there, its chart in view
    map_slot = step_intro(step, map_slot=True, text="none" if presenting else "lead")
    edits = editor(choice) if step == EDITOR_STEP else current_edits(choice.matrices, basis=choice.basis)
    if edits is not None and step != EDITOR_STEP:
        st.caption(t("Using your hand-edited W_Q, W_K, W_V (step 3 has the editor)."))
    trace = choice.trace(edits)
    with map_slot:
        model_map.walkthrough(trace, step)
    render_steps(trace, first=step, last=step, intro=False)
    step_more(step, whole=presenting)
    bridge.changed_on_random(trace)  # under the step's charts, not between its heading and them
    if questions:
        step_questions(trace, step)
    return trace


def every_step(choice: Choice) -> AttentionTrace:
    """All eight steps on one page, as a printed handout would have them (slower to draw), each with its
    questions."""
    map_slot = st.container()
    steps_1_2 = st.container()
    step_intro(EDITOR_STEP)
    trace = choice.trace(editor(choice))
    with map_slot:
        model_map.walkthrough(trace, None)
    with steps_1_2:
        render_steps(trace, last=2)
    for step in range(EDITOR_STEP, len(STEPS) + 1):
        render_steps(trace, first=step, last=step, intro=step != EDITOR_STEP)
        if step == BRIDGED_STEP:  # once on this long page: under α, whose rows the bridge's sentence compares
            bridge.offer_trained(trace, step)
        step_questions(trace, step)
    return trace


def lesson(choice: Choice) -> None:
    """The title and intro, the exercises, the steps, and the downloads."""
    st.title(t("Self-attention, step by step"))
    ui.lesson("walkthrough/00_intro")
    all_steps = st.toggle(t("All steps on one page"), key="all_steps", persist_state="session",
                          help=t("Draw all {steps} steps at once, one under the other (slower to draw), instead of "
                                 "one step at a time.", steps=len(STEPS)))
    if all_steps:
        trace, step = every_step(choice), None
    else:
        step = step_controls()
        trace = one_step(choice, step)
        bridge.offer_trained(trace, step)
        next_step_button(step)
    offer_to_class(partial(make_questions, trace), step)
    export_panel(trace)


def present(choice: Choice) -> None:
    """Presenter mode: the open step in large type, without the intro, exercises and downloads."""
    step = step_controls(presenting=True)
    trace = one_step(choice, step, questions=False, presenting=True)  # a class answers in class mode
    offer_to_class(partial(make_questions, trace), step)
