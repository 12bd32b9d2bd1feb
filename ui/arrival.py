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

import streamlit as st

from attention import SentenceError, tokenize
from ui import view
from viz import i18n

_STATE = "_arrival"  # (nonce, anchor) of the last navigation
_COMPONENT = st.components.v2.component("attention_lab.arrival", js=view.loader("arrival.js"))


def go(anchor: str, *, on_load: bool = False, gentle: bool = False) -> None:
    """Open ``anchor`` (a heading's id, as ``st.subheader(anchor=...)`` sets it) at the end of this run; ``on_load``:
    also when this run is the page's first (a link that names its step opens at that step, issue 47); ``gentle``:
    what came to the learner, not where they went (a class's new question): the page scrolls only if the heading is
    out of view, and does not hold it there, so nothing moves under a pointer about to choose an answer."""
    # a fresh token, not a counter: after a server restart a counter would start again at a number the
    # browser has already acted on
    st.session_state[_STATE] = (secrets.token_hex(8), anchor, on_load, gentle)


def linked(setting: str, anchor: str) -> None:
    """Once a session: when the link that opened it set ``setting`` (a step), open ``anchor`` as the page loads."""
    if setting in st.session_state.get("_linked", ()) and not st.session_state.get(f"_arrived_{setting}"):
        st.session_state[f"_arrived_{setting}"] = True
        go(anchor, on_load=True)


_SAY = "_arrival_say"  # a sentence this run asks to be said (``say``)


def say(text: str) -> None:
    """Have ``text`` said once, politely, at the end of this run (a class's revealed answer, issue 44): it goes before
    an edit's "The numbers are updated"."""
    st.session_state[_SAY] = text


def to_step(key: str, prefix: str = "") -> None:
    """A step menu's ``on_change`` (its widget ``key``): open the step it now names."""
    go(f"{prefix}step-{int(st.session_state.get(key) or 1)}")


_SAID = "_arrival_said"  # (page, what its numbers depend on, nonce) of the last run, and the last announcement's token
SENTENCE_PAGES = ("", "multihead", "scaling", "relevance", "parts", "real_model", "generate")  # the shared sentence's
# settings in the link that change how a page is laid out, not a number on it
LAYOUT = frozenset({"present", "all_steps", "parts_compare"})
READER = frozenset({"lang"})  # the reader's language: how the numbers are written, not which
NOT_NUMBERS = {"real_model": frozenset({"seed"})}  # SmolLM2's seed picks the induction demo's words (a button's help)


def numbers_key(page: str, settings: dict) -> dict:
    """What the page's numbers depend on, of its link's ``settings``: the layout left out, and the sentence as its
    tokens (a space at its end changes no token)."""
    key = {k: v for k, v in settings.items() if k not in LAYOUT | READER | NOT_NUMBERS.get(page, frozenset())}
    if isinstance(key.get("sentence"), str):
        try:
            key["sentence"] = tuple(tokenize(key["sentence"]))
        except SentenceError:
            pass
    return key


def announcement(before: tuple | None, page: str, settings: dict, nonce: str, sentence: str | None) -> str:
    """What a screen reader is told, once and politely, after a run (issue 44): "" unless the run changed what the
    page's numbers depend on (``settings``: ``numbers_key``) without navigating (a navigation moves the focus to its
    heading, which is read: told twice, it would be noise), on the same page, after a first run. ``before``: the
    last run's (page, settings, nonce)."""
    if before is None or before[0] != page or before[2] != nonce or before[1] == settings:
        return ""
    return f"The numbers are updated for “{sentence}”." if sentence else "The numbers are updated."


def draw(page: str = "", settings: dict | None = None, sentence: str = "", shown: bool = True) -> None:
    """The (invisible) component that scrolls to the last navigation's heading once, and announces a change of
    numbers after an edit in a live region (see static/arrival.js). ``settings``: the page's link (``links.link``);
    ``sentence``: the sentence the lesson shows; ``shown``: whether the lesson is on the page (a class's student
    sees none while the class is paused or a question is open: nothing is said then)."""
    nonce, anchor, on_load, gentle = st.session_state.get(_STATE, ("", None, False, False))
    key = numbers_key(page, {"sentence": sentence, **(settings or {})})  # the link leaves the default sentence out
    before, token = st.session_state.get(_SAID, (None, ""))
    said = announcement(before, page, key, nonce, sentence if page in SENTENCE_PAGES else None) if shown else ""
    said = st.session_state.pop(_SAY, "") or said
    if said:
        token = secrets.token_hex(8)  # the same words again are announced again
    st.session_state[_SAID] = ((page, key, nonce), token)
    _COMPONENT(key="arrival", data={"nonce": nonce, "target": anchor, "load": on_load, "gentle": gentle, "say": said,
                                    "said": token, "lang": i18n.html_lang()})
