"""Where each number of a trace comes from, as data for the browser's tooltips (ui/static/view.js,
``explain``): the vectors and sums behind a score, a scaled score, a weight and an output. Pure: a
trace in, JSON-ready dicts out, every number the trace's own."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from attention import AttentionTrace
from viz.formulas import plain


def rows(m: Any) -> list[list[float | None]]:
    """A matrix as JSON rows, to 6 decimals (enough for every sum a tooltip writes); −∞, NaN as None."""
    a = np.asarray(m, dtype=np.float64)
    finite = np.isfinite(a)
    rounded = np.where(finite, np.round(a, 6), 0.0).tolist()
    return [[v if ok else None for v, ok in zip(row, oks, strict=True)]
            for row, oks in zip(rounded, finite.tolist(), strict=True)]


def projection(trace: AttentionTrace, name: str) -> dict | None:
    """q_ic = x_i·W_Q[:, c] (+ b_c): Q, K or V (``name`` "q", "k", "v") from X and its W. None for a
    decoder with rotary positions, whose Q and K in the trace are after the rotation."""
    if (trace.rope is not None and name != "v") or trace.cached:  # a cached V: see ``cached``
        return None
    bias = {"q": trace.b_q, "k": trace.b_k, "v": trace.b_v}[name]
    tip = {"kind": "matmul", "sym": name, "wSym": f"W_{name.upper()}", "x": rows(trace.x),
           "w": rows({"q": trace.w_q, "k": trace.w_k, "v": trace.w_v}[name])}
    if bias is not None:
        tip["b"] = rows(np.asarray(bias)[None, :])[0]
    return tip


def cached(trace: AttentionTrace) -> dict:
    """A cached step's K and V: which rows came from the cache and which was computed now."""
    return {"kind": "cache", "cached": trace.cached}


def scores(trace: AttentionTrace) -> dict:
    """s_ij = q_i·k_j, term by term."""
    return {"kind": "dot", "sym": "s", "aSym": "q", "bSym": "k", "a": rows(trace.q), "b": rows(trace.k)}


def scaled(trace: AttentionTrace) -> dict:
    """z_ij = s_ij / √d_k (· T): the divisor as the formula writes it."""
    divisor = 1 / trace.scale
    text = f"√{trace.d_k}" if trace.temperature == 1 else f"(√{trace.d_k}·{plain(trace.temperature)})"
    return {"kind": "scaled", "s": rows(trace.scores), "div": round(divisor, 6), "divText": text}


def weights(trace: AttentionTrace) -> dict:
    """α_ij = e^(z_ij − m_i) / Σ_j′ e^(z_ij′ − m_i), with the trace's own e^(z − m) and m."""
    return {"kind": "softmax", "e": rows(trace.exp_scores), "sums": rows(trace.exp_scores.sum(axis=1)[None, :])[0],
            "m": [None if not math.isfinite(m) else round(float(m), 6) for m in trace.row_max]}


def output(trace: AttentionTrace) -> dict:
    """out_ic = Σ_j α_ij v_jc, term by term."""
    return {"kind": "sum", "w": rows(trace.weights), "v": rows(trace.v)}


def shown_weights(trace: AttentionTrace) -> list[list[float | None]]:
    """α as the page shows it: a masked weight is None ("—"), not 0."""
    return rows(np.where(trace.mask, trace.weights, np.nan))
