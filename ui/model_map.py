"""The model map under a step's heading (issue 36): where the open step sits in a model, its parts with the trace's
shapes, "you are here" marked; a click on a step's part (or Enter on it) opens that step. Built by viz/model_map.py,
drawn by static/map.js (an st.components.v2 component: its buttons are the page's own, reachable with Tab)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import streamlit as st

from attention import AttentionTrace
from ui import arrival, view
from ui.walkthrough import STEPS, steps_for
from viz import model_map as M

_COMPONENT = st.components.v2.component(
    "attention_lab.model_map", js=view.loader("map.js", "map.css", ("map.js", "map.css", "dom.js")),
    isolate_styles=False)


def show(data: dict, *, key: str, on_step: Callable[[int], None]) -> None:
    """Draw the map ``data`` (``.st-key-map-<key>``); ``on_step(step)`` runs before the next run when a part with a
    step is chosen."""
    _COMPONENT(key=f"map-{key}", data=data,
               on_chosen_change=lambda: on_step(int(st.session_state[f"map-{key}"]["chosen"])))


def walkthrough(trace: AttentionTrace, current: int | None) -> None:
    """The walkthrough's map: one head inside the faded rest of a full model; a part opens its step (one step at a
    time) or scrolls to it (all steps on one page, ``current`` None)."""
    show(M.lesson_map(trace, [title for title, _, _ in STEPS], current), key="walkthrough", on_step=_walkthrough_step)


def _walkthrough_step(step: int) -> None:
    if not st.session_state.get("all_steps"):
        st.session_state["step"] = step
    arrival.go(f"step-{step}")


def multihead(trace: AttentionTrace, heads: int, current: int) -> None:
    """The multi-head page's map: the open head's steps 3–8 (the menu's), its layer's heads, concatenation and W_O,
    inside the faded rest of a full model."""
    show(M.lesson_map(trace, [title for title, _, _ in STEPS], current, heads=heads, opens=range(3, len(STEPS) + 1)),
         key="multihead", on_step=partial(_open, "head_step", "head-"))


def real(trace: AttentionTrace, info, layer: int, head: int, current: int) -> None:
    """A real model's own map: its layers and heads, the open head's steps (RoPE for the decoder)."""
    show(M.real_map(trace, [title for title, _, _ in steps_for(trace)], current, info, layer, head), key="real",
         on_step=partial(_open, "rm_step", "rm-"))


def _open(key: str, prefix: str, step: int) -> None:
    st.session_state[key] = step
    arrival.go(f"{prefix}step-{step}")
