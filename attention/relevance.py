"""Similarity versus relevance: raw dot products, a rank-1 "attend here" change, and 2-D views."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]


class Lead(NamedTuple):
    """Whether some query makes key t the strict favourite: a direction q with q·k_t > q·k_j for every
    other key j the query may see, or a certificate that none exists."""

    possible: bool
    direction: Array | None  # q* with q*·(k_t − k_j) ≥ ‖q*‖² > 0 for every j, when possible   [d_k]
    mix: Array | None  # λ ≥ 0, Σλ = 1, with Σ_j λ_j (k_t − k_j) = 0, when not   [keys]


class Nudge(NamedTuple):
    """A rank-1 change of W_Q that makes one query look more at one key."""

    w_q: Array  # W_Q' = W_Q + ΔW   [d_model, d_k]
    delta: Array  # ΔW = η · x_iᵀ ĝ / ‖x_i‖²   [d_model, d_k]
    direction: Array  # ĝ, the unit direction q_i moves in   [d_k]
    step: float  # η, how far q_i moves
    peaked: bool  # the step stopped where α_it peaks along ĝ (a stronger push would not raise it)
    masked: bool  # the mask forbids query i to look at key t, so nothing changed
    lead: Lead | None = None  # whether any query can make key t the favourite (ĝ is then such a direction)


def attend_to(
    w_q: npt.ArrayLike, x: npt.ArrayLike, k: npt.ArrayLike, weights: npt.ArrayLike, i: int, t: int, strength: float,
    *, allowed: npt.ArrayLike | None = None,
) -> Nudge:
    r"""W_Q' = W_Q + η · x_i^\top \hat{g} / ‖x_i‖²: q_i moves by η along a unit direction \hat{g}.

    Then q_i' = x_i W_Q' = q_i + η \hat{g}. Another query j moves by η (x_j·x_i / ‖x_i‖²) \hat{g}, only
    as much as its token resembles token i. W_K and the keys are untouched.

    The direction: where some query can make key t the favourite (``can_lead``), \hat{g} is the shortest
    mixture q* of the differences k_t − k_j, along which key t's score gains on every other key's
    (q*·(k_t − k_j) ≥ ‖q*‖² > 0): α_it rises with η towards 1. The step is η = strength · √d_k / min_j
    \hat{g}·(k_t − k_j), so that key t's scaled score z_t gains at least ``strength`` on every other key's.
    Where no query can (k_t is not a corner of the keys' outline), g = k_t − Σ_j α_ij k_j, the direction
    in which log α_it grows fastest at the start. Along that line log α_it(η) = z_t(η) − log Σ_{j allowed}
    e^{z_j(η)} with z_j linear in η: a linear function minus a convex one, so it is concave and has one
    peak η*. The step is then η = min(strength · √d_k, η*), so a stronger push never lowers the target
    weight. The softmax is taken over the keys the mask allows, exactly as the page's α is.

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
    lead = can_lead(k, t, allowed) if allowed[t] else None
    unchanged = Nudge(w_q, np.zeros_like(w_q), np.zeros(d_k), 0.0, False, not allowed[t], lead)
    if lead is not None and lead.possible:
        g = lead.direction  # [d_k]: key t gains on every other key along it
    else:
        g = k[t] - a[i] @ k  # [d_k]: k_t minus the keys query i already looks at (α is 0 on masked keys)
    x_norm2, g_norm = float(x[i] @ x[i]), float(np.linalg.norm(g))
    if not allowed[t] or x_norm2 == 0 or g_norm < 1e-12 or strength <= 0:
        return unchanged
    g_hat = g / g_norm
    peak = np.inf if lead.possible else _peak_along(x[i] @ w_q, g_hat, k[allowed], int(np.sum(allowed[:t])),
                                                     1 / np.sqrt(d_k))
    # how far the slider lets q_i move: along q*, far enough for z_t to gain ``strength`` on every other key
    # (z_t − z_j grows by η·ĝ·(k_t − k_j)/√d_k, and the smallest of those slopes is the one to reach)
    others = [j for j in range(k.shape[0]) if allowed[j] and j != t]
    slope = float(np.min((k[t] - k[others]) @ g_hat)) if lead.possible and others else 1.0
    reach = strength * np.sqrt(d_k) / slope
    step = min(reach, peak)
    delta = step * np.outer(x[i], g_hat) / x_norm2  # [d_model, 1] · [1, d_k] -> [d_model, d_k]
    return Nudge(w_q + delta, delta, g_hat, float(step), bool(peak <= reach), False, lead)


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


def can_lead(k: npt.ArrayLike, t: int, allowed: npt.ArrayLike | None = None, *, tol: float = 1e-10) -> Lead:
    r"""Can any query attend most to key t?  Iff 0 ∉ conv{k_t − k_j : j ≠ t allowed}.

    The score of key j is q·k_j, so key t leads when q·(k_t − k_j) > 0 for every other j: the
    differences d_j = k_t − k_j must lie in one open half-space. If they do, the shortest vector q* of
    their convex hull is such a direction (q*·d_j ≥ ‖q*‖² for every j). If they don't, a mix
    Σ λ_j d_j = 0 (λ ≥ 0, Σλ = 1) shows it: for any q, Σ λ_j q·d_j = 0, so some other key scores at
    least as high as key t. Geometrically, k_t is then not a corner of the keys' outline (their convex
    hull): inside it, or on an edge, or equal to another key.

    The shortest vector is found by Wolfe's algorithm (exact up to ``tol``, a few steps for a handful
    of keys); written here because the engine is NumPy only (SciPy's linprog would do the same).
    """
    k = np.asarray(k, dtype=np.float64)
    allowed = np.ones(k.shape[0], dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)
    others = [j for j in range(k.shape[0]) if allowed[j] and j != t]
    if not others:
        return Lead(True, np.zeros(k.shape[1]), None)  # nothing else to see: it has all the weight
    d = k[t] - k[others]  # [m, d_k]
    scale = max(float(np.abs(d).max()), 1e-300)
    point, weights = _shortest_in_hull(d / scale, tol)
    if float(point @ point) > tol:
        return Lead(True, point * scale, None)
    mix = np.zeros(k.shape[0])
    mix[others] = weights
    return Lead(False, None, mix)


def _shortest_in_hull(p: Array, tol: float) -> tuple[Array, Array]:
    """Wolfe's minimum-norm-point algorithm: the shortest x in conv(p) [m, d], and its weights λ [m]."""
    m = p.shape[0]
    first = int(np.argmin((p * p).sum(axis=1)))
    corral, lam = [first], np.array([1.0])
    x = p[first].copy()
    for _ in range(50 * (m + p.shape[1]) + 100):
        j = int(np.argmin(p @ x))
        if float(x @ x) - float(p[j] @ x) <= tol * max(1.0, float(x @ x)) or j in corral:
            break
        corral, lam = [*corral, j], np.append(lam, 0.0)
        while True:  # the affine minimiser of the corral; step back inside the hull while it leaves it
            q = p[corral]
            gram = q @ q.T + tol * np.eye(len(corral))
            mu = np.linalg.solve(gram, np.ones(len(corral)))
            mu = mu / mu.sum()
            if (mu > tol).all():
                lam = mu
                break
            neg = mu <= tol
            theta = float(np.min(lam[neg] / (lam[neg] - mu[neg])))
            lam = theta * mu + (1 - theta) * lam
            keep = lam > tol
            corral, lam = [c for c, kept in zip(corral, keep, strict=True) if kept], lam[keep]
            lam = lam / lam.sum()
        x = lam @ p[corral]
    weights = np.zeros(m)
    weights[corral] = lam
    return x, weights


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
