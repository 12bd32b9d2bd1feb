"""Presenter mode: the walkthrough as slides, one step a screen, for a projector at 1280×720."""

from __future__ import annotations

import streamlit as st

from ui.walkthrough import STEPS

# Our own static CSS (no user text): larger type for the back of the room.
PRESENTER_CSS = """
<style>
[data-testid="stMainBlockContainer"] p, [data-testid="stMainBlockContainer"] li { font-size: 1.3rem; }
[data-testid="stMainBlockContainer"] h3 { font-size: 2.1rem; }
[data-testid="stMainBlockContainer"] td, [data-testid="stMainBlockContainer"] th { font-size: 1.15rem; }
</style>
"""


def _move(delta: int) -> None:
    st.session_state["step"] = min(len(STEPS), max(1, int(st.session_state.get("step", 1)) + delta))


def presenter_controls() -> int:
    """Previous / "Step n of N" with a jump menu / Next. The step is in the URL, so it survives a
    reload and can be shared."""
    st.html(PRESENTER_CSS)
    left, middle, right = st.columns([1, 3, 1], vertical_alignment="center")
    with middle:  # first: on a link's first run the step exists only once this widget has read the URL
        step = st.selectbox("Go to step", range(1, len(STEPS) + 1), key="step", bind="query-params",
                            help="Jump to any step; the step number is part of the link.")
    current = int(step or 1)
    left.button("Previous", key="prev_step", on_click=_move, args=(-1,), disabled=current <= 1,
                icon=":material/arrow_back:", width="stretch")
    right.button("Next", key="next_step", on_click=_move, args=(1,), disabled=current >= len(STEPS),
                 icon=":material/arrow_forward:", icon_position="right", width="stretch")
    return current
