"""Moving through the walkthrough's steps: Previous, a step menu, Next. The open step is in the link.

Only the open step is drawn (issue 9: drawing all eight at once took 4–5× a bare page). Presenter
mode is the same control with large type for a projector at 1280×720.
Keyboard: Tab reaches the buttons and the menu (arrow keys pick a step); PageUp and PageDown,
which a presentation clicker sends, go back and forward.
"""

from __future__ import annotations

import streamlit as st

from ui import arrival
from ui.walkthrough import STEPS
from viz.i18n import bound, t

EDITOR_STEP = 3  # the projections, with the hand editors of W_Q, W_K, W_V

# Our own static CSS (no user text): larger type and charts 1.4× their size (their numbers were as small as
# on a laptop), for the back of the room; a chart never wider than the page (view.css). (A table that no
# longer fits beside its heatmap goes under it: ui.components.TABLE_CSS.)
PRESENTER_CSS = """
<style>
[data-testid="stMainBlockContainer"] p, [data-testid="stMainBlockContainer"] li { font-size: 1.3rem; }
[data-testid="stMainBlockContainer"] h3 { font-size: 1.8rem; }  /* a step's title on one line at 1024 px */
[data-testid="stMainBlockContainer"] td, [data-testid="stMainBlockContainer"] th { font-size: 1.15rem; }
[data-testid="stMainBlockContainer"] { --alv-table-scale: 1.32; }  /* the view plans its tables' width with it */
[data-testid="stMainBlockContainer"] .alv { font-size: 1.15rem; }
[data-testid="stMainBlockContainer"] .alv-figure img { width: calc(var(--alv-w) * 1.4); }
/* the charts drawn as images (step 8's α bars, the lines of the head view) as large as the view's */
[data-testid="stMainBlockContainer"] [class*="st-key-fig-"] [data-testid="stImage"] { zoom: 1.4; }
/* the sidebar's link to class mode wraps instead of ending in "…" */
.st-key-class_link [data-testid="stPageLink"] * { white-space: normal; overflow: visible; text-overflow: clip; }
/* the model map a little larger, not as large as the text (it would push the step below the screen); the player
   as large as the tables */
[data-testid="stMainBlockContainer"] .alm { font-size: 1rem; }
[data-testid="stMainBlockContainer"] .alm .alm-title { font-size: 1rem; }
[data-testid="stMainBlockContainer"] .alm-folded { font-size: 0.9rem; }  /* folded: the step's chart stays in view */
[data-testid="stMainBlockContainer"] .alm li { font-size: inherit; }  /* not the lesson's list items' 1.3rem */
[data-testid="stMainBlockContainer"] .alm p.alm-name,
[data-testid="stMainBlockContainer"] .alm-shape { font-size: 0.8rem; }
[data-testid="stMainBlockContainer"] .alp, [data-testid="stMainBlockContainer"] .alp p.alp-text { font-size: 1.15rem; }
</style>
"""


def _move(delta: int) -> None:
    st.session_state["step"] = min(len(STEPS), max(1, int(st.session_state.get("step", 1)) + delta))
    arrival.to_step("step")


def _to(step: int) -> None:
    """A button that names its step ("Next: step 5 · …", "Back to step 1") opens that step, however many times it is
    pressed before its run is back (pressed twice, "Next: step 5" went to step 6)."""
    st.session_state["step"] = step
    arrival.to_step("step")


def _title(number: int) -> str:
    return f"{number} · " + t(STEPS[number - 1][0])


def step_controls(*, presenting: bool = False) -> int:
    """Previous / "Go to step" menu / Next; returns the open step (1-based)."""
    if presenting:
        st.html(PRESENTER_CSS)
    left, middle, right = st.columns([3, 4, 3], vertical_alignment="bottom")  # room for "Next  PageDown"
    with middle:
        step = st.selectbox(t("Go to step (of {steps})", steps=len(STEPS)), range(1, len(STEPS) + 1), key="step",
                            format_func=bound(_title), persist_state="session", on_change=arrival.to_step,
                            args=("step",),
                            help=t("Jump to any step; the open step is part of the link."))
    current = int(step or 1)
    left.button(t("Previous"), key="prev_step", on_click=_move, args=(-1,), disabled=current <= 1,
                icon=":material/arrow_back:", width="stretch", shortcut="PageUp")
    right.button(t("Next"), key="next_step", on_click=_move, args=(1,), disabled=current >= len(STEPS),
                 icon=":material/arrow_forward:", icon_position="right", width="stretch", shortcut="PageDown")
    return current


def next_step_button(current: int) -> None:
    """At the end of a step: go on to the next one (the learner has just scrolled down to here)."""
    if current < len(STEPS):
        st.button(t("Next: step {step}", step=_title(current + 1)), key="next_step_end", on_click=_to,
                  args=(current + 1,),
                  icon=":material/arrow_downward:", type="primary")
    else:
        st.button(t("Back to step 1"), key="first_step_end", on_click=_to, args=(1,),
                  icon=":material/first_page:")
