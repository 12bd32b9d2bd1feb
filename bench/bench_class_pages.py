"""Class mode with N students' pages on real servers: the page-level class benchmark (issues 24 and 33).

Each student is a client that speaks Streamlit's websocket protocol as the page does
(bench/streamlit_client.py), not a Chromium page: 100 Chromium pages would take this machine's two
cores from the server. A student opens the join link, its identity component reports its browser id
(static/identity.js), it types the code and a nickname and presses Join. From then on it is a page as a
browser's is: it draws every run the server sends, in order, whoever asked for it (ui/class_watch.py's
wakes, its own slow timer every SAFETY seconds, its own clicks), and sends its requests without waiting
for "their" run. It answers an open question 0–2 s after its page shows it (the radio's value and the
send button's press). The teacher is a browser too: its lesson page on the walkthrough moves to
multi-head attention (its run publishes the lesson), then presses "Ask the class" in that page's
sidebar; its desk (/classmode) counts the answers in the table it draws, woken by the server. Last,
the class's mode is set to "Eyes up front": a change whose page is the banner alone.

Prints, for one replica on SQLite and two replicas sharing a throwaway PostgreSQL (students split
between them, as nginx would): the joins, how long until every student's page showed the teacher's
new lesson and the pause, the server CPU that took, how long until the desk counted every answer
after the last one was sent, errors, each server's CPU and RSS. Asserts nothing. ``--before COMMIT``
runs that commit's own benchmark first (a git worktree), so before and after come from one run.

    .venv/bin/python bench/bench_class_pages.py 30 100      # one replica (SQLite), then two (PostgreSQL)
    .venv/bin/python bench/bench_class_pages.py 100 --one   # one replica only
    .venv/bin/python bench/bench_class_pages.py 30 100 --before a00ada6   # that commit's numbers first
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import subprocess
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
from ui import class_watch

NEW_PAGE = "multihead"  # the teacher moves from the walkthrough to this lesson, the class follows
SAFETY = class_watch.SAFETY  # seconds: the pages' own slow timer; the server wakes them on a change
LIMIT = 120.0  # seconds a phase may take before the benchmark gives up on it (and says so)


def page_path(answer: Answer) -> str | None:
    """The address of the page the run drew (st.navigation's message names it)."""
    for m in reversed(answer.messages):  # the last run's (after a switch_page, the page now shown)
        if m.WhichOneof("type") == "navigation":
            return next((p.url_pathname for p in m.navigation.app_pages
                         if p.page_script_hash == m.navigation.page_script_hash), None)
    return None


def page_hash_of(answer: Answer, path: str) -> str:
    for m in answer.messages:
        if m.WhichOneof("type") == "navigation":
            return next(p.page_script_hash for p in m.navigation.app_pages if p.url_pathname == path)
    raise LookupError(path)


def tally(answer: Answer) -> int | None:
    """The students counted in the teacher's tally table, as the run drew it (None: no table)."""
    for text in answer.markdown():
        if text.startswith("{"):
            for panel in json.loads(text).get("panels", []):
                if panel.get("id") == "cm-tally-table":
                    return sum(int(row[0]) for row in panel["values"])
    return None


class Browser(Learner):
    """A Learner whose page follows the server's page switches and reports its identity, as a browser's would."""

    def __init__(self, base: str, path: str, held: dict):
        super().__init__(base, path)
        self.held = held
        self.identity = ""  # the identity component's widget id

    def _states(self, widgets) -> list[WidgetState]:
        """The widgets' states, and the identity component's value once the page has drawn it."""
        held = [WidgetState(id=self.identity, json_value=json.dumps({"identity": self.held}))] if self.identity else []
        return [*held, *widgets]

    async def step(self, widgets=(), fragment_id: str = "") -> Answer:
        return self.saw(await self.rerun("", self._states(widgets), fragment_id))

    async def post(self, widgets=(), fragment_id: str = "") -> None:
        """A request as the page sends one, without waiting for a run (the page draws runs as they come)."""
        await self.send(self.rerun_message("", self._states(widgets), fragment_id))

    def saw(self, answer: Answer) -> Answer:
        self.page_hash = answer.page_hash() or self.page_hash
        self.identity = answer.widgets().get("identity", self.identity)
        return answer


async def join(page: Browser, code: str, nickname: str) -> Answer:
    """A student's first steps on the join page: open it, the identity component reports, the code and nickname
    typed and sent. Returns the run after the browser stored the class (the student's page in the class)."""
    page.saw(await page.open())
    widgets = (await page.step()).widgets()  # the identity component's first report
    await page.step([WidgetState(id=widgets["cm_code"], string_value=code),
                     WidgetState(id=widgets["cm_nick"], string_value=nickname),
                     trigger(widgets["cm_join"])])
    page.held = {**page.held, "class": code, "nick": nickname}  # the browser keeps them
    return await page.step()


@dataclass
class Student:
    base: str
    code: str
    me: str = field(default_factory=lambda: secrets.token_hex(16))
    errors: list[str] = field(default_factory=list)
    joined_at: float | None = None  # when its page first showed the class's lesson
    followed_at: float | None = None  # when its page first showed the teacher's new lesson
    answered_at: float | None = None
    paused_at: float | None = None  # when its page first showed the class paused ("Eyes up front")
    join_seconds: float = 0.0
    unacknowledged: int = 0  # answers sent again: no run showed "Received: your answer" within 10 s

    async def run(self, stop: asyncio.Event, lesson_changed: list[float]) -> None:
        page = Browser(self.base, f"/classmode?class={self.code}", {"browser": self.me})
        try:
            start = time.perf_counter()
            answer = await join(page, self.code, f"s{self.me[:4]}")
            self.join_seconds = time.perf_counter() - start
            self.joined_at = time.perf_counter()
            # From here the page is what a browser's is: it draws every run the server sends, whoever asked for
            # it (a wake, its timer, its own click), in order; its requests are sent without waiting for "their"
            # run (a wake's run may come first).
            fragment = (answer.fragments() or [""])[0]
            timer = time.perf_counter() + random.uniform(0, SAFETY)  # the class's timers are not in step
            sending: tuple | None = None  # (when, the choice, the send button's id) of an answer being sent
            while not stop.is_set():
                if answer is not None:
                    if answer.exception:
                        self.errors.append("exception on the page")
                    shown = answer.markdown()
                    if lesson_changed and self.followed_at is None and page_path(answer) == NEW_PAGE:
                        self.followed_at = time.perf_counter()
                    if self.paused_at is None and f"**Class {self.code}** · s{self.me[:4]} · paused" in shown:
                        self.paused_at = time.perf_counter()
                    if sending is not None and self.answered_at is None and \
                            any(t.startswith("Received: your answer") for t in shown):
                        self.answered_at = time.perf_counter()
                    widgets = answer.widgets()
                    number = next((k.removeprefix("cm_send_") for k in widgets if k.startswith("cm_send_")), None)
                    if number is not None and sending is None:  # a question: read it, choose, send
                        radio = next((e.radio for e in answer.elements() if e.WhichOneof("type") == "radio"), None)
                        typed = random.choice(radio.options) if radio is not None else f"{random.random():.2f}"
                        sending = (time.perf_counter() + random.uniform(0, 2.0),
                                   WidgetState(id=widgets[f"cm_answer_{number}"], string_value=typed),
                                   widgets[f"cm_send_{number}"], 0)
                    fragment = (answer.fragments() or [fragment])[0]
                now = time.perf_counter()
                if sending is not None and self.answered_at is None and now >= sending[0]:
                    _, choice, send, times = sending
                    await page.post([choice])  # the choice (the send button enables) …
                    await page.post([choice, trigger(send)])  # … and the press
                    self.unacknowledged += times > 0  # sent before, and no run showed "Received: your answer" since
                    sending = (now + 10.0, choice, send, times + 1)  # unacknowledged in 10 s: sent again
                if now >= timer:  # the page's own slow timer
                    timer += SAFETY
                    await page.post(fragment_id=fragment)
                due = timer if sending is None or self.answered_at is not None else min(timer, sending[0])
                woken = await page.receive(min(0.5, max(0.01, due - now)))
                answer = page.saw(woken) if woken is not None else None
        except Exception as error:  # a benchmark reports every failure, and goes on
            self.errors.append(f"{type(error).__name__}: {error}")
        finally:
            if getattr(page, "ws", None) is not None:
                await page.close()


async def class_of(bases: list[str], store: Store, count: int) -> dict:
    teacher_id = secrets.token_hex(16)
    key = store.create_class({"page": "", "query": {}}, browser=teacher_id)
    held = {"browser": teacher_id, "teach": {"secret": key.secret, "code": key.code}}
    teacher = Browser(bases[0], "/", held)  # the teacher's lesson page, on the walkthrough
    pages = teacher.saw(await teacher.open())
    await teacher.step()  # its identity: now it teaches, and the class follows the walkthrough
    students = [Student(bases[k % len(bases)], key.code) for k in range(count)]
    stop, lesson_changed = asyncio.Event(), []
    t0 = time.perf_counter()
    tasks = [asyncio.create_task(s.run(stop, lesson_changed)) for s in students]
    result: dict = {}

    async def until(condition, limit: float = LIMIT) -> float | None:
        start = time.perf_counter()
        while not condition():
            if time.perf_counter() - start > limit:
                return None
            await asyncio.sleep(0.05)
        return time.perf_counter() - start

    await until(lambda: all(s.joined_at is not None or s.errors for s in students))
    result["joined"] = time.perf_counter() - t0
    result["joins"] = sum(s.joined_at is not None for s in students)
    await asyncio.sleep(2.0)  # the class settles
    cpu = {b: cpu_seconds(b.process.pid) for b in bases}

    changed = time.perf_counter()  # the teacher opens another lesson page: its run publishes it
    lesson_changed.append(changed)
    teacher.page_hash = page_hash_of(pages, NEW_PAGE)
    lesson = await teacher.step()
    if page_path(lesson) != NEW_PAGE:
        raise RuntimeError("the teacher's page did not move")
    await until(lambda: all(s.followed_at is not None or s.errors for s in students))
    follow = sorted(s.followed_at - changed for s in students if s.followed_at is not None)
    result["follow"] = follow
    result["follow_cpu"] = sum(cpu_seconds(b.process.pid) - cpu[b] for b in bases)

    await teacher.step([trigger(lesson.widgets()["cm_ask"])])  # "Ask the class", in the lesson's sidebar
    desk = Browser(bases[0], "/classmode", held)  # the teacher's desk, in a second tab
    desk.saw(await desk.open())
    watching = await desk.step()
    live = watching.fragments()[0]
    await until(lambda: all(s.answered_at is not None or s.errors for s in students))
    last_answer = max((s.answered_at for s in students if s.answered_at is not None), default=time.perf_counter())
    counted = tally(watching) or 0
    while counted < count and time.perf_counter() - last_answer < LIMIT:
        woken = await desk.receive(SAFETY)  # the server reruns the desk's live part when an answer arrives
        counted = tally(desk.saw(woken) if woken else await desk.step(fragment_id=live)) or counted
    result["chart"] = time.perf_counter() - last_answer
    result["counted"] = counted
    result["stored"] = len(store.answers(key.secret, 1))

    # "Eyes up front": a change whose page is the banner alone, so what is left is the wake and a run's floor
    cpu_before_pause = cpu_seconds(bases[0].process.pid) if len(bases) == 1 else None
    paused = time.perf_counter()
    store.set_mode(key.secret, "pause")
    await until(lambda: all(s.paused_at is not None or s.errors for s in students))
    result["pause"] = sorted(s.paused_at - paused for s in students if s.paused_at is not None)
    if cpu_before_pause is not None:
        result["pause_cpu"] = cpu_seconds(bases[0].process.pid) - cpu_before_pause
    result["cpu"] = {b: cpu_seconds(b.process.pid) - cpu[b] for b in bases}
    result["span"] = time.perf_counter() - changed
    result["rss"] = {b: rss_mb(b.process.pid) for b in bases}
    stop.set()
    await asyncio.gather(*tasks)
    for client in (teacher, desk):
        await client.close()
    result["errors"] = [e for s in students for e in s.errors]
    result["resent"] = sum(s.unacknowledged for s in students)
    result["join"] = sorted(s.join_seconds for s in students)
    return result


def report(name: str, count: int, r: dict) -> None:
    def q(values: list[float], p: float) -> str:
        return f"{values[min(len(values) - 1, int(p * len(values)))]:.2f}" if values else "–"

    follow = r["follow"]
    print(f"{name}, {count} students: joined (every page drawn) in {r['joined']:.1f} s, join p50/p95 "
          f"{q(r['join'], .5)}/{q(r['join'], .95)} s")
    print(f"  new lesson: {len(follow)}/{count} pages followed; p50/p95/max {q(follow, .5)}/"
          f"{q(follow, .95)}/{(follow or [float('nan')])[-1]:.2f} s after the change; server CPU "
          f"{1000 * r['follow_cpu'] / count:.0f} ms a student")
    print(f"  answers: {r['stored']}/{count} stored; the teacher's chart showed {r['counted']} "
          f"{r['chart']:.2f} s after the last answer")
    pause = r["pause"]
    print(f"  eyes up front: {len(pause)}/{count} pages paused; p50/p95/max {q(pause, .5)}/{q(pause, .95)}/"
          f"{(pause or [float('nan')])[-1]:.2f} s"
          + (f"; server CPU {1000 * r['pause_cpu'] / count:.0f} ms a student" if "pause_cpu" in r else ""))
    for base, cpu in r["cpu"].items():
        print(f"  server {urlsplit(base).port}: CPU {cpu:.1f} s over {r['span']:.0f} s "
              f"({100 * cpu / r['span']:.0f} % of one core), RSS {r['rss'][base]:.0f} MB")
    print(f"  answers sent again (none acknowledged in 10 s): {r['resent']}")
    print(f"  errors: {len(r['errors'])}" + "".join(f"\n    {e}" for e in r["errors"][:5]))


def before(commit: str, args: list[str]) -> None:
    """The same benchmark as ``commit`` had it, on ``commit``'s app (a git worktree of it, this environment's
    Python), run first: before and after come from one run on one machine. Its output is printed as it is."""
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / "before"
        subprocess.run(["git", "-C", str(root), "worktree", "add", "--detach", str(tree), commit], check=True,
                       capture_output=True)
        try:
            print(f"before ({commit}):", flush=True)
            subprocess.run([sys.executable, "bench/bench_class_pages.py", *args], cwd=tree, check=False)
        finally:
            subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force", str(tree)], check=False)
    print("after (this tree):", flush=True)


def main() -> None:
    args = sys.argv[1:]
    if "--before" in args:  # --before COMMIT: that commit's numbers first
        commit = args[args.index("--before") + 1]
        args = [a for a in args if a not in ("--before", commit)]
        before(commit, args)
    counts = [int(a) for a in args if a.isdigit()] or [100]
    for count in counts:  # a fresh server (and database) for each class
        with tempfile.TemporaryDirectory() as folder, streamlit_server(env={"ATTENTION_LAB_DATA": folder}) as one:
            report("one replica, SQLite", count,
                   asyncio.run(class_of([one], Store(f"sqlite:///{folder}/classes.sqlite3"), count)))
        if "--one" in args:
            continue
        with throwaway_postgres() as url, ExitStack() as servers:
            env = {"ATTENTION_LAB_DATABASE_URL": url}
            bases = [servers.enter_context(streamlit_server(env=env)) for _ in range(2)]
            report("two replicas, PostgreSQL", count, asyncio.run(class_of(bases, Store(url), count)))


if __name__ == "__main__":
    main()
