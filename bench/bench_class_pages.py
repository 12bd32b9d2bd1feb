"""Class mode with N students' pages on real servers: the page-level class benchmark (issue 24).

Each student is a client that speaks Streamlit's websocket protocol as the page does
(bench/streamlit_client.py), not a Chromium page: 100 Chromium pages would take this machine's two
cores from the server. A student opens the join link (a session and its first run: the join),
reruns its polling fragment every 2 s as the page's timer does (`st.fragment(run_every=2)`), opens
the lesson frame as the browser would when its address changes (a session of its own at the
teacher's link, and its first run), and answers an open question 0–2 s after its page shows it (the
radio's value and the send button's press). The teacher is a client too: it presses "Ask the class"
and reruns its live fragment every 1.5 s, reading the tally from the table it draws; the lesson
change is written to the class as the teacher's lesson page writes it (``Store.set_state``).

Prints, for one replica on SQLite and two replicas sharing a throwaway PostgreSQL (students split
between them, as nginx would): the joins, how long until every student's page (frame included)
showed the teacher's new lesson, how long until the teacher's chart counted every answer after the
last one was sent, errors, each server's CPU and RSS. Asserts nothing.

    .venv/bin/python bench/bench_class_pages.py 30 100      # one replica (SQLite), then two (PostgreSQL)
    .venv/bin/python bench/bench_class_pages.py 100 --one   # one replica only
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from streamlit.proto.WidgetStates_pb2 import WidgetState

from bench.bench_server_load import cpu_seconds
from bench.soak import rss_mb
from bench.streamlit_client import Answer, Learner, trigger
from classmode.store import Store
from tests.browser.server import streamlit_server
from tests.postgres import throwaway_postgres

NEW_LESSON = {"page": "multihead", "query": {"sentence": "the cat sat on the mat", "heads": "4"}}
STUDENT_POLL, TEACHER_POLL = 2.0, 1.5  # seconds, as ui/classmode.py's fragments
LIMIT = 120.0  # seconds a phase may take before the benchmark gives up on it (and says so)


def frame_src(answer: Answer) -> str | None:
    return next((e.iframe.src for e in answer.elements() if e.WhichOneof("type") == "iframe"), None)


def tally(answer: Answer) -> int | None:
    """The students counted in the teacher's tally table, as the run drew it (None: no table)."""
    for text in answer.markdown():
        if text.startswith("{"):
            for panel in json.loads(text).get("panels", []):
                if panel.get("id") == "cm-tally-table":
                    return sum(int(row[0]) for row in panel["values"])
    return None


@dataclass
class Student:
    base: str
    code: str
    me: str = field(default_factory=lambda: secrets.token_hex(16))
    errors: list[str] = field(default_factory=list)
    frame: str | None = None
    followed_at: float | None = None  # when its page (and frame) first showed NEW_LESSON
    answered_at: float | None = None
    join_seconds: float = 0.0

    @property
    def query(self) -> str:
        return f"class={self.code}&me={self.me}"

    async def run(self, stop: asyncio.Event, lesson_changed: list[float]) -> None:
        page = Learner(self.base, f"/classmode?{self.query}")
        frame_client: Learner | None = None
        try:
            opened = await page.open()
            self.join_seconds = opened.seconds
            answer = opened
            fragment = opened.fragments()[0]
            await asyncio.sleep(random.uniform(0, STUDENT_POLL))  # the class's timers are not in step
            while not stop.is_set():
                if answer.exception:
                    self.errors.append("exception on the page")
                src = frame_src(answer)
                if src is not None and src != self.frame:  # the browser loads the frame's new address
                    self.frame = src
                    if frame_client is not None:
                        await frame_client.close()
                    frame_client = Learner(self.base, src)
                    loaded = await frame_client.open()
                    if loaded.exception:
                        self.errors.append("exception in the frame")
                    if lesson_changed and self.followed_at is None and src.startswith("/multihead?"):
                        self.followed_at = time.perf_counter()
                widgets = answer.widgets()
                number = next((k.removeprefix("cm_send_") for k in widgets if k.startswith("cm_send_")), None)
                if number is not None and self.answered_at is None:
                    await asyncio.sleep(random.uniform(0, 2.0))  # reading the question
                    radio = next(e.radio for e in answer.elements() if e.WhichOneof("type") == "radio")
                    choice = WidgetState(id=widgets[f"cm_answer_{number}"], string_value=random.choice(radio.options))
                    answer = await page.rerun(self.query, [choice])  # the radio: the send button enables
                    answer = await page.rerun(self.query, [trigger(answer.widgets()[f"cm_send_{number}"])])
                    if "Your answer:" in " ".join(answer.markdown()):
                        self.answered_at = time.perf_counter()
                    else:
                        self.errors.append("the answer was not acknowledged")
                    continue
                await asyncio.sleep(STUDENT_POLL)
                answer = await page.rerun(self.query, fragment_id=fragment)  # the timer: a changed class reruns all
                fragment = (answer.fragments() or [fragment])[0]
        except Exception as error:  # a benchmark reports every failure, and goes on
            self.errors.append(f"{type(error).__name__}: {error}")
        finally:
            for client in (page, frame_client):
                if client is not None and getattr(client, "ws", None) is not None:
                    await client.close()


