"""Long actions (seconds: the scan of every head, SmolLM2 writing) run beside the page, not in its run: the page
shows their progress, keeps answering, and offers Cancel (issue 35).

Why not in the run: there, any click while it computes (a step, a head, the sidebar) starts the page's run again,
and with it the computation, from nothing. Here the computation runs in a worker thread and outlives the page's
reruns; the page draws a small fragment that looks at it twice a second (a progress bar and Cancel) and, once it
is done, runs the page again to draw the result.

A job is shared and kept: sessions that ask for the same job (a class scanning one sentence) wait for the same
computation, and a finished one is answered at once (the last few of each kind). Cancel withdraws one session;
the job stops, at its next report of progress, when no session waits for it any more. One worker: on two cores
two scans at once would each take twice as long, so the second waits, and the page says so.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import streamlit as st
from streamlit import config

from viz.i18n import ENGLISH, decimal, language, percent, t

KEPT = 16  # finished jobs of a kind kept for the next session that asks (a scan's result is ~2 KB)
LOOK_EVERY = 0.5  # seconds between the page's looks at a running job


class Cancelled(Exception):
    """Raised inside a job's work, at a report of progress, once no session waits for it."""


@dataclass(eq=False)
class Job:
    key: Hashable
    future: Future = field(default_factory=Future)
    done: float = 0.0  # the share of the work done, 0 … 1, as the work reports it
    started: float | None = None  # time.monotonic() when the worker took it up
    waiting: set[str] = field(default_factory=set)  # the sessions that wait for it
    stop: threading.Event = field(default_factory=threading.Event)
    about: Any = None  # what the work says of itself once it has started (a writing: the tokens it went on from)

    def progress(self, done: float) -> None:
        """The work's report (``done``: its share done); raises Cancelled when no session waits any more."""
        if self.stop.is_set():
            raise Cancelled
        self.done = done

    @property
    def finished(self) -> bool:
        return self.future.done()

    @property
    def failed(self) -> bool:
        return self.future.done() and (self.future.cancelled() or self.future.exception() is not None)


_lock = threading.Lock()
_jobs: dict[Hashable, Job] = {}
_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="attention-lab-job")


def under_apptest() -> bool:
    """Whether AppTest runs this script. It sets its hidden option on ``streamlit.config``'s own function; the
    ``st.get_option`` name, bound at import, never sees it."""
    return bool(config.get_option("global.appTest"))


def session() -> str:
    """This browser session's token (a job's waiting list holds these)."""
    return st.session_state.setdefault("_session_token", secrets.token_hex(8))


def start(key: tuple, work: Callable[[Job], Any], who: str | None = None, kept: int = KEPT) -> Job:
    """The job ``key`` (its kind first: "scan", "generate"), the session ``who`` (this one) waiting for it: the one
    running or finished, or a new one that runs ``work(job)`` (which reports its progress with ``job.progress``).
    At most ``kept`` finished jobs of its kind are kept."""
    with _lock:
        job = _jobs.get(key)
        if job is None or job.stop.is_set() or job.failed:
            job = _jobs[key] = Job(key)
            job.future = _worker.submit(_run, job, work)
            _forget_old(key[0], kept)
        job.waiting.add(who or session())
        return job


def result(key: Hashable) -> Any | None:
    """The result of the job ``key`` if it finished well, else None; nobody is added to its waiting list."""
    with _lock:
        job = _jobs.get(key)
    return job.future.result() if job is not None and job.finished and not job.failed else None


def finished(key: Hashable, value: Any) -> Job:
    """A job that is done already: ``value``, worked out at once from another job's result (the first tokens of a
    longer text written). Not kept: the job it came from is."""
    job = Job(key, done=1.0)
    job.future.set_result(value)
    return job


def _run(job: Job, work: Callable[[Job], Any]) -> Any:
    job.started = time.monotonic()
    job.progress(0.0)  # cancelled while it waited for the worker: stop before starting
    return work(job)


