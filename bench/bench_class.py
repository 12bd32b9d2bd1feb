"""Class-mode benchmark: N students (threads, as N sessions of a server would be) join a class, poll
it every 2 s as their page does, and answer an open question at once; the teacher polls the tally.
Prints how long until the teacher's tally holds every answer, each call's p50 / p95, errors, and the
process's CPU, for SQLite and for a throwaway PostgreSQL (tests/postgres.py). Asserts nothing.

    .venv/bin/python bench/bench_class.py 30 100

It measures the database side of class mode, which every replica shares; the pages' side, on real
servers, is bench/bench_class_pages.py.
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
    teacher = store.create_class({"page": "", "query": {}})
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


def main() -> None:
    counts = [int(a) for a in sys.argv[1:]] or [30, 100]
    with tempfile.TemporaryDirectory() as folder, throwaway_postgres() as url:
        for students in counts:
            report("SQLite", students, run(Store(f"sqlite:///{folder}/classes-{students}.sqlite3"), students))
            report("PostgreSQL", students, run(Store(url), students))
    print("(one process, threads as sessions; each student polls every 1–2 s)")


if __name__ == "__main__":
    main()
