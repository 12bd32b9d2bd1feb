"""The class benchmark (bench/bench_class_pages.py) on a class of three, as a test: its students are clients that
speak Streamlit's websocket protocol as a page does, on a real server. It asserts what the benchmark only prints:
every student joined, followed the teacher's new lesson and the pause, answered, and the desk counted every answer.
The benchmark broke once, unseen, when the page's words changed (an answer's acknowledgement moved into an alert);
this keeps it, and a class of real clients, in `make test`."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import bench.bench_class_pages as bench
from bench.bench_class_pages import class_of
from classmode.store import Store
from tests.browser.server import streamlit_server

STUDENTS = 3


def test_a_class_of_three_websocket_students_follows_answers_and_pauses(tmp_path, monkeypatch):
    monkeypatch.setattr(bench, "LIMIT", 60.0)  # seconds a phase may take before the run gives up on it (and fails)
    with streamlit_server(env={"ATTENTION_LAB_DATA": str(tmp_path)}) as server:
        # in a thread of its own: after the browser tests, Playwright's event loop runs in this one (asyncio.run
        # refused: "cannot be called from a running event loop", in make test only)
        with ThreadPoolExecutor(1) as thread:
            result = thread.submit(asyncio.run, class_of([server], Store(f"sqlite:///{tmp_path}/classes.sqlite3"),
                                                         STUDENTS)).result()
    assert result["errors"] == []
    assert result["joins"] == STUDENTS  # every student's join was done
    assert len(result["follow"]) == STUDENTS  # every page showed the teacher's new lesson
    assert result["stored"] == STUDENTS and result["counted"] == STUDENTS  # every answer stored, and on the desk
    assert len(result["pause"]) == STUDENTS  # every page showed "Eyes up front"
