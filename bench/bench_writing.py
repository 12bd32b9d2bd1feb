"""Writing on from a text already written (issue 46): SmolLM2 writing 13 tokens after the lesson's sentence, from
the start against going on from the 8 it wrote before (``SmolLM2.generate(..., continuing=...)``), in turns in one
run, so that a busy moment slows both alike. Asserts nothing; the numbers are the same either way (a test).

    .venv/bin/python bench/bench_writing.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attention.pretrained import load  # noqa: E402, RUF100
from ui.settings import DEFAULT_SENTENCE  # noqa: E402, RUF100

ROUNDS, BEFORE, AFTER = 5, 8, 13


def seconds(work) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def main() -> None:
    model = load("smollm2")
    written = model.generate(DEFAULT_SENTENCE, BEFORE)
    anew, going_on = [], []
    for _ in range(ROUNDS):
        anew.append(seconds(lambda: model.generate(DEFAULT_SENTENCE, AFTER)))
        going_on.append(seconds(lambda: model.generate(DEFAULT_SENTENCE, AFTER, continuing=written)))
    a, b = statistics.median(anew), statistics.median(going_on)
    print(f"{AFTER} tokens after “{DEFAULT_SENTENCE}”, {BEFORE} written before, median of {ROUNDS} in turns:")
    print("| written | s |\n| --- | --- |")
    print(f"| from the start (before) | {a:.2f} |\n| on from the {BEFORE} (after) | {b:.2f} |")
    print(f"after / before: {b / a:.2f}")


if __name__ == "__main__":
    main()
