"""Driving the app through AppTest as a learner does: any control a page draws, set to any value it can
take; what the page shows, as data to compare; the link it writes, opened in a fresh session.

Used by tests/test_links.py (every state a control can reach is in the link) and tests/test_states.py
(the app as a state machine).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from tests.claims.families import SENTENCES
from tests.table_reading import readable, view_panels
from ui.links import DISPLAY_ONLY, SETTINGS, SHOWN_NOTE
from ui.navigation import PAGES, url_path

APP = str(Path(__file__).resolve().parent.parent / "app.py")
TIMEOUT = 180
SCRIPTS = {url_path(script): script for script, _, _ in PAGES}
KINDS = ("selectbox", "slider", "select_slider", "radio", "toggle", "text_input", "number_input", "segmented_control",
         "multiselect")
WORDS = ["the", "cat", "sat", "a", "x", "Jindřich", "!", "🤗", "it", "was"]
# what a learner types: the claims' families, one token, repeated words, 64 tokens, and text that can't be shown
TEXTS = st.one_of(
    st.sampled_from(SENTENCES),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=10).map(" ".join),
    st.sampled_from(["hello", "a a", "w " * 64, "", "   ", "w " * 65, "x" * 1001]),
)
# settings too slow to reach at random in a test run (training 2,000 steps; SmolLM2 writing 20 tokens)
SLOW = {"lt_steps": {"50", "100"}, "gen_count": set(map(str, range(1, 5)))}


def open_app(page: str = "", **query: str | list[str]) -> AppTest:
    """A fresh session (a new browser) on ``page`` (its address: "" is the walkthrough) with this link."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    if page:
        at.switch_page(SCRIPTS[page])
    return at.run()


def page_of(at: AppTest) -> str:
    return at.session_state["_page"] if "_page" in at.session_state else ""


def controls(at: AppTest) -> list[tuple[str, Any]]:
    """Every control the page draws now that is not display-only (ui.links.DISPLAY_ONLY): (kind, widget), in the
    sidebar and the page. Not the link's own list of settings: a control missing from it is driven too."""
    return [(kind, w) for kind in KINDS for w in getattr(at, kind)
            if w.key and not w.disabled and not display_only(w.key)]


def all_widget_keys(at: AppTest) -> set[str]:
    return {w.key for kind in (*KINDS, "button", "checkbox", "data_editor") for w in getattr(at, kind, [])
            if getattr(w, "key", None)}


def read_option(key: str, label: str):
    """A radio's value from its option's label: the label itself as the link writes it, or, for an option that names
    its value and then its meaning ("2 · + values: W_V", the parts page's stages), that value."""
    try:
        return SETTINGS[key].read(label)
    except ValueError:
        return SETTINGS[key].read(label.split(" · ", 1)[0])


QUESTION_RADIOS = ("ex-", "mh-ex-")  # the keys' prefixes of the questions' radios (ui.exercises.question_box)


def set_control(kind: str, widget, data) -> None:
    """Set ``widget`` to a value drawn from everything it can take (the next run applies it)."""
    key = widget.key
    if kind in ("selectbox", "segmented_control") and widget.options:
        index = data.draw(st.integers(0, len(widget.options) - 1), label=key)
        if kind == "selectbox":
            widget.select_index(index)
        else:
            widget.set_value(index)
    elif kind == "radio" and widget.options:
        label = data.draw(st.sampled_from(widget.options), label=key)
        if key.startswith(QUESTION_RADIOS):  # a question's radio holds its option's place (ui/exercises.py)
            widget.set_value(widget.options.index(label))
        else:
            widget.set_value(read_option(key, label) if key in SETTINGS else label)
    elif kind == "select_slider":
        options = [o for o in widget.options if key not in SLOW or o in SLOW[key]]
        label = data.draw(st.sampled_from(options), label=key)
        # the value the label shows (a label written by a format_func, "0.001" or "2,000", is not the value)
        widget.set_value(read_option(key, label) if key in SETTINGS else label)
    elif kind == "slider":
        low, high, step = widget.min, widget.max, widget.step
        if isinstance(low, int) and isinstance(step, int):
            high = min(high, 4) if key == "gen_count" else high
            widget.set_value(data.draw(st.integers(low, high), label=key))
        else:
            steps = round((high - low) / step)
            widget.set_value(low + step * data.draw(st.integers(0, steps), label=key))
    elif kind == "toggle":
        widget.set_value(data.draw(st.booleans(), label=key))
    elif kind == "text_input":
        widget.input(data.draw(TEXTS, label=key))
    elif kind == "number_input":
        widget.set_value(data.draw(st.one_of(st.integers(0, 20), st.integers(0, 999_999)), label=key))
    elif kind == "multiselect":
        widget.set_value(data.draw(st.lists(st.sampled_from(widget.options), max_size=4, unique=True), label=key))


