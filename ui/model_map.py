"""The model map under a step's heading (issue 36): where the open step sits in a model, its parts with the trace's
shapes, "you are here" marked; a click on a step's part (or Enter on it) opens that step. Built by viz/model_map.py,
drawn by static/map.js (an st.components.v2 component: its buttons are the page's own, reachable with Tab)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import partial

import streamlit as st

from attention import AttentionTrace
from attention.cross import CrossAttentionTrace
from attention.phonebook import Lookup
from attention.pretrained.common import ModelInfo
from ui import arrival, view
from ui.bridge import TITLES, WALKTHROUGH
from ui.settings import rerun_whole_page
from ui.walkthrough import STEPS, steps_for
from viz import model_map as M
from viz.i18n import t

_COMPONENT = st.components.v2.component(
    "attention_lab.model_map", js=view.loader("map.js", "map.css", ("dom.js",)),
    isolate_styles=False)


_TO = "_map_to"  # the page a part chosen on another lesson's map opens (the walkthrough), set by its callback


def show(data: dict, *, key: str, on_step: Callable[[int], None]) -> None:
    """Draw the map ``data`` (``.st-key-map-<key>``); ``on_step(step)`` runs before the next run when a part with a
    step is chosen."""
    _COMPONENT(key=f"map-{key}", data=data,
               on_chosen_change=lambda: on_step(int(st.session_state[f"map-{key}"]["chosen"])))


def switch(*, allowed: bool = True) -> None:
    """At the top of a run (app.py): the page a part of another lesson's map asked for, unless not ``allowed`` (a
    class's student follows the class's lesson). The part's callback only records the page: the switch is made
    here, in one place, at the top of whichever page the next run is on, so a click is never left pending."""
    if (page := st.session_state.pop(_TO, None)) is not None and allowed:
        st.switch_page(page)


def _in_walkthrough(step: int) -> None:
    """A part of another lesson's map: the walkthrough, on the same sentence, at that step."""
    _walkthrough_step(step)
    st.session_state[_TO] = WALKTHROUGH
    rerun_whole_page()  # the switch is made at the top of a whole run


def topic(key: str, trace: AttentionTrace, here: Collection[int], name: str) -> None:
    """A lesson about some steps of a head (√d_k, relevance, parts): its trace's head, the steps ``here`` marked,
    each part opening its step in the walkthrough."""
    show(M.lesson_map(trace, TITLES, None, here=here, name=name, where=t("the walkthrough")),
         key=key, on_step=_in_walkthrough)


def phonebook(result: Lookup | None) -> None:
    """The phonebook's lookup as one query of a head (``None`` before a lookup: the map without shapes)."""
    show(M.lookup_map(result), key="phonebook", on_step=_in_walkthrough)


def cross(trace: CrossAttentionTrace) -> None:
    """The cross-attention head, inside an encoder–decoder."""
    show(M.cross_map(trace), key="cross", on_step=_in_walkthrough)


def learn(trace: AttentionTrace, *, head: int, heads: int, classes: int, current: int | None,
          trained: bool = True) -> None:
    """The trained head's map; a part (steps 3–8) opens the page's "step by step" panel on that step. Before a run
    (``trained`` False), the head at step 0, nothing to open."""
    show(M.training_map(trace, TITLES, current, head=head, heads=heads, classes=classes,
                        trained=trained),
         key="learn",
         on_step=_learn_step)


def _learn_step(step: int) -> None:
    """A part of the learn page's map: "This head, step by step" opens, on that step."""
    st.session_state["lt-steps"] = True  # the panel (a lazy expander) opens
    _open("lt_head_step", "lt-head-", step)


def generate(trace: AttentionTrace, info: ModelInfo, layer: int, head: int) -> None:
    """SmolLM2's map around one cached step; a part goes to that step below (steps 2 and 4 on are drawn)."""
    titles = [title for title, _, _ in steps_for(trace)]
    show(M.real_map(trace, titles, None, info, layer, head, opens={2, *range(4, len(titles) + 1)}), key="generate",
         on_step=lambda step: arrival.go(f"gen-step-{step}"))


def walkthrough(trace: AttentionTrace, current: int | None) -> None:
    """The walkthrough's map: one head inside the faded rest of a full model; a part opens its step (one step at a
    time) or scrolls to it (all steps on one page, ``current`` None)."""
    show(M.lesson_map(trace, TITLES, current), key="walkthrough", on_step=_walkthrough_step)


def _walkthrough_step(step: int) -> None:
    if not st.session_state.get("all_steps"):
        st.session_state["step"] = step
    arrival.go(f"step-{step}")


def multihead(trace: AttentionTrace, heads: int, current: int) -> None:
    """The multi-head page's map: the open head's steps 3–8 (the menu's), its layer's heads, concatenation and W_O,
    inside the faded rest of a full model."""
    show(M.lesson_map(trace, TITLES, current, heads=heads, opens=range(3, len(STEPS) + 1)),
         key="multihead", on_step=partial(_open, "head_step", "head-"))


def real(trace: AttentionTrace, info, layer: int, head: int, current: int) -> None:
    """A real model's own map: its layers and heads, the open head's steps (RoPE for the decoder)."""
    show(M.real_map(trace, [title for title, _, _ in steps_for(trace)], current, info, layer, head), key="real",
         on_step=partial(_open, "rm_step", "rm-"))


def _open(key: str, prefix: str, step: int) -> None:
    st.session_state[key] = step
    arrival.go(f"{prefix}step-{step}")
