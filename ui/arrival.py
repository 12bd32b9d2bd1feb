"""Arriving where a navigation leads: after Next, Previous, the step menu, a chosen query or a chosen
head, the page shows the opened content's heading at the top of the viewport and moves the keyboard's
focus to it (a screen reader reads the heading), instead of leaving the learner where they were, with the
new content two screens down (issue 34).

A navigation calls ``go(anchor)`` in its widget's callback; every run ends with ``draw()``, whose small
component (static/arrival.js) acts once per navigation. A rerun for anything else (a new sentence, a
hovered cell, a class's timer) leaves the scroll position and the focus where the learner put them; an edit that
changed the page's settings is said once in a polite live region ("The numbers are updated for “…”."), not
the whole page.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import streamlit as st

_STATE = "_arrival"  # (nonce, anchor) of the last navigation
_JS = (Path(__file__).resolve().parent.parent / "static" / "arrival.js").read_text(encoding="utf-8")
_COMPONENT = st.components.v2.component("attention_lab.arrival", js=_JS)


def go(anchor: str, *, on_load: bool = False) -> None:
    """Open ``anchor`` (a heading's id, as ``st.subheader(anchor=...)`` sets it) at the end of this run; ``on_load``:
    also when this run is the page's first (a link that names its step opens at that step, issue 47)."""
    # a fresh token, not a counter: after a server restart a counter would start again at a number the
    # browser has already acted on
    st.session_state[_STATE] = (secrets.token_hex(8), anchor, on_load)


def linked(setting: str, anchor: str) -> None:
    """Once a session: when the link that opened it set ``setting`` (a step), open ``anchor`` as the page loads."""
    if setting in st.session_state.get("_linked", ()) and not st.session_state.get(f"_arrived_{setting}"):
        st.session_state[f"_arrived_{setting}"] = True
        go(anchor, on_load=True)


def to_step(key: str, prefix: str = "") -> None:
    """A step menu's ``on_change`` (its widget ``key``): open the step it now names."""
    go(f"{prefix}step-{int(st.session_state.get(key) or 1)}")


_SAID = "_arrival_said"  # (page, settings, nonce) of the last run, and the last announcement's token
SENTENCE_PAGES = ("", "multihead", "scaling", "relevance", "parts", "real_model", "generate")  # the shared sentence's


def announcement(before: tuple | None, page: str, settings: dict, nonce: str, sentence: str | None) -> str:
    """What a screen reader is told, once and politely, after a run (issue 44): "" unless the run changed the page's
    settings without navigating (a navigation moves the focus to its heading, which is read: told twice, it would
    be noise), on the same page, after a first run. ``before``: the last run's (page, settings, nonce)."""
    if before is None or before[0] != page or before[2] != nonce or before[1] == settings:
        return ""
    return f"The numbers are updated for “{sentence}”." if sentence else "The numbers are updated."


def draw(page: str = "", settings: dict | None = None) -> None:
    """The (invisible) component that scrolls to the last navigation's heading once, and announces a change of
    numbers after an edit in a live region (see static/arrival.js). ``settings``: the page's link (``links.link``)."""
    nonce, anchor, on_load = st.session_state.get(_STATE, ("", None, False))
    settings = dict(settings or {})
    before, token = st.session_state.get(_SAID, (None, ""))
    sentence = st.session_state.get("sentence") if page in SENTENCE_PAGES else None
    said = announcement(before, page, settings, nonce, sentence)
    if said:
        token = secrets.token_hex(8)  # the same words again are announced again
    st.session_state[_SAID] = ((page, settings, nonce), token)
    _COMPONENT(key="arrival", data={"nonce": nonce, "target": anchor, "load": on_load, "say": said, "said": token})