def act(at: AppTest, data) -> AppTest:
    """One learner action: a control of the page, set to any value it can take, then the run it causes."""
    drawn = {widget.key: (kind, widget) for kind, widget in controls(at)}
    # the key is drawn, not the widget: Hypothesis prints what it draws when it reports an example, and a widget
    # cannot be printed (its report then stopped drawing early: FlakyStrategyDefinition, not the failure it found)
    kind, widget = drawn[data.draw(st.sampled_from(sorted(drawn)), label="control")]
    set_control(kind, widget, data)
    submit(at, widget)
    return at.run()


def submit(at: AppTest, widget) -> None:
    """A control in a form commits with the form's button, pressed in the same run (as the learner does)."""
    form = getattr(widget, "form_id", "")
    if form:
        next(b for b in at.button if b.form_id == form).click()


def snapshot(at: AppTest) -> dict:
    """What the page shows, as data: every view's panels (numbers, labels, tooltips' data, charts), the texts
    a learner reads, and every settings control's value. Left out: warnings (they say what just happened,
    for example that a link's part could not be used) and the session's score."""
    texts = {kind: [e.value for e in getattr(at, kind) if e.value != SHOWN_NOTE and not transient(e.value)]
             for kind in ("title", "subheader", "markdown", "caption", "latex", "info", "success", "error")}
    texts["metric"] = [(m.label, m.value) for m in at.metric if "session" not in m.label]
    values = {w.key: w.value for _, w in controls(at)}
    return {"panels": json.loads(json.dumps(view_panels(at))), "texts": texts, "controls": values}


# what the page says about the learner's last action, not about the lesson: the paste box's feedback
# and that hand edits were reset, or a choice no longer fitted, when another setting changed
_TRANSIENT = re.compile(r"of the \d+ × \d+ block|of the block|^Cut: |^The block for|^Nothing of the block"
                        r"|^The hand-edited matrices were reset| no longer fits: ")


def transient(markdown: str) -> bool:
    return _TRANSIENT.search(readable(markdown)) is not None


def shown_instead(at: AppTest) -> set[str]:
    """The boxes whose text the lesson could not show (it shows, and links, the last text that worked)."""
    return set(at.session_state["_shown"]) if "_shown" in at.session_state else set()


def reopened(at: AppTest) -> AppTest:
    """The link ``at`` wrote, opened in a fresh session, as a learner's friend would open it, who then opens the
    same panels and views (the link leaves out how the page is displayed, and says so: ui.links.LINK_KEEPS)."""
    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in at.query_params.items():
        if key in SETTINGS:
            fresh.query_params[key] = value
    for key in _displayed(at):
        fresh.session_state[key] = at.session_state[key]
    if page_of(at):
        fresh.switch_page(SCRIPTS[page_of(at)])
    return fresh.run()


def _displayed(at: AppTest) -> list[str]:
    """The session's open panels and display choices (expanders, the lines view): display-only keys whose value
    is a plain flag or choice."""
    keys = [k for k in at.session_state
            if isinstance(k, str) and display_only(k) and not k.startswith(("view-", "cm_"))]
    return [k for k in keys if isinstance(at.session_state[k], bool | int | str | type(None))]


def display_only(key: str) -> bool:
    return any(re.fullmatch(pattern, key) for pattern in DISPLAY_ONLY)