async def class_of(bases: list[str], store: Store, count: int) -> dict:
    teacher_key = store.create_class({"page": "", "query": {}})
    students = [Student(bases[k % len(bases)], teacher_key.code) for k in range(count)]
    stop, lesson_changed = asyncio.Event(), []
    t0 = time.perf_counter()
    tasks = [asyncio.create_task(s.run(stop, lesson_changed)) for s in students]
    teacher = Learner(bases[0], f"/classmode?teach={teacher_key.secret}")
    opened = await teacher.open()
    result: dict = {}

    async def until(condition, limit: float = LIMIT) -> float | None:
        start = time.perf_counter()
        while not condition():
            if time.perf_counter() - start > limit:
                return None
            await asyncio.sleep(0.05)
        return time.perf_counter() - start

    await until(lambda: all(s.frame is not None for s in students))
    result["joined"] = time.perf_counter() - t0
    await asyncio.sleep(STUDENT_POLL + 1)
    cpu = {b: cpu_seconds(b.process.pid) for b in bases}

    changed = time.perf_counter()  # the teacher opens another lesson page
    store.set_state(teacher_key.secret, NEW_LESSON)
    lesson_changed.append(changed)
    await until(lambda: all(s.followed_at is not None for s in students))
    follow = sorted(s.followed_at - changed for s in students if s.followed_at is not None)
    result["follow"] = follow
    result["follow_cpu"] = sum(cpu_seconds(b.process.pid) - cpu[b] for b in bases)

    asked = await teacher.rerun(f"teach={teacher_key.secret}", [trigger(opened.widgets()["cm_ask"])])
    live = (asked.fragments() or opened.fragments())[0]
    await until(lambda: all(s.answered_at is not None or s.errors for s in students))
    last_answer = max((s.answered_at for s in students if s.answered_at is not None), default=time.perf_counter())
    counted = tally(asked) or 0
    while counted < count and time.perf_counter() - last_answer < LIMIT:
        await asyncio.sleep(TEACHER_POLL)
        counted = tally(await teacher.rerun(f"teach={teacher_key.secret}", fragment_id=live)) or 0
    result["chart"] = time.perf_counter() - last_answer
    result["counted"] = counted
    result["stored"] = len(store.answers(teacher_key.secret, 1))
    result["cpu"] = {b: cpu_seconds(b.process.pid) - cpu[b] for b in bases}
    result["span"] = time.perf_counter() - changed
    result["rss"] = {b: rss_mb(b.process.pid) for b in bases}
    stop.set()
    await asyncio.gather(*tasks)
    await teacher.close()
    result["errors"] = [e for s in students for e in s.errors]
    result["join"] = sorted(s.join_seconds for s in students)
    return result


def report(name: str, count: int, r: dict) -> None:
    def q(values: list[float], p: float) -> str:
        return f"{values[min(len(values) - 1, int(p * len(values)))]:.2f}" if values else "–"

    follow = r["follow"]
    print(f"{name}, {count} students: joined (every page and frame drawn) in {r['joined']:.1f} s, join p50/p95 "
          f"{q(r['join'], .5)}/{q(r['join'], .95)} s")
    print(f"  new lesson: {len(follow)}/{count} pages followed, frame included; p50/p95/max {q(follow, .5)}/"
          f"{q(follow, .95)}/{(follow or [float('nan')])[-1]:.2f} s after the change; server CPU "
          f"{1000 * r['follow_cpu'] / count:.0f} ms a student (polls, the fragment's rerun, the frame's first run)")
    print(f"  answers: {r['stored']}/{count} stored; the teacher's chart showed {r['counted']} "
          f"{r['chart']:.2f} s after the last answer (its page polls every {TEACHER_POLL} s)")
    for base, cpu in r["cpu"].items():
        print(f"  server {urlsplit(base).port}: CPU {cpu:.1f} s over {r['span']:.0f} s "
              f"({100 * cpu / r['span']:.0f} % of one core), RSS {r['rss'][base]:.0f} MB")
    print(f"  errors: {len(r['errors'])}" + "".join(f"\n    {e}" for e in r["errors"][:5]))


def main() -> None:
    counts = [int(a) for a in sys.argv[1:] if a.isdigit()] or [100]
    for count in counts:  # a fresh server (and database) for each class
        with tempfile.TemporaryDirectory() as folder, streamlit_server(env={"ATTENTION_LAB_DATA": folder}) as one:
            report("one replica, SQLite", count,
                   asyncio.run(class_of([one], Store(f"sqlite:///{folder}/classes.sqlite3"), count)))
        if "--one" in sys.argv:
            continue
        with throwaway_postgres() as url, ExitStack() as servers:
            env = {"ATTENTION_LAB_DATABASE_URL": url}
            bases = [servers.enter_context(streamlit_server(env=env)) for _ in range(2)]
            report("two replicas, PostgreSQL", count, asyncio.run(class_of(bases, Store(url), count)))


if __name__ == "__main__":
    main()
