"""Class-mode benchmark: N students (threads, as N sessions of a server would be) join a class, poll
it every 2 s as their page does, and answer an open question at once; the teacher polls the tally.
Prints how long until the teacher's tally holds every answer, each call's p50 / p95, errors, and the
process's CPU, for SQLite and for a throwaway PostgreSQL (tests/postgres.py). Asserts nothing.

    .venv/bin/python bench/bench_class.py 30 100
    .venv/bin/python bench/bench_class.py --pages 10     # the pages' side, in Chromium

The first measures the database side of class mode, which every replica shares. ``--pages N`` opens
N students' pages in Chromium on one `streamlit run` and measures the server's CPU while they wait
for a question (each page's poll is a fragment rerun): the server's cost per student per second,
from which a class of 100 follows. The Chromium pages share this machine's two cores, so their
count stays small.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from classmode.store import Store
from tests.postgres import throwaway_postgres

QUESTION = {"prompt": "Which key?", "options": ["This", "forum", "is", "awesome"], "answer": "is", "also": [],
            "explanation": ""}


def run(store: Store, students: int) -> dict:
    teacher = store.create_class({"sentence": "This forum is awesome"})
    timings: dict[str, list[float]] = {"join": [], "poll": [], "answer": []}
    errors: list[str] = []
    lock = threading.Lock()
    asked = threading.Event()
    done = threading.Event()

    def timed(kind: str, call) -> object:
        t0 = time.perf_counter()
        try:
            return call()
        except Exception as error:
            with lock:
                errors.append(f"{kind}: {error}")
            return None
        finally:
            with lock:
                timings[kind].append(time.perf_counter() - t0)

    def student(k: int) -> None:
        me = f"student-{k}"
        timed("join", lambda: store.join(teacher.code, me, f"s{k}", f"10.0.{k // 250}.{k % 250}"))
        while not done.is_set():
            view = timed("poll", lambda: store.join(teacher.code, me, f"s{k}", f"10.0.{k // 250}.{k % 250}"))
            if asked.is_set() and view is not None and view.question is not None:
                timed("answer", lambda number=view.question_no: store.answer(teacher.code, me, number, "is"))
                break
            time.sleep(2.0 * (0.5 + (k % 10) / 10))  # the polls of a class spread over time

    cpu0 = time.process_time()
    threads = [threading.Thread(target=student, args=(k,)) for k in range(students)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    store.open_question(teacher.secret, QUESTION)
    t0 = time.perf_counter()
    asked.set()
    while len(store.answers(teacher.secret, 1)) < students and time.perf_counter() - t0 < 60:
        time.sleep(0.1)  # the teacher's tally, polled faster than the page's 1.5 s to time it finely
    complete = time.perf_counter() - t0
    done.set()
    for t in threads:
        t.join()
    return {"complete": complete, "counted": len(store.answers(teacher.secret, 1)), "errors": errors,
            "cpu": time.process_time() - cpu0, "timings": timings}


def report(name: str, students: int, result: dict) -> None:
    def p(kind: str, q: float) -> str:
        values = sorted(result["timings"][kind])
        return f"{1000 * values[min(len(values) - 1, int(q * len(values)))]:.1f}" if values else "–"

    print(f"{name:>10} {students:>4}  all {result['counted']:>3} counted {result['complete']:5.2f} s after the "
          f"question; join p50/p95 {p('join', .5)}/{p('join', .95)} ms, poll {p('poll', .5)}/{p('poll', .95)} ms, "
          f"answer {p('answer', .5)}/{p('answer', .95)} ms; errors {len(result['errors'])}; "
          f"CPU {result['cpu']:.2f} s")
    for error in result["errors"][:3]:
        print("   ", error)


def pages(count: int, seconds: float = 30.0) -> None:
    """Server CPU while ``count`` students' pages in Chromium follow a class with no question open."""
    from playwright.sync_api import sync_playwright

    from bench.bench_server_load import cpu_seconds
    from tests.browser.server import launch_chromium, streamlit_server

    with streamlit_server() as base, sync_playwright() as p:
        browser = launch_chromium(p)
        teacher = browser.new_page()
        teacher.goto(base + "/classmode")
        teacher.locator(".st-key-cm_start button").click()
        code = teacher.locator(".class-code").inner_text(timeout=120_000)
        students = []
        for _ in range(count):
            page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
            page.goto(f"{base}/classmode?class={code}")
            page.get_by_text("Your teacher's lesson").wait_for(timeout=120_000)
            students.append(page)
        time.sleep(5)
        pid = base.process.pid
        cpu0, t0 = cpu_seconds(pid), time.perf_counter()
        time.sleep(seconds)
        cpu = cpu_seconds(pid) - cpu0
        wall = time.perf_counter() - t0
        per_student = 1000 * cpu / wall / count
        print(f"{count} students' pages and the teacher's waiting {wall:.0f} s: server CPU {1000 * cpu / wall:.1f} ms "
              f"a second, {per_student:.1f} ms a second a student (the teacher's poll included; a student polls "
              f"every 2 s: {2 * per_student:.1f} ms a poll); 100 students: {100 * per_student / 1000:.0%} of one core")
        box = teacher.locator(".st-key-sentence input")  # the teacher changes the lesson; the class follows
        cpu0, t0 = cpu_seconds(pid), time.perf_counter()
        box.fill("the cat sat on the mat")
        box.press("Enter")
        for page in students:
            page.get_by_text("Sentence: “the cat sat on the mat”").wait_for(timeout=120_000)
        wall = time.perf_counter() - t0
        cpu = cpu_seconds(pid) - cpu0
        print(f"a new sentence reached all {count} pages in {wall:.1f} s; server CPU {1000 * cpu:.0f} ms "
              f"({1000 * cpu / count:.0f} ms a student, polls included)")
        browser.close()


def main() -> None:
    if sys.argv[1:2] == ["--pages"]:
        pages(int(sys.argv[2]) if len(sys.argv) > 2 else 10)
        return
    counts = [int(a) for a in sys.argv[1:]] or [30, 100]
    with tempfile.TemporaryDirectory() as folder, throwaway_postgres() as url:
        for students in counts:
            report("SQLite", students, run(Store(f"sqlite:///{folder}/classes-{students}.sqlite3"), students))
            report("PostgreSQL", students, run(Store(url), students))
    print("(one process, threads as sessions; each student polls every 1–2 s)")


if __name__ == "__main__":
    main()
