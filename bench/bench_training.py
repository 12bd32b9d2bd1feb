"""Training benchmark ("watch a head learn"): seconds per run against the 5 s target, and ratios
against a baseline measured in the same run. Asserts nothing. Run: make bench (or
.venv/bin/python bench/bench_training.py).

- run: attention.training.train, everything the page waits for (batches, forward, backward, the
  optimiser, ~30 held-out evaluations);
- forward only: the same number of forward passes on the same batches, no gradient, no update.
  run / forward only is what the hand-written backward pass and the bookkeeping cost on top.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attention.embeddings import sinusoidal_positional_encoding  # noqa: E402, RUF100
from attention.training import (  # noqa: E402, RUF100
    HEADS,
    TASKS,
    TrainingConfig,
    forward,
    initial_parameters,
    train,
)

TARGET_SECONDS = 5.0


def best_of(fn, repeats: int = 3) -> float:
    """The fastest of a few runs (the least disturbed by the rest of the machine)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def forward_only(config: TrainingConfig) -> None:
    task = TASKS[config.task]
    rng = np.random.default_rng(config.seed)
    table = task.table(rng, config.d_model)
    positional = sinusoidal_positional_encoding(task.length, config.d_model)
    params = initial_parameters(rng, config.d_model, config.heads, len(task.classes))
    for _ in range(config.steps):
        batch = task.sample(rng, config.batch)
        forward(params, table[batch.tokens] + positional)


def main() -> None:
    print(f"train(): {TrainingConfig().steps} steps, batch {TrainingConfig().batch}, d_model "
          f"{TrainingConfig().d_model}; best of 3. Target: a 300-step run at the default size in ≤ {TARGET_SECONDS} s.")
    print(f"{'task':>9} {'heads':>5} {'run s':>7} {'forward-only s':>15} {'run/forward':>12} {'run/target':>11}")
    for name in TASKS:
        for heads in HEADS:
            config = TrainingConfig(task=name, heads=heads)
            run = best_of(lambda config=config: train(config))
            fwd = best_of(lambda config=config: forward_only(config))
            print(f"{name:>9} {heads:>5} {run:>7.2f} {fwd:>15.2f} {run / fwd:>11.1f}× {run / TARGET_SECONDS:>10.2f}×")


if __name__ == "__main__":
    main()
