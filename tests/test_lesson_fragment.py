"""Issue 46: a learner's typed sentence or seed reruns the lesson fragment alone (app.py, ui.settings.LESSON), and the
page it leaves is the page a whole run draws: the same lesson, link, share link and sidebar, element for element.

Each example opens two sessions on the same page and link and makes the same edits in both; in one, each edit reruns
the fragment alone (as for a learner), in the other the whole page (``ui.settings.SCOPED`` off). AppTest keeps the page
outside a fragment's own run as the browser does (tests/apptest_fragments.py)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import MAX_CHARS
from tests import driving as D
from ui import settings as shared_settings

# the pages that read the sentence or the seed (ui.settings.USED_BY)
PAGES = ["", "multihead", "scaling", "relevance", "parts", "cross", "learn", "real_model", "generate"]
EDITS = st.lists(st.one_of(st.tuples(st.just("sentence"), D.TEXTS),
                           st.tuples(st.just("seed"), st.integers(0, 99_999))), min_size=1, max_size=3)


# the token of an announcement (ui.arrival), new for each: the same words are said again
TOKEN = re.compile(r'(\\"said\\": \\")[0-9a-f]{16}')


# a widget's message carries the value the server sets, where it sets one: a whole run sends a disabled box's value
# again, a fragment's run leaves the box as the browser has it; what each widget holds is compared by ``held``
SET = re.compile(r"^(value|set_value): .*$\n?", re.MULTILINE)


def page(at) -> list[tuple[str, str, str]]:
    """Every element of the main area and the sidebar, in order: (where, its type, its message)."""
    found = []

    def walk(node, where: str) -> None:
        for index, child in sorted(getattr(node, "children", {}).items()):
            proto = TOKEN.sub(r"\1…", str(getattr(child, "proto", None) or ""))
            if getattr(child, "id", None) and hasattr(child, "value"):  # a widget
                proto = SET.sub("", proto)
            found.append((f"{where}/{index}", type(child).__name__, proto))
            walk(child, f"{where}/{index}")
    walk(at._tree.main, "main")
    walk(at._tree.sidebar, "sidebar")
    return found


def held(at) -> dict[str, object]:
    """What each of the sidebar's settings holds (the session's value: the box as the learner left it or as the last
    whole run set it)."""
    return {key: at.session_state[key] for key in ("sentence", "seed", "d_model", "positional", "causal")
            if key in at.session_state}


def edit(at, what: str, value):
    box = at.text_input(key="sentence") if what == "sentence" else at.number_input(key="seed")
    if box.disabled:
        return at, False
    (box.input(value) if what == "sentence" else box.set_value(value)).run()
    return at, True


@pytest.mark.parametrize("address", PAGES)
@settings(max_examples=6)
@given(edits=EDITS)
def test_an_edit_that_reruns_the_lesson_alone_leaves_the_page_a_whole_run_draws(address, edits):
    alone, whole = D.open_app(address), D.open_app(address)
    for what, value in edits:
        before = held(alone)
        # the edits that run the whole page: no change (no callback), a text cut or the message of one under the box,
        # an example's notice in the sidebar (ui.settings.rerun_lesson_only)
        said = "_cut_said_sentence" in alone.session_state and alone.session_state["_cut_said_sentence"]
        scoped = (value != before.get(what) and not said and "_replaced_sentence" not in alone.session_state
                  and (what == "seed" or len(value) <= MAX_CHARS))
        alone, changed = edit(alone, what, value)
        shared_settings.SCOPED = False
        try:
            whole, _ = edit(whole, what, value)
        finally:
            shared_settings.SCOPED = True
        if not changed:
            continue
        assert not alone.exception and not whole.exception
        assert not whole._tree._fragment_only
        # (the writing page's text comes from a job in the background, whose end runs the whole page: ui.background)
        assert alone._tree._fragment_only == scoped or (address == "generate" and scoped)
        assert page(alone) == page(whole)
        assert alone.query_params == whole.query_params
        # a fragment's run sets none of the sidebar's boxes (the browser would go on showing the old value): each
        # holds what the learner left in it, as after the whole run
        assert held(alone) == {**before, what: held(alone)[what]} == held(whole)
