"""Similarity versus relevance: raw dot products, a rank-1 "attend here" change, and 2-D views."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]


class Nudge(NamedTuple):
    """A rank-1 change of W_Q that makes one query look more at one key."""

    w_q: Array  # W_Q' = W_Q + ΔW   [d_model, d_k]
    delta: Array  # ΔW = η · x_iᵀ ĝ / ‖x_i‖²   [d_model, d_k]
    direction: Array  # ĝ, the unit direction q_i moves in   [d_k]
    step: float  # η, how far q_i moves


def attend_to(
    w_q: npt.ArrayLike, x: npt.ArrayLike, k: npt.ArrayLike, weights: npt.ArrayLike, i: int, t: int, strength: float
) -> Nudge:
    r"""W_Q' = W_Q + η · x_i^\top \hat{g} / ‖x_i‖², with g = k_t − Σ_j α_ij k_j.

    Then q_i' = x_i W_Q' = q_i + η \hat{g}: query i moves towards key t and away from the keys it
    already attended to (g is the direction in which log α_it grows fastest). Another query j moves
    by η (x_j·x_i / ‖x_i‖²) \hat{g}, only as much as its token resembles token i. W_K and the keys
    are untouched.

    The step is η = strength · √d_k, but it stops where α_it is largest along the way, so a
    stronger push never lowers the target weight.

    Parameters
    ----------
    w_q : [d_model, d_k];  x : [n, d_model] (embeddings);  k : [n, d_k] (keys);  weights : [n, n] (α)
    i, t : the query token and the target key token (0-based)
    strength : ≥ 0
    """
    w_q, x, k, a = (np.asarray(v, dtype=np.float64) for v in (w_q, x, k, weights))
    d_k = k.shape[1]
    g = k[t] - a[i] @ k  # [d_k]: k_t minus the keys query i already looks at
    x_norm2, g_norm = float(x[i] @ x[i]), float(np.linalg.norm(g))
    if x_norm2 == 0 or g_norm < 1e-12 or strength <= 0:
        return Nudge(w_q, np.zeros_like(w_q), np.zeros(d_k), 0.0)
    g_hat = g / g_norm
    q_i = x[i] @ w_q  # [d_k]
    steps = np.linspace(0.0, strength * np.sqrt(d_k), 201)  # [201]
    scores = (q_i[None, :] + steps[:, None] * g_hat[None, :]) @ k.T / np.sqrt(d_k)  # [201, n]
    log_alpha_t = scores[:, t] - np.logaddexp.reduce(scores, axis=1)  # log α_it along the way
    step = float(steps[int(np.argmax(log_alpha_t))])
    delta = step * np.outer(x[i], g_hat) / x_norm2  # [d_model, 1] · [1, d_k] -> [d_model, d_k]
    return Nudge(w_q + delta, delta, g_hat, step)


def self_attention_share(weights: npt.ArrayLike, tokens: tuple[str, ...]) -> int:
    """How many queries put their largest weight on themselves or on a copy of their own token."""
    w = np.asarray(weights)
    return sum(tokens[int(np.argmax(w[i]))] == tokens[i] for i in range(len(tokens)))


def plane_coordinates(q: npt.ArrayLike, k: npt.ArrayLike) -> tuple[Array, Array, float]:
    """Q and K in a shared 2-D plane: themselves when d_k = 2, else their joint top-2 PCA projection.

    PCA here is uncentred (on [Q; K] via the SVD), so the origin stays the origin and the angle
    between q and k in the plane approximates the true one.

    Returns
    -------
    q2 : [n, 2];  k2 : [n, 2];  kept : the share of ‖[Q; K]‖² the plane keeps (1.0 for d_k ≤ 2)
    """
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    d_k = q.shape[1]
    if d_k <= 2:
        pad = np.zeros((q.shape[0], 2 - d_k))
        return np.hstack([q, pad]), np.hstack([k, pad]), 1.0
    both = np.vstack([q, k])  # [2n, d_k]
    _, s, vt = np.linalg.svd(both, full_matrices=False)
    basis = vt[:2].T  # [d_k, 2]
    total = float((s**2).sum())
    kept = float((s[:2] ** 2).sum() / total) if total else 1.0
    return q @ basis, k @ basis, kept
