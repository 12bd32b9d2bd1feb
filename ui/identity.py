"""Who this browser is, kept in the browser itself: an id (a class's student is one browser, however many
tabs), the class it joined and its nickname, and the key of a class it teaches.

Kept in the browser's localStorage by a small component (static/identity.js), never in the URL: a copied
link does not make its opener that student, and the teacher's key is not in the address bar of the page
being projected. The component reports what the browser holds on its first draw (one rerun after a page
loads) when a page needs it: on class mode's page, or when the browser is in a class or teaches one (a
learner on a lesson keeps its id to itself, so a first page load is one run). It writes what the server asks
it to keep (``remember``).

Without a browser (AppTest) nothing is reported; tests set ``st.session_state[SESSION]`` themselves.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from ui import view
from ui.settings import rerun_whole_page

SESSION = "_identity"  # what the browser reported, as the session holds it
_PENDING = "_identity_pending"  # what the server asked the browser to keep, until it reports it kept
_COMPONENT = st.components.v2.component("attention_lab.identity", js=view.loader("identity.js"))


def _held(value: dict) -> dict[str, Any]:
    """What the browser reported, as the session keeps it."""
    return {k: v for k, v in value.items() if isinstance(k, str)}


def _reported() -> None:
    value = st.session_state.get("identity", {}).get("identity")
    if isinstance(value, dict):
        st.session_state[SESSION] = _held(value)
        rerun_whole_page()  # the top of a whole run reads it (a student's class, a teacher's)


def draw(report: bool = True) -> dict[str, Any] | None:
    """Draw the (invisible) component; what the browser holds, or None until it has reported. With ``report``
    False, a browser that holds no class and no class key does not report (class mode's page asks; the
    lessons need the identity only for a student or a teacher)."""
    pending = st.session_state.get(_PENDING, {})
    known = st.session_state.get(SESSION)
    if known is not None and all(known.get(k) == v for k, v in pending.items()):
        st.session_state.pop(_PENDING, None)
        pending = {}
    drawn = _COMPONENT(key="identity", data={"known": known, "set": pending, "report": report},
                       default={"identity": None},
                       on_identity_change=_reported)
    value = drawn.get("identity") if drawn is not None else None
    if isinstance(value, dict) and known is None:
        # A new session in a browser that has already reported: a reconnect to another replica (its old
        # session died with it) sends the component's value with its first run, which no callback sees (the
        # session has no record of the widget yet). The page was drawn for a stranger: draw it again.
        st.session_state[SESSION] = _held(value)
        st.rerun()
    return st.session_state.get(SESSION)


def browser() -> str | None:
    """This browser's id (32 hexadecimal digits), or None until it has reported."""
    known = st.session_state.get(SESSION) or {}
    value = known.get("browser")
    return value if isinstance(value, str) and len(value) == 32 else None


def get(name: str) -> Any:
    pending = st.session_state.get(_PENDING, {})
    if name in pending:
        return pending[name]
    return (st.session_state.get(SESSION) or {}).get(name)


def remember(**values: Any) -> None:
    """Ask the browser to keep ``values`` (None: forget the name). Seen at once by ``get``; sent to the browser
    at the component's next draw, and forgotten here only once the browser has reported it keeps them (a run
    stopped by ``st.switch_page`` before the draw must not lose them)."""
    st.session_state.setdefault(_PENDING, {}).update(values)
