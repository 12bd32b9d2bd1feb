"""ui/background.py: long actions in a worker thread, shared by the sessions that wait for them, stopped when the
last one cancels. The worker is real (a thread); every wait is for a state, with a generous bound."""

from __future__ import annotations

import threading

import pytest

from ui import background
from ui.background import Cancelled

BOUND = 120  # seconds: only a broken job takes this long


def endless(started: threading.Event):
    """Work that reports its progress until it is stopped (as the scan does, layer by layer)."""
    def work(job: background.Job):
        started.set()
        done = 0.0
        while True:
            job.progress(done)
            done = min(1.0, done + 0.001)
            threading.Event().wait(0.001)
    return work


def test_a_job_answers_with_its_result_and_is_kept_for_the_next_session():
    calls = []
    job = background.start(("t", "result"), lambda job: calls.append(1) or 42, who="a")
    assert job.future.result(timeout=BOUND) == 42 and not job.failed
    again = background.start(("t", "result"), lambda job: calls.append(1) or 43, who="b")
    assert again is job and again.future.result() == 42 and calls == [1]  # not computed twice


def test_cancel_by_the_only_session_stops_the_job_and_frees_the_worker():
    started = threading.Event()
    job = background.start(("t", "stopped"), endless(started), who="a")
    assert started.wait(BOUND)
    background.withdraw(("t", "stopped"), who="a")
    with pytest.raises(Cancelled):
        job.future.result(timeout=BOUND)
    after = background.start(("t", "after"), lambda job: "free", who="a")  # the one worker takes the next job
    assert after.future.result(timeout=BOUND) == "free"
    again = background.start(("t", "stopped"), lambda job: "anew", who="a")  # a stopped job is started anew
    assert again is not job and again.future.result(timeout=BOUND) == "anew"


def test_a_job_two_sessions_wait_for_goes_on_until_both_cancel():
    started = threading.Event()
    job = background.start(("t", "shared"), endless(started), who="a")
    assert background.start(("t", "shared"), endless(started), who="b") is job
    assert started.wait(BOUND)
    background.withdraw(("t", "shared"), who="a")
    assert not job.stop.is_set() and not job.finished and job.waiting == {"b"}  # b still waits: it goes on
    background.withdraw(("t", "shared"), who="b")
    with pytest.raises(Cancelled):
        job.future.result(timeout=BOUND)


def test_a_job_cancelled_before_the_worker_takes_it_never_runs():
    started, ran = threading.Event(), []
    first = background.start(("t", "busy"), endless(started), who="a")
    assert started.wait(BOUND)
    queued = background.start(("t", "queued"), lambda job: ran.append(1), who="b")
    assert queued.started is None  # the one worker is busy
    background.withdraw(("t", "queued"), who="b")
    background.withdraw(("t", "busy"), who="a")
    with pytest.raises(Cancelled):
        first.future.result(timeout=BOUND)
    assert queued.future.cancelled() or isinstance(queued.future.exception(timeout=BOUND), Cancelled)
    assert ran == []


def test_finished_jobs_kept_are_bounded():
    for k in range(background.KEPT + 5):
        background.start(("t", "kept", k), lambda job, k=k: k, who="a").future.result(timeout=BOUND)
    assert sum(1 for key in background._jobs if key[:2] == ("t", "kept")) <= background.KEPT + 1  # (and the last)
