"""Shareable links: what a link may set, a check that says which parts of a link were ignored, and
the "copy link" box.

Streamlit's ``bind="query-params"`` keeps every setting in the URL and silently falls back to the
default for a value it can't use. ``check_link`` finds those values first, so the page can say
which parts of a tampered or outdated link it ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode

import streamlit as st

from attention import MAX_CHARS
from ui.matrix_editor import LINK_PATTERN

PRESET_LABELS = {"random": "Seeded random", "identity": "Identity (W = I)"}  # the URL carries the label
TEMPERATURES = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
PHONEBOOK_TEMPERATURES = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0)


def _whole(low: int, high: int) -> Callable[[str], bool]:
    def check(text: str) -> bool:
        return text.lstrip("-").isdigit() and low <= int(text) <= high

    check.__doc__ = f"a whole number from {low} to {high}"
    return check


def _one_of(options) -> Callable[[str], bool]:
    def check(text: str) -> bool:
        try:
            return text in options or float(text) in options
        except ValueError:
            return False

    check.__doc__ = "one of " + ", ".join(str(o) for o in options)
    return check


def _boolean(text: str) -> bool:
    """true or false"""
    return text.lower() in ("true", "false")


def _text(limit: int) -> Callable[[str], bool]:
    def check(text: str) -> bool:
        return len(text) <= limit

    check.__doc__ = f"text of at most {limit:,} characters"
    return check


def _edited_cells(text: str) -> bool:
    """hand-edited cells such as Q1.1:5;K2.3:-0.5"""
    return len(text) <= 4000 and LINK_PATTERN.fullmatch(text) is not None


# Every query parameter a lesson binds, and what it accepts. Keep in step with the widgets.
SPECS: dict[str, Callable[[str], bool]] = {
    "sentence": _text(MAX_CHARS),
    "seed": _whole(0, 999_999),
    "d_model": _whole(2, 16),
    "positional": _boolean,
    "causal": _boolean,
    "d_k": _whole(1, 16),
    "preset": _one_of(tuple(PRESET_LABELS.values())),
    "present": _boolean,
    "step": _whole(1, 8),
    "query": _text(100),  # "3 · sat": the option as shown; Streamlit drops one that matches no token
    "heads": _whole(1, 16),
    "dk_demo": _whole(1, 512),
    "temperature": _one_of(TEMPERATURES),
    "pb_query": _text(200),
    "pb_temperature": _one_of(PHONEBOOK_TEMPERATURES),
    "rel_dk": _whole(2, 8),
    "w": _edited_cells,
}


def check_link(params: dict[str, str | list[str]]) -> list[str]:
    """A message for each query parameter the lessons will ignore: unknown, repeated or invalid."""
    problems = []
    for key, value in params.items():
        shown = key if len(key) <= 30 else key[:29] + "…"
        if key not in SPECS:
            problems.append(f"“{shown}” is not a setting of Attention Lab, so it was ignored.")
            continue
        values = value if isinstance(value, list) else [value]
        text = values[-1]
        check = SPECS[key]
        if not check(text):
            short = text if len(text) <= 30 else text[:29] + "…"
            problems.append(f"“{shown}={short}” was ignored: {key} must be {check.__doc__}. The default is used.")
    return problems


def report_link_problems() -> None:
    """On the first run of a session, say which parts of the opening link were ignored."""
    if "_link_checked" in st.session_state:
        return
    st.session_state["_link_checked"] = True
    problems = check_link(st.query_params.to_dict())
    if problems:
        st.warning("Some settings in this link could not be used:\n\n" + "\n".join(f"- {p}" for p in problems),
                   icon=":material/link_off:")


def share_link() -> None:
    """The current lesson's link with every setting in it, in a box with a copy button."""
    base = st.context.url or "http://127.0.0.1:8501/"
    query = urlencode({k: v for k, v in st.query_params.to_dict().items() if k in SPECS}, doseq=True)
    st.caption("Share this lesson: the link reproduces every setting (copy button on the right).")
    st.code(base + ("?" + query if query else ""), language=None, wrap_lines=True)
