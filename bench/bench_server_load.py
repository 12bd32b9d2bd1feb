"""Load benchmark without browsers: N learners edit a lesson at once, on one server.

    python bench/bench_server_load.py [N ...] [--lesson L] [--rounds R] [--server-arg ARG ...]

Each learner is a session of bench/streamlit_client.py (Streamlit's own websocket protocol, its edit
message calibrated on a real Chromium page), so the machine's two cores are left to the server, and
the numbers are the server's: what a class whose laptops draw their own pages waits for. For each N:
N learners open the lesson; then R rounds in which all N type a new sentence at the same moment and
wait for their answer. It prints the answers' p50 / p95 / max (from the edit leaving to the run's
script_finished), errors (an answer with an exception, or without the learner's new sentence in its
tables), the server's CPU time per edit (from /proc, over the rounds) and its RSS before and after.
Baselines: --lesson bare (bench/bare_app.py: a text box and st.write) and --lesson floor
(bench/floor_app.py: the app's frame and step 1's token table, the least a walkthrough can draw) and
--lesson controls (bench/controls_app.py: the floor plus the walkthrough's controls, drawn by the app's
own functions: the least a walkthrough that keeps its controls can draw).
Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.soak import LESSONS, rss_mb, sentence
from bench.streamlit_client import Learner, calibrate
from tests.browser.server import ROOT, SERVE, _serving, free_port

LESSONS = {**LESSONS, "bare": ("/", "[data-testid=stMarkdown]"), "floor": ("/", ".st-key-table-tokens table"),
           "controls": ("/", ".st-key-table-tokens table")}
# the others are the app
SCRIPTS = {"bare": "bench/bare_app.py", "floor": "bench/floor_app.py", "controls": "bench/controls_app.py"}
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


@contextlib.contextmanager
def server(script: str, extra: list[str]):
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(SERVE), script, "--server.address", "127.0.0.1", "--server.port",
                             str(port), "--server.headless", "true", *extra], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    with _serving(proc, port, 120) as base:
        yield base


def holds(answer, text: str, lesson: str) -> bool:
    if lesson == "bare":
        return any(text in md for md in answer.markdown())
    return any(all(w in md for w in text.split()) for md in answer.markdown())


async def classroom(base: str, path: str, template, n: int, rounds: int, lesson: str, offset: int) -> dict:
    learners = [Learner(base, path) for _ in range(n)]
    opened = await asyncio.gather(*(learner.open() for learner in learners))
    pid = base.process.pid
    rss_before, cpu_before = rss_mb(pid), cpu_seconds(pid)
    times, errors = [], sum(a.exception for a in opened)
    for r in range(rounds):
        texts = [sentence(offset + r * n + k) for k in range(n)]
        answers = await asyncio.gather(*(lr.edit(template, t) for lr, t in zip(learners, texts, strict=True)))
        times += [a.seconds for a in answers]
        errors += sum(a.exception or not holds(a, t, lesson) for a, t in zip(answers, texts, strict=True))
    cpu = cpu_seconds(pid) - cpu_before
    for learner in learners:
        await learner.close()
    times.sort()
    return {"n": n, "p50": statistics.median(times), "p95": times[int(0.95 * (len(times) - 1))], "max": times[-1],
            "errors": errors, "cpu_ms": 1000 * cpu / len(times), "rss": (rss_before, rss_mb(pid))}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("counts", nargs="*", type=int, default=[10, 30, 100])
    parser.add_argument("--lesson", default="walkthrough")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--server-arg", action="append", default=[])
    args = parser.parse_args()
    path, ready = LESSONS[args.lesson]
    script = SCRIPTS.get(args.lesson, "app.py")
    with server(script, args.server_arg) as base:
        template = calibrate(base, path, ready)  # the bare page's one text box is keyed "sentence" too
        print(f"{args.lesson}: {args.rounds} rounds, server {' '.join(args.server_arg) or 'as configured'}")
        print("| learners | p50 | p95 | max | errors | server CPU per edit | RSS before → after |")
        print("|---|---|---|---|---|---|---|")
        offset = 0
        for n in args.counts:
            row = asyncio.run(classroom(base, path, template, n, args.rounds, args.lesson, offset))
            offset += n * args.rounds
            print(f"| {n} | {row['p50']:.3f} s | {row['p95']:.3f} s | {row['max']:.3f} s | {row['errors']} | "
                  f"{row['cpu_ms']:.1f} ms | {row['rss'][0]:.0f} → {row['rss'][1]:.0f} MB |", flush=True)


if __name__ == "__main__":
    main()
