"""Where each number of a trace comes from, as data for the browser's tooltips (static/tooltip.js,
``explain``): the vectors and sums behind a score, a scaled score, a weight and an output. Pure: a
trace in, JSON-ready dicts out, every number the trace's own.

Each tooltip that writes arithmetic out gets ``dec``: for every cell, the decimals its inputs are
written with so that they give the shown result (``viz.arithmetic``, the one rule); a negative number
means no decimals do and the tooltip writes "≈". One number stands for every cell when they agree.
A sum of more than ``TERMS_SHOWN`` terms is written by its largest terms and "… more terms" (nothing
to add up), so its decimals are not computed."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from attention import AttentionTrace
from viz import arithmetic as A
from viz.formulas import plain

TERMS_SHOWN = 8  # static/tooltip.js writes a sum of up to this many terms in full


def rows(m: Any) -> list[list[float | None]]:
    """A matrix as JSON rows, to 6 decimals (enough for every sum a tooltip writes); −∞, NaN as None."""
    a = np.asarray(m, dtype=np.float64)
    finite = np.isfinite(a)
    rounded = (A.held(a) / 10**A.HELD).tolist()  # as every view holds it
    return [[v if ok else None for v, ok in zip(row, oks, strict=True)]
            for row, oks in zip(rounded, finite.tolist(), strict=True)]


def decimals(d: npt.ArrayLike) -> int | list:
    """Per-cell decimals for the browser: one number when every cell agrees."""
    d = np.asarray(d)
    return int(d.flat[0]) if d.size and (d == d.flat[0]).all() else d.tolist()


def projection(trace: AttentionTrace, name: str) -> dict | None:
    """q_ic = x_i·W_Q[:, c] (+ b_c): Q, K or V (``name`` "q", "k", "v") from X and its W. None for a
    decoder with rotary positions, whose Q and K in the trace are after the rotation."""
    if (trace.rope is not None and name != "v") or trace.cached:  # a cached V: see ``cached``
        return None
    bias = {"q": trace.b_q, "k": trace.b_k, "v": trace.b_v}[name]
    w = {"q": trace.w_q, "k": trace.w_k, "v": trace.w_v}[name]  # [d_model, d_k]
    result = {"q": trace.q, "k": trace.k, "v": trace.v}[name]  # [n, d_k]
    tip = {"kind": "matmul", "sym": name, "wSym": f"W_{name.upper()}", "x": rows(trace.x), "w": rows(w)}
    if trace.d_model <= TERMS_SHOWN:  # x_i·W[:, c] (+ b_c): the bias is one more term, times 1
        x = trace.x[:, None, :]  # [n, 1, d_model]
        cols = w.T[None, :, :]  # [1, d_k, d_model]
        if bias is not None:
            x = np.concatenate([np.broadcast_to(x, (trace.n, trace.d_k, trace.d_model)),
                                np.ones((trace.n, trace.d_k, 1))], axis=-1)
            cols = np.concatenate([np.broadcast_to(cols, (trace.n, trace.d_k, trace.d_model)),
                                   np.broadcast_to(np.asarray(bias)[None, :, None], (trace.n, trace.d_k, 1))], axis=-1)
        tip["dec"] = decimals(A.sums_of_products(x, cols, result))
    if bias is not None:
        tip["b"] = rows(np.asarray(bias)[None, :])[0]
    return tip


def cached(trace: AttentionTrace) -> dict:
    """A cached step's K and V: which rows came from the cache and which was computed now."""
    return {"kind": "cache", "cached": trace.cached}


def embedding_sum(trace: AttentionTrace) -> dict:
    """x_ic = e_ic + p_ic: X from the token embeddings and the positional encodings."""
    e, p = trace.embeddings, trace.positional_encoding
    return {"kind": "add", "e": rows(e), "p": rows(p),
            "dec": decimals(A.sums(np.stack([e, p], axis=-1), trace.x))}


def scores(trace: AttentionTrace) -> dict:
    """s_ij = q_i·k_j, term by term."""
    tip = {"kind": "dot", "sym": "s", "aSym": "q", "bSym": "k", "a": rows(trace.q), "b": rows(trace.k)}
    if trace.d_k <= TERMS_SHOWN:
        tip["dec"] = decimals(A.sums_of_products(trace.q[:, None, :], trace.k[None, :, :], trace.scores))
    return tip


def scaled(trace: AttentionTrace) -> dict:
    """z_ij = s_ij / √d_k (· T): the divisor as the formula writes it. Masked cells need no decimals."""
    divisor = 1 / trace.scale
    text = f"√{trace.d_k}" if trace.temperature == 1 else f"(√{trace.d_k}·{plain(trace.temperature)})"
    dec = A.quotients(trace.scores, divisor, np.where(trace.mask, trace.scaled_scores, 0.0))
    return {"kind": "scaled", "s": rows(trace.scores), "div": _held(divisor), "divText": text,
            "dec": decimals(np.where(trace.mask, dec, A.FEWEST))}


def weights(trace: AttentionTrace) -> dict:
    """α_ij = e^(z_ij − m_i) / Σ_j′ e^(z_ij′ − m_i), with the trace's own e^(z − m) and m."""
    sums = trace.exp_scores.sum(axis=1)  # [n]
    # e and Σ are written with 3 decimals at least (a small e at 2 would read 0.00)
    dec = A.decimals_for(lambda d: A.quotient_adds_up(trace.exp_scores, sums[:, None], trace.weights, max(d, 3)),
                         trace.weights.shape)
    dec = np.sign(dec) * np.maximum(np.abs(dec), 3)
    return {"kind": "softmax", "e": rows(trace.exp_scores), "sums": rows(sums[None, :])[0],
            "m": [None if not math.isfinite(m) else _held(m) for m in trace.row_max],
            "dec": decimals(np.where(trace.mask, dec, 3))}


def output(trace: AttentionTrace) -> dict:
    """out_ic = Σ_j α_ij v_jc, term by term (a masked key's α is 0 and its term is left out)."""
    tip = {"kind": "sum", "w": rows(trace.weights), "v": rows(trace.v)}
    # the tooltip leaves out the terms whose α is 0 (masked, or below the six decimals held): the rows
    # with few enough terms left are written in full, and only they need decimals
    full = np.flatnonzero((A.held(trace.weights) != 0).sum(axis=1) <= TERMS_SHOWN)
    dec = np.full(trace.output.shape, A.FEWEST, dtype=np.int64)
    if full.size:
        dec[full] = A.sums_of_products(trace.weights[full, None, :], trace.v.T[None, :, :], trace.output[full])
    tip["dec"] = decimals(dec)
    return tip


def shown_weights(trace: AttentionTrace) -> list[list[float | None]]:
    """α as the page shows it: a masked weight is None ("—"), not 0."""
    return rows(np.where(trace.mask, trace.weights, np.nan))


def _held(x: float) -> float:
    return int(A.held(x)) / 10**A.HELD
