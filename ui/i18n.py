"""The session's language (issue 45): chosen by the link's ``lang`` or the browser's, read by ``viz.i18n.t``.

``viz.i18n`` asks this module for the running session's language, so every text of a run, a callback or a
fragment is in the language of the session it serves, and two sessions in two languages never see each other's.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from viz import i18n

LANG_STATE = "_lang"  # the language the link or the menu chose (None: the browser's); the link's ``lang``
RUN_LANGUAGE = "_lang_run"  # the language this session's runs write in, set at the top of every full run
# The languages a learner may choose: every language with a catalog. A new catalog joins once every page passes the
# pseudo-language test, the catalog holds every message (tests/test_i18n.py), its lesson texts and examples are in,
# and the browser tests pass in it (tests/browser/test_languages_browser.py); a link's ``lang`` naming a language not
# offered is refused with the link's usual warning.
OFFERED = (*i18n.LANGUAGES,)


_MEMO = "_attention_lab_language"  # the run's language, kept on its ScriptRunContext (one a run, never shared)


def _session_language() -> str:
    """Every number and text written asks: read on the run's context (a microsecond; st.session_state took 15), set
    there by ``begin`` or, in a callback's or a fragment's run, by the first text that asks."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:  # not a session's thread (a builder's test, a server thread)
        return i18n.ENGLISH
    found = getattr(ctx, _MEMO, None)
    if found is None:
        found = st.session_state.get(RUN_LANGUAGE, i18n.ENGLISH)
        setattr(ctx, _MEMO, found)
    return found


def acceptable(lang: object) -> bool:
    """Whether a link's ``lang`` is one this app writes in: an offered language, or the tests' pseudo-language."""
    return lang in OFFERED or lang == i18n.PSEUDO


i18n.set_source(_session_language)


def browser_language() -> str:
    """The offered language the browser prefers (``navigator.language``: "es-ES" → es), else English."""
    return offered_for(st.context.locale or "")


TRADITIONAL = {"hant", "tw", "hk", "mo"}  # a Chinese locale's script or region that writes Traditional characters


def offered_for(locale: str) -> str:
    """The offered language for a BCP 47 locale ("es-ES" → es, "zh-CN" → zh), else English. The Chinese catalog is
    Simplified: a reader of Traditional characters (zh-TW, zh-HK, zh-MO, zh-Hant-…) reads English until a Traditional
    catalog exists, rather than a script they did not choose."""
    parts = [p.lower() for p in locale.replace("_", "-").split("-") if p]
    primary = parts[0] if parts else ""
    if primary == "zh" and "hans" not in parts and TRADITIONAL & set(parts[1:]):
        return i18n.ENGLISH
    return primary if primary in OFFERED else i18n.ENGLISH


def begin() -> str:
    """At the top of every full run, before anything is written: the language of this run's texts, the link's or the
    menu's choice, else the browser's. Returns it."""
    chosen = st.session_state.get(LANG_STATE)
    if not st.session_state.get("_link_read"):  # the session's first run: before ui.links reads the link (and
        chosen = st.query_params.get("lang")  # writes its warnings, in this language), its lang
    language = chosen if acceptable(chosen) else browser_language()
    st.session_state[RUN_LANGUAGE] = language
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is not None:
        setattr(ctx, _MEMO, language)
    return language
