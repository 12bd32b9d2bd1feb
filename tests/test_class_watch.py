"""ui/class_watch.py: one thread per server wakes the pages of a class when the class changes.

The first tests read the Streamlit internals it relies on (they fail on an upgrade that moves them) and what a
page "sees" of its class. The last runs a real server: a student's page, joined through the join form, is run
again by the server, without asking, when the teacher changes the lesson, asks a question or pauses the class.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect

import pytest
from streamlit.runtime import Runtime
from streamlit.runtime.app_session import AppSession, AppSessionState
from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext

from bench.bench_class_pages import Browser, join, page_path
from classmode.store import Store
from tests.browser.server import streamlit_server
from tests.test_streamlit_client import in_a_thread
from ui import class_watch


def headings(answer) -> list[str]:
    """The text of every heading a run drew (a class's question is one, ui/classmode.py)."""
    return [e.heading.body for e in answer.elements() if e.WhichOneof("type") == "heading"]


QUESTION = {"prompt": "Which key?", "options": ["a", "b"], "answer": "a", "also": [], "explanation": ""}


def test_the_streamlit_internals_it_wakes_sessions_with_are_there():
    for method in ("request_rerun", "has_fragment", "_call_soon_on_event_loop"):
        assert callable(getattr(AppSession, method, None)), method
    assert "page_script_hash" in inspect.signature(AppSession.request_rerun).parameters or \
        "client_state" in inspect.signature(AppSession.request_rerun).parameters
    init = inspect.getsource(AppSession.__init__)
    for attribute in ("self._client_state", "self._state"):
        assert attribute in init, attribute
    assert AppSessionState.APP_NOT_RUNNING
    assert "fragment_ids_this_run" in {f.name for f in dataclasses.fields(ScriptRunContext)}
    assert callable(Runtime.get_app_session)


@pytest.fixture
def store(tmp_path):
    return Store(f"sqlite:///{tmp_path / 'classes.sqlite3'}")


def test_a_students_page_sees_the_question_the_mode_the_timer_and_the_lesson_unless_exploring(store):
    key = store.create_class({"page": "", "query": {}})
    seen = [class_watch.student_sees(store.version(key.code), now=0.0)]

    def changed() -> bool:
        seen.append(class_watch.student_sees(store.version(key.code), now=0.0))
        return seen[-1] != seen[-2]

    store.set_state(key.secret, {"page": "multihead", "query": {}})
    assert changed(), "a new lesson"
    store.open_question(key.secret, QUESTION)
    assert changed(), "a question"
    store.set_timer(key.secret, 30, now=100.0)
    assert changed(), "a timer"
    assert class_watch.student_sees(store.version(key.code), now=129.9) != \
        class_watch.student_sees(store.version(key.code), now=130.0), "the timer running out"
    store.join(key.code, "ann", "", "ip")
    store.give_time(key.secret, "ann", 60)
    assert changed(), "a student given more time (their page redraws its form)"
    ann = store.version(key.code, "ann")
    assert class_watch.student_sees(ann, now=130.0) == class_watch.student_sees(ann, now=189.9) != \
        class_watch.student_sees(ann, now=190.0), "their own timer running out, 60 s after the class's"
    store.set_mode(key.secret, "explore")
    assert changed(), "explore"
    store.set_state(key.secret, {"page": "walkthrough", "query": {}})
    assert not changed(), "while students explore, a new lesson of the teacher's is not theirs"
    store.set_mode(key.secret, "pause")
    assert changed(), "paused"


def test_the_desk_sees_students_and_answers_arrive_and_a_changed_answer(store):
    key = store.create_class({"page": "", "query": {}})
    store.open_question(key.secret, QUESTION)
    seen = [class_watch.teacher_sees(store.pulses([key.code])[key.code], now=0.0)]

    def changed() -> bool:
        seen.append(class_watch.teacher_sees(store.pulses([key.code])[key.code], now=0.0))
        return seen[-1] != seen[-2]

    store.join(key.code, "b" * 32, "Ada")
    assert changed(), "a student joined"
    store.answer(key.code, "b" * 32, 1, "b", now=10.0)
    assert changed(), "an answer"
    store.answer(key.code, "b" * 32, 1, "a", now=11.0)
    assert changed(), "a change of mind"
    store.show_results(key.secret, True)
    assert changed(), "results shown"
    assert not changed(), "nothing new"


def test_pulses_reads_many_classes_at_once_and_leaves_out_a_closed_one(store):
    keys = [store.create_class({"page": "", "query": {}}) for _ in range(3)]
    store.close(keys[2].secret)
    pulses = store.pulses([k.code for k in keys] + ["NOSUCH"])
    assert set(pulses) <= {k.code for k in keys}
    assert {keys[0].code, keys[1].code} <= set(pulses)
    for k in keys[:2]:
        assert pulses[k.code].poll == store.version(k.code)


@pytest.mark.browser  # a real server
def test_a_students_page_is_run_again_by_the_server_when_the_class_changes(tmp_path):
    async def scenario(base: str, db: Store) -> None:
        key = db.create_class({"page": "", "query": {}})
        page = Browser(base, f"/classmode?class={key.code}", {"browser": "c" * 32})
        joined = await join(page, key.code, "Ada")
        assert page_path(joined) == "", "the class's lesson: the walkthrough (its address is /)"

        db.set_state(key.secret, {"page": "multihead", "query": {"heads": "4"}})
        woken = await page.receive(60)  # no request from the page: the server runs it
        assert woken is not None and page_path(page.saw(woken)) == "multihead"
        assert any(r"h = \text{4 heads}" in t for t in woken.markdown()), "the class's lesson: its settings too"

        db.open_question(key.secret, QUESTION)
        woken = await page.receive(60)
        assert woken is not None and "Question 1" in headings(woken)

        db.set_mode(key.secret, "pause")
        woken = await page.receive(60)
        assert woken is not None and f"**Class {key.code}** · Ada · paused" in woken.markdown()
        assert "Question 1" not in headings(woken)
        await page.close()

    with streamlit_server(env={"ATTENTION_LAB_DATA": str(tmp_path)}) as base:
        in_a_thread(asyncio.run, scenario(base, Store(f"sqlite:///{tmp_path / 'classes.sqlite3'}")))


def test_a_page_is_woken_once_a_change_and_again_only_if_no_run_drew_it():
    page = class_watch._Page("student", seen=("old",), fragment=None)
    assert not class_watch.due(page, ("old",), now=0.0), "nothing new"
    assert class_watch.due(page, ("new",), now=0.0)
    page.woken_for, page.woken_at, page.tries = ("new",), 0.0, 1  # as a wake records it
    assert not class_watch.due(page, ("new",), now=class_watch.RETRY - 0.1), "its run is under way"
    assert class_watch.due(page, ("newer",), now=0.1), "another change: at once"
    assert class_watch.due(page, ("new",), now=class_watch.RETRY), "no run drew it (cut short): again"
    page.tries = class_watch.RETRIES + 1
    assert not class_watch.due(page, ("new",), now=100.0), "a page that never says it drew it is left to its timer"
    page.seen = ("new",)  # its run drew it (watch() records a new page, as a run's end does)
    assert not class_watch.due(page, ("new",), now=100.0)
