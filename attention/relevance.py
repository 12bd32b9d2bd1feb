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
    peaked: bool  # the step stopped where α_it peaks along ĝ (a stronger push would not raise it)
    masked: bool  # the mask forbids query i to look at key t, so nothing changed


def attend_to(
    w_q: npt.ArrayLike, x: npt.ArrayLike, k: npt.ArrayLike, weights: npt.ArrayLike, i: int, t: int, strength: float,
    *, allowed: npt.ArrayLike | None = None,
) -> Nudge:
    r"""W_Q' = W_Q + η · x_i^\top \hat{g} / ‖x_i‖², with g = k_t − Σ_j α_ij k_j.

    Then q_i' = x_i W_Q' = q_i + η \hat{g}: query i moves towards key t and away from the keys it
    already attended to (g is the direction in which log α_it grows fastest). Another query j moves
    by η (x_j·x_i / ‖x_i‖²) \hat{g}, only as much as its token resembles token i. W_K and the keys
    are untouched.

    Along the line, log α_it(η) = z_t(η) − log Σ_{j allowed} e^{z_j(η)} with z_j linear in η: a
    linear function minus a convex one, so it is concave and has one peak η*. The step is
    η = min(strength · √d_k, η*), so a stronger push never lowers the target weight, and the
    softmax is taken over the keys the mask allows, exactly as the page's α is.

    Parameters
    ----------
    w_q : [d_model, d_k];  x : [n, d_model] (embeddings);  k : [n, d_k] (keys);  weights : [n, n] (α)
    i, t : the query token and the target key token (0-based)
    strength : ≥ 0
    allowed : bool [n], optional
        Which keys query i may attend to (row i of the mask); all when None. A masked target
        changes nothing (``masked=True``).
    """
    w_q, x, k, a = (np.asarray(v, dtype=np.float64) for v in (w_q, x, k, weights))
    d_k = k.shape[1]
    allowed = np.ones(k.shape[0], dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)
    unchanged = Nudge(w_q, np.zeros_like(w_q), np.zeros(d_k), 0.0, False, not allowed[t])
    g = k[t] - a[i] @ k  # [d_k]: k_t minus the keys query i already looks at (α is 0 on masked keys)
    x_norm2, g_norm = float(x[i] @ x[i]), float(np.linalg.norm(g))
    if not allowed[t] or x_norm2 == 0 or g_norm < 1e-12 or strength <= 0:
        return unchanged
    g_hat = g / g_norm
    peak = _peak_along(x[i] @ w_q, g_hat, k[allowed], int(np.sum(allowed[:t])), 1 / np.sqrt(d_k))
    reach = strength * np.sqrt(d_k)  # how far the slider lets q_i move
    step = min(reach, peak)
    delta = step * np.outer(x[i], g_hat) / x_norm2  # [d_model, 1] · [1, d_k] -> [d_model, d_k]
    return Nudge(w_q + delta, delta, g_hat, float(step), bool(peak <= reach), False)


def _peak_along(q: Array, g_hat: Array, k: Array, t: int, scale: float) -> float:
    """η* = argmax_η α_t(q + η ĝ) over η ≥ 0 (∞ if α_t rises for ever), for keys k [m, d_k].

    d/dη log α_t = scale · (c_t − Σ_j α_j c_j) with c_j = ĝ·k_j. It falls as η grows (concavity),
    so its root is found by bisection. It stays positive for ever when c_t is the largest c_j.
    """
    c = k @ g_hat  # [m]
    if c[t] >= c.max():
        return np.inf

    def slope(eta: float) -> float:
        z = (q + eta * g_hat) @ k.T * scale  # [m]
        w = np.exp(z - z.max())
        return c[t] - float(w @ c) / float(w.sum())

    lo, hi = 0.0, 1.0
    while slope(hi) > 0:
        lo, hi = hi, 2 * hi
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if slope(mid) > 0 else (lo, mid)
    return lo


def self_matches(weights: npt.ArrayLike, tokens: tuple[str, ...]) -> list[tuple[int, int]]:
    """(i, j) for each query i, with j the key of its largest weight (the first on a tie)."""
    w = np.asarray(weights)
    return [(i, int(np.argmax(w[i]))) for i in range(len(tokens))]


def self_attention_share(weights: npt.ArrayLike, tokens: tuple[str, ...]) -> int:
    """How many queries put their largest weight on themselves or on a copy of their own token."""
    return sum(tokens[j] == tokens[i] for i, j in self_matches(weights, tokens))


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
