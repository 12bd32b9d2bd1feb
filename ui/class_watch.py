"""Waking a class's pages when the class changes: one thread per server process instead of a timer per page.

Each page of a class (a student's, the teacher's desk, the projector) tells this module, on each run, which
class it shows and what it saw of it (``watch``). A thread of this server process reads every watched class
in one query every TICK seconds and, for each page whose class has changed since that page was drawn, asks
Streamlit to run the page again (its fragment, or the whole page), as Streamlit itself does when a script's
source changes (``AppSession.request_rerun`` with the session's last client state). A page is woken once for
each change it has not drawn, and only between its own runs (a run under way reads the class itself); a page
whose run did not say it drew the change (a run cut short: a student's switch to the class's page replaced by
the page's own timer) is woken again after RETRY seconds.

Why not a timer in every page (``st.fragment(run_every=2)``), as before issue 33: a class of 100 polling
every 2 s spent a third of a core on polls alone, and a change reached a student only at its next poll, up to
2 s later. Here: one query per TICK per process, and a change reaches a page within TICK plus its run
(docs/benchmarks.md#class-mode). The pages keep a slow timer (SAFETY seconds) in case this thread can't
wake them.

Streamlit has no public way to rerun another session. This uses the runtime's session lookup
(``Runtime.get_app_session``, thread-safe by its docstring) and, of the pinned 1.67's ``AppSession``,
``_client_state`` (the widget values and page of its last run), ``_state`` and ``_call_soon_on_event_loop``;
tests/test_class_watch.py fails if an upgrade moves them.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, replace
from typing import Any

from classmode.store import Poll, Pulse, Store

TICK = 0.1  # seconds between two reads of the watched classes
RETRY = 3.0  # seconds after a wake with no run that drew the change: wake the page again …
RETRIES = 2  # … this many times (a run stopped early, e.g. by st.stop, never says it drew it)
WAKING = 6  # pages woken and not yet drawn at once, per server: see tick()
SAFETY = 15.0  # seconds: the pages' own timer, in case a wake is lost

_LOG = logging.getLogger(__name__)


def student_sees(poll: Poll, now: float | None = None) -> tuple:
    """What a student's page shows of its class: the question, the mode, whether answers are still taken, and
    the lesson (unless students may explore: then a new lesson changes nothing on their pages)."""
    now = time.time() if now is None else now
    timed_out = poll.closes_at is not None and now >= poll.closes_at + poll.extra  # the student's own end
    return (*poll.seen, timed_out, None if poll.mode == "explore" else poll.state)


def teacher_sees(pulse: Pulse, now: float | None = None, extra: float = 0.0) -> tuple:
    """What the teacher's desk and the projector show: a student's view, the roster's length, the answers. ``extra``:
    the desk's answers are open until the last student's time ends (``pulse.most_extra``); the projector's (0) until
    the class's."""
    return (student_sees(replace(pulse.poll, extra=extra), now), pulse.students, pulse.answers, pulse.last_answer,
            pulse.show_results)


# what a page of each kind sees of its class's pulse (a student's with their own extra time: the pulse is the class's)
SEES = {"student": lambda pulse, now, page: student_sees(replace(pulse.poll, extra=page.extra), now),
        "teacher": lambda pulse, now, page: teacher_sees(pulse, now, page.extra)}


@dataclass
class _Page:
    kind: str  # "student" (wakes the whole page) or "teacher" (wakes the fragment that drew it)
    seen: tuple  # what the page drew
    fragment: str | None  # the fragment to rerun, or None for the whole page
    woken_for: tuple | None = None  # the class's state it was last woken for (one wake a change) …
    woken_at: float = 0.0  # … when (time.monotonic) …
    tries: int = 0  # … and how many times
    extra: float = 0.0  # a student's extra seconds on every timer (their page sees the time up that much later)


def due(page: _Page, sees: tuple | None, now: float) -> bool:
    """Whether to wake ``page``, whose class now is ``sees``: it drew something else, and it was not woken for
    this already (or was, RETRY seconds ago or more, with no run since that drew it, fewer than RETRIES
    times again)."""
    if sees == page.seen:
        return False
    return sees != page.woken_for or (page.tries <= RETRIES and now - page.woken_at >= RETRY)


_lock = threading.Lock()
_pages: dict[str, dict[tuple[str, str], _Page]] = {}  # class code → (session id, kind) → page
_store: Store | None = None
_thread: threading.Thread | None = None


