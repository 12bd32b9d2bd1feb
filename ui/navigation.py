"""The app's pages, in menu order: app.py builds the navigation from them, and class mode reads them to
name the lesson a teacher shows and to accept only these pages in a class's state."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from viz import i18n
from viz.i18n import N_, t

CLASS_PAGE = "lessons/classmode.py"
PAGES = (  # script, title (English: the menu shows it in the session's language), icon; the first is the default page
    ("lessons/walkthrough.py", N_("Step-by-step walkthrough"), ":material/stairs:"),
    ("lessons/multihead.py", N_("Multi-head attention"), ":material/hub:"),
    ("lessons/scaling.py", N_("Why divide by √d_k?"), ":material/straighten:"),
    ("lessons/phonebook.py", N_("Phonebook: keys vs values"), ":material/contact_phone:"),
    ("lessons/relevance.py", N_("Similar is not relevant"), ":material/call_split:"),
    ("lessons/parts.py", N_("Attention from its parts"), ":material/construction:"),
    ("lessons/cross.py", N_("Cross-attention"), ":material/translate:"),
    ("lessons/learn.py", N_("Watch a head learn"), ":material/model_training:"),
    ("lessons/real_model.py", N_("A real model"), ":material/psychology:"),
    ("lessons/generate.py", N_("Writing with a cache"), ":material/edit_note:"),
    (CLASS_PAGE, N_("Class mode"), ":material/groups:"),
)


def url_path(script: str) -> str:
    """A page's address as Streamlit gives it: the default page "", the others their file's name."""
    return "" if script == PAGES[0][0] else Path(script).stem


def script_of(path: str) -> str:
    """A page's script from its address (``url_path``)."""
    return next(script for script, _, _ in PAGES if url_path(script) == path)


# The lessons a class can follow, by address: every page but class mode itself.
LESSONS = {url_path(script): title for script, title, _ in PAGES if script != CLASS_PAGE}


def pages() -> list:
    """The pages for st.navigation, made once a session: st.Page resolves its file on the disk (a
    realpath of every folder), ~1 ms a run for eleven pages. Not shared between sessions: st.navigation
    marks the page it returns as the one to run, and page.run() unmarks it, so two sessions running at
    once would race on a shared page."""
    language = i18n.language()
    held = st.session_state.get("_pages")
    if held is None or held[0] != language:  # their titles are in the session's language
        made = [st.Page(script, title=t(title), icon=icon, default=k == 0)
                for k, (script, title, icon) in enumerate(PAGES)]
        held = (language, made)
        st.session_state["_pages"] = held
    return held[1]
