"""Memory soak: learners type hundreds of new sentences into a lesson; the server's RSS over time.

    python bench/soak.py [LESSON ...] [--sentences N] [--learners L] [--trace DIR]

LESSON is walkthrough, real_model (MiniLM), real_model_smollm2, softmax (the walkthrough at step 7),
multihead, scaling, cross, parts (default: walkthrough real_model). Each lesson gets a fresh server
(deploy/serve.py); L browser-less learners (bench/streamlit_client.py) open it, then type N sentences
in all, each one new, L at a time; the server's RSS is printed every N/10 sentences, with the last
answers' check that they hold their sentence. With --trace, the server runs under tracemalloc
(bench/traced_serve.py) and the 15 largest growths between the first and the last snapshot are
printed: where the memory that stayed was allocated. Asserts nothing; tests/test_soak.py runs a
smaller count with a bound.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.streamlit_client import Learner, calibrate
from tests.browser.server import ROOT, _serving, free_port, streamlit_server

MINILM = "MiniLM+%28all-MiniLM-L6-v2%2C+a+BERT+encoder%29"
SMOLLM2 = "SmolLM2+%28SmolLM2-135M-Instruct%2C+a+Llama+decoder%29"
LESSONS = {  # path, a table that shows the page has drawn (for the calibration)
    "walkthrough": ("/", ".st-key-table-tokens table"),
    "softmax": ("/?step=7", ".st-key-table-weights table"),
    "real_model": ("/real_model", ".st-key-table-rm-head table"),
    "real_model_smollm2": (f"/real_model?rm_model={SMOLLM2}", ".st-key-table-rm-head table"),
    "multihead": ("/multihead", ".st-key-table-concat table"),
    "scaling": ("/scaling", ".st-key-table-temperature-weights table"),
    "cross": ("/cross", ".st-key-table-ca-weights table"),
    "parts": ("/parts", ".st-key-table-parts-weights-1 table"),
}
WORDS = ("cat dog mat sat ran big red old new sun sky sea map cup pen box hat bag car bus fox owl bee ant "
         "cow pig hen elk fig eel jam pie tea egg ice oak elm ivy").split()  # one token each, in both models


def sentence(k: int) -> str:
    """The k-th new sentence: five words picked by k's digits in base len(WORDS), never the same twice."""
    words, n = [], k + len(WORDS) ** 2
    while n:
        n, r = divmod(n, len(WORDS))
        words.append(WORDS[r])
    return "the " + " ".join(words) + " here"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@contextlib.contextmanager
def server(trace: Path | None):
    if trace is None:
        with streamlit_server() as base:
            yield base
        return
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(ROOT / "bench" / "traced_serve.py"), str(trace), "app.py",
                             "--server.address", "127.0.0.1", "--server.port", str(port), "--server.headless",
                             "true"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    with _serving(proc, port, 120) as base:
        yield base


async def soak(base: str, path: str, template, sentences: int, learners: int, report) -> list[tuple[int, float]]:
    crowd = [Learner(base, path) for _ in range(learners)]
    for learner in crowd:
        await learner.open()
    pid = base.process.pid
    points = [(0, rss_mb(pid))]
    done, every, bad = 0, max(1, sentences // 10), 0
    while done < sentences:
        batch = [sentence(done + k) for k in range(min(learners, sentences - done))]
        answers = await asyncio.gather(*(learner.edit(template, s) for learner, s in zip(crowd, batch, strict=False)))
        bad += sum(a.exception or not any(all(w in md for w in s.split()) for md in a.markdown())
                   for a, s in zip(answers, batch, strict=True))
        done += len(batch)
        if done % every < len(batch) or done == sentences:
            points.append((done, rss_mb(pid)))
            report(f"  {done:5d} sentences: RSS {points[-1][1]:7.1f} MB  (answers without their sentence: {bad})")
    for learner in crowd:
        await learner.close()
    return points


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("lessons", nargs="*", default=["walkthrough", "real_model"])
    parser.add_argument("--sentences", type=int, default=300)
    parser.add_argument("--learners", type=int, default=10)
    parser.add_argument("--trace", type=Path)
    args = parser.parse_args()
    for lesson in args.lessons:
        path, ready = LESSONS[lesson]
        with server(args.trace) as base:
            template = calibrate(base, path, ready)
            print(f"{lesson}: {args.learners} learners, {args.sentences} new sentences", flush=True)
            if args.trace:
                os.kill(base.process.pid, signal.SIGUSR1)
            start = time.monotonic()
            points = asyncio.run(soak(base, path, template, args.sentences, args.learners,
                                      lambda line: print(line, flush=True)))
            print(f"  RSS {points[0][1]:.0f} → {points[-1][1]:.0f} MB (+{points[-1][1] - points[0][1]:.0f} MB) "
                  f"in {time.monotonic() - start:.0f} s", flush=True)
            if args.trace:
                os.kill(base.process.pid, signal.SIGUSR1)
                time.sleep(20)
                first, last = (tracemalloc.Snapshot.load(str(args.trace / f"{k}.pickle")) for k in (0, 1))
                for stat in last.compare_to(first, "traceback")[:15]:
                    print(f"  +{stat.size_diff / 2**20:.1f} MB in {stat.count_diff} blocks")
                    for line in stat.traceback.format()[-12:]:
                        print("     ", line)


if __name__ == "__main__":
    main()