def watch(store: Store, code: str, kind: str, seen: tuple, extra: float = 0.0) -> None:
    """Called by a page's run: this session shows class ``code`` as ``seen``; wake it when that changes. Called
    from a fragment, the fragment is what is woken. ``extra``: a student's extra seconds on every timer."""
    session, fragment = _here()
    if session is None:  # no Streamlit server (AppTest): nothing to wake
        return
    global _store
    with _lock:
        _store = store
        for other, pages in _pages.items():  # a session shows one class: a student who moved on forgets the last
            if other != code:
                pages.pop((session, kind), None)
        _pages.setdefault(code, {})[(session, kind)] = _Page(kind, seen, fragment, extra=extra)
    _start()


def forget(kind: str) -> None:
    """This session no longer shows a class as ``kind`` (a student who left)."""
    session, _ = _here()
    with _lock:
        for pages in _pages.values():
            pages.pop((session, kind), None)


def watched() -> dict[str, int]:
    """How many pages watch each class (for tests and the benchmark)."""
    with _lock:
        return {code: len(pages) for code, pages in _pages.items() if pages}


def _here() -> tuple[str | None, str | None]:
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState, get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None or not Runtime.exists():
        return None, None
    return ctx.session_id, ThreadState.get().fragment_id


def fragment_run() -> bool:
    """Whether this is a fragment's own run (not the whole page's)."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def _start() -> None:
    global _thread
    with _lock:
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_run, name="attention-lab-class-watch", daemon=True)
            _thread.start()


def _run() -> None:
    while True:
        time.sleep(TICK)
        try:
            tick()
        except Exception:  # the database out of reach for a moment: the pages' own timers go on
            _LOG.exception("class watch")


def tick(now: float | None = None) -> int:
    """One look at the watched classes: wakes the pages whose class changed. Returns how many it woke."""
    with _lock:
        store, codes = _store, [code for code, pages in _pages.items() if pages]
    if store is None or not codes:
        return 0
    pulses = store.pulses(codes)
    now = time.time() if now is None else now
    woken = 0
    with _lock:
        # At most WAKING pages run at once for the watch: Streamlit runs each session's script in a thread of its
        # own, and a hundred woken at once share one interpreter, all finishing together (a class of 100 saw
        # its first page after as long as its last), while the server's event loop, which sends their pages,
        # waits for the same interpreter: a run whose messages are not sent before the session's next run
        # starts loses them (ForwardMsgQueue.clear). A few at a time, each is sent as soon as it is drawn.
        clock = time.monotonic()
        budget = WAKING - sum(page.woken_for is not None and page.woken_for != page.seen and
                              clock - page.woken_at < RETRY for pages in _pages.values() for page in pages.values())
        for code in codes:
            pages = _pages.get(code, {})
            pulse = pulses.get(code)
            for key, page in list(pages.items()):
                sees = None if pulse is None else SEES[page.kind](pulse, now, page)
                if budget <= 0 or not due(page, sees, clock):
                    continue
                session = _session(key[0])
                if session is None:  # the browser has gone
                    del pages[key]
                    continue
                _wake(session, page, sees)
                woken += 1
                budget -= 1
            if not pages:
                _pages.pop(code, None)
    return woken


def _session(session_id: str) -> Any:
    from streamlit.runtime import Runtime

    return Runtime.instance().get_app_session(session_id) if Runtime.exists() else None


def _wake(session: Any, page: _Page, sees: tuple | None) -> None:
    """Rerun the page on its session's event loop, if it is not running now (then the next tick tries again)."""
    from streamlit.proto.ClientState_pb2 import ClientState
    from streamlit.runtime.app_session import AppSessionState

    earlier = (page.woken_for, page.woken_at, page.tries)
    page.tries = page.tries + 1 if page.woken_for == sees else 1  # counted now: the next tick's budget sees it
    page.woken_for, page.woken_at = sees, time.monotonic()

    def on_the_loop() -> None:
        with _lock:
            if session._state != AppSessionState.APP_NOT_RUNNING:  # a run under way: the next tick tries again
                page.woken_for, page.woken_at, page.tries = earlier
                return
            state = ClientState()
            state.CopyFrom(session._client_state)  # the page and widget values of the session's last run
            if page.fragment is not None:
                if not session.has_fragment(page.fragment):  # the page moved on: its next run says what it shows
                    page.tries = RETRIES + 1
                    return
                state.fragment_id, state.is_auto_rerun = page.fragment, True
            else:  # the whole page, even if the last request was a fragment's
                state.fragment_id, state.is_auto_rerun = "", False
        session.request_rerun(state)

    session._call_soon_on_event_loop(on_the_loop)
