"""Engine benchmark: multi_head_attention against naive versions, for n = 16, 128, 512, 2048.

Prints ratios measured side by side in this run; asserts nothing. Run: make bench (or
.venv/bin/python bench/bench_engine.py).

- engine: attention.multi_head_attention (all heads and queries in batched matrix products);
- naive-rows: a Python loop over heads and over queries, one softmax row at a time (NumPy per row);
- naive-python: the pure-Python triple loops of tests/reference.py (only for small n, it is slow).
The last column divides each engine time by the n = 16 time and by (n / 16)², so a value near 1
means the work grows like n², the cost of comparing every query with every key.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attention import multi_head_attention, softmax  # noqa: E402, RUF100
from tests.reference import naive_multi_head  # noqa: E402, RUF100

D_MODEL, HEADS = 64, 4
SIZES = (16, 128, 512, 2048)


def naive_rows(x, w_q, w_k, w_v, w_o, n_heads):
    """One head at a time, one query at a time."""
    n, d_model = x.shape
    d_k = d_model // n_heads
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    out = np.empty((n, d_model))
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        for i in range(n):
            weights = softmax(k[:, cols] @ q[i, cols] / np.sqrt(d_k))  # [n]
            out[i, cols] = weights @ v[:, cols]  # [d_k]
    return out @ w_o


def best_of(fn, *, budget=1.0, max_repeats=20):
    """The fastest of several runs (the least disturbed by the rest of the machine)."""
    times, start = [], time.perf_counter()
    while len(times) < max_repeats and (not times or time.perf_counter() - start < budget):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def main() -> None:
    rng = np.random.default_rng(0)
    ws = [rng.standard_normal((D_MODEL, D_MODEL)) / np.sqrt(D_MODEL) for _ in range(4)]
    print(f"multi_head_attention, d_model={D_MODEL}, heads={HEADS}; best of repeated runs")
    print(f"{'n':>6} {'engine ms':>11} {'naive-rows ms':>14} {'rows/engine':>12} {'python ms':>11} "
          f"{'python/engine':>14} {'engine ÷ n² growth':>19}")
    base = None
    for n in SIZES:
        x = rng.standard_normal((n, D_MODEL))
        t_engine, (out, _) = best_of(lambda x=x: multi_head_attention(x, *ws, n_heads=HEADS))
        t_rows, out_rows = best_of(lambda x=x: naive_rows(x, *ws, HEADS), max_repeats=3)
        np.testing.assert_allclose(out, out_rows, atol=1e-9)  # same numbers, or the timing means nothing
        python = "-"
        python_ratio = "-"
        if n <= 128:
            t_py, (out_py, _) = best_of(
                lambda x=x: naive_multi_head(x.tolist(), *(w.tolist() for w in ws), n_heads=HEADS), max_repeats=1
            )
            np.testing.assert_allclose(out, out_py, atol=1e-9)
            python, python_ratio = f"{t_py * 1e3:.1f}", f"{t_py / t_engine:.0f}×"
        base = base or t_engine
        growth = t_engine / base / (n / SIZES[0]) ** 2
        print(f"{n:>6} {t_engine * 1e3:>11.3f} {t_rows * 1e3:>14.2f} {t_rows / t_engine:>11.1f}× {python:>11} "
              f"{python_ratio:>14} {growth:>19.3f}")


if __name__ == "__main__":
    main()