def _forget_old(kind: Hashable, kept: int) -> None:
    """Keep the running jobs and the ``kept`` newest finished ones of ``kind`` (dicts keep their order of
    insertion); called as a job starts, so the job started last is kept beside them."""
    finished = [key for key, job in _jobs.items() if key[0] == kind and job.finished]
    for key in finished[: max(0, len(finished) - kept)]:
        del _jobs[key]


def withdraw(key: Hashable, who: str | None = None) -> None:
    """The session ``who`` (this one) no longer waits for the job ``key``; with nobody waiting, it stops."""
    with _lock:
        job = _jobs.get(key)
        if job is None:
            return
        job.waiting.discard(who or session())
        if not job.waiting and not job.finished:
            job.stop.set()
            job.future.cancel()  # not started yet: it never will be
            del _jobs[key]


_RESULT_RUN = "_background_result_run"


def _rerun_for_result() -> None:
    """Run the whole page again, marked as the run that draws a job's result (``result_run``)."""
    st.session_state[_RESULT_RUN] = True
    st.rerun()


def result_run() -> bool:
    """Whether this run is the one a job's end asked for, not a learner's action (asked once a run, by the link's
    check, ui.links: what the page's first run said about its link still holds)."""
    return bool(st.session_state.pop(_RESULT_RUN, False))


def share_text(done: float) -> str:
    """A share of the work done as the bar says it: whole percents from 10 %, a tenth below, "<0.1%" for less, so
    that work begun never reads 0 % (a scan's first of 465 layer runs is 0.2 %). Rounded down, so that work still
    running never reads 100 % (463 of 465 is "99%") and a share below 10 % never reads "10.0%" (0.0999 is "9.9%")."""
    if done <= 0:
        return _percent("0")
    tenths = math.floor(done * 1000 + 1e-9)  # (1e-9: 0.29 * 100 is 28.999999999999996 in floats)
    if tenths < 1:
        return "<" + _percent("0.1")
    return _percent(f"{tenths / 10:.1f}" if tenths < 100 else f"{math.floor(done * 100 + 1e-9)}")


def _percent(number: str) -> str:
    """A bar's share as its language writes it: "9.9%" in English (a bar's compact form), "9,9 %" in French."""
    return f"{number}%" if language() == ENGLISH else percent(decimal(number))


def progress_text(what: str, done: float, seconds: float) -> str:
    """The bar's line under a running job: the share done, or "starting" before the job's first report (a share of
    0 % said nothing had begun, while the job was running)."""
    share = t("{share} of the work done", share=share_text(done)) if done > 0 else t("starting")
    return t("{doing}… {share} ({seconds} s)", doing=what, share=share, seconds=f"{seconds:.0f}")


def watch(job: Job, what: str | Callable[[Job], str], *, key: str, on_cancel: Callable[..., None],
          args: tuple = ()) -> None:
    """Under a running job: its progress (``what`` is being done, or a function of the job that says it: read at
    each look, as the job may tell more once it has started) and Cancel, looked at twice a second; the
    page runs again when the job is done. ``on_cancel(*args)`` (a callback) forgets that the page asked for it.
    Under AppTest, which never runs a fragment on a timer, the run waits for the job and runs again."""
    if under_apptest():
        job.future.exception()  # (waits; a failure is the page's to show)
        _rerun_for_result()

    def cancel() -> None:
        withdraw(job.key)
        on_cancel(*args)

    @st.fragment(run_every=LOOK_EVERY)
    def look() -> None:
        if job.finished or session() not in job.waiting:
            _rerun_for_result()  # the whole page: it draws the result, or no longer asks
        doing = what(job) if callable(what) else what
        if job.started is None:
            st.progress(0.0, text=t("{doing}: waiting for another long computation on this server to finish…",
                                    doing=doing))
        else:
            st.progress(job.done, text=progress_text(doing, job.done, time.monotonic() - job.started))
        st.button(t("Cancel"), key=key, on_click=cancel, icon=":material/cancel:")

    look()
