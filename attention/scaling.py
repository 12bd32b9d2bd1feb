"""Why scores are divided by √d_k: the experiments of the "Why √d_k" lesson, in NumPy.

If the entries of q and k are independent with mean 0 and variance 1, then
q·k = Σ_c q_c k_c is a sum of d_k terms of variance 1, so Var(q·k) = d_k and its spread grows
like √d_k. Dividing by √d_k brings the variance back to 1.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from attention.core import softmax

Array = npt.NDArray[np.float64]


def dot_product_samples(d_k: int, n_samples: int, seed: int) -> Array:
    """q·k for ``n_samples`` independent pairs q, k ~ N(0, 1)^d_k.

    Returns
    -------
    ndarray, shape [n_samples]; its variance is close to d_k.
    """
    rng = np.random.default_rng([seed, d_k, 0xD07])
    q = rng.standard_normal((n_samples, d_k))  # [n_samples, d_k]
    k = rng.standard_normal((n_samples, d_k))  # [n_samples, d_k]
    return np.einsum("sc,sc->s", q, k)  # Σ_c q_sc k_sc: [n_samples]


def softmax_jacobian(weights: npt.ArrayLike) -> Array:
    """∂α_i/∂z_j = α_i (δ_ij − α_j): J = diag(α) − α αᵀ, with z the softmax's input.

    Returns
    -------
    ndarray, shape [n, n]
    """
    a = np.asarray(weights, dtype=np.float64)  # [n]
    return np.diag(a) - np.outer(a, a)


def gradient_size(weights: npt.ArrayLike) -> float:
    """‖∂α/∂z‖_F = ‖diag(α) − α αᵀ‖_F: how much the weights can still move when the softmax's input z moves.

    It is largest for spread-out weights and goes to 0 as one weight goes to 1 (saturation).
    """
    return float(np.linalg.norm(softmax_jacobian(weights)))


class SaturationStats(NamedTuple):
    """One statistic per random row, for softmax(q·Kᵀ) (index 0) and softmax(q·Kᵀ/√d_k) (index 1)."""

    d_k: int
    max_weight: Array  # max_j α_j   [2, rows]
    jacobian_z: Array  # ‖∂α/∂z‖_F with z the softmax's input (z = s or s/√d_k)   [2, rows]
    gradient_q: Array  # ‖∂α/∂q‖_F, what reaches the query and so W_Q   [2, rows]


def saturation_stats(d_k: int, n_rows: int, n_keys: int, seed: int) -> SaturationStats:
    r"""For ``n_rows`` draws of q and K ~ N(0, 1): α = softmax(c · K q) with c = 1 and c = 1/√d_k.

    z = c · s with s = K q the raw scores, so
        ∂α/∂z = J = diag(α) − α αᵀ                  [n_keys, n_keys]
        ∂α/∂q = J · ∂z/∂q = c · J K                 [n_keys, d_k]
    J alone says whether the softmax is saturated; ∂α/∂q also carries the keys' size, which is what
    the training signal to W_Q sees.
    """
    s, k = _rows(d_k, n_rows, n_keys, seed)  # [rows, keys], [rows, keys, d_k]
    max_weight, jacobian_z, gradient_q = _statistics(s, k, d_k)  # each [2, rows]
    return SaturationStats(d_k, max_weight, jacobian_z, gradient_q)


def _rows(d_k: int, n_rows: int, n_keys: int, seed: int) -> tuple[Array, Array]:
    """The experiment's random rows: raw scores s = K q [rows, keys] and keys K [rows, keys, d_k], q, K ~ N(0, 1)."""
    rng = np.random.default_rng([seed, d_k, 0x5A7])
    q = rng.standard_normal((n_rows, d_k))  # [rows, d_k]
    k = rng.standard_normal((n_rows, n_keys, d_k))  # [rows, keys, d_k]
    return np.einsum("rjc,rc->rj", k, q), k  # [rows, keys], [rows, keys, d_k]


class ExampleRow(NamedTuple):
    """One of the experiment's rows, shown as its example."""

    index: int  # which row of ``saturation_stats``' draw
    scores: Array  # its raw scores s = K q   [keys]
    keys: Array  # K   [keys, d_k]


def median_row(d_k: int, n_rows: int, n_keys: int, seed: int) -> ExampleRow:
    """Of the rows ``saturation_stats(d_k, n_rows, n_keys, seed)`` measures (the same draw), the one in the middle
    when they are ranked by their largest weight without scaling, max_j softmax(s)_j: rank ``n_rows // 2`` from
    0 (rows with equal weights in the order drawn). With ``n_rows`` odd its largest weight is the rows' median."""
    s, k = _rows(d_k, n_rows, n_keys, seed)
    largest = softmax(1.0 * s, axis=-1).max(axis=-1)  # [rows]: saturation_stats' max_weight[0], computed alike
    r = int(np.argsort(largest, kind="stable")[n_rows // 2])
    return ExampleRow(r, s[r], k[r])


def _statistics(s: Array, k: Array, d_k: int) -> tuple[Array, Array, Array]:
    """max α, ‖∂α/∂z‖ and ‖∂α/∂q‖ of rows of raw scores s [rows, keys] with keys k [rows, keys, d_k],
    each [2, rows]: without scaling (c = 1) and with it (c = 1/√d_k)."""
    n_keys = s.shape[-1]
    stats = []
    for c in (1.0, 1.0 / np.sqrt(d_k)):
        a = softmax(c * s, axis=-1)  # [rows, keys]
        jac = a[:, :, None] * np.eye(n_keys) - a[:, :, None] * a[:, None, :]  # [rows, keys, keys]
        grad_q = c * jac @ k  # [rows, keys, keys] @ [rows, keys, d_k] -> [rows, keys, d_k]
        stats.append((a.max(axis=-1), np.linalg.norm(jac, axis=(1, 2)), np.linalg.norm(grad_q, axis=(1, 2))))
    max_weight, jacobian_z, gradient_q = (np.stack(parts) for parts in zip(*stats, strict=True))
    return max_weight, jacobian_z, gradient_q


def row_statistics(scores: npt.ArrayLike, k: npt.ArrayLike, d_k: int) -> Array:
    """The three statistics of ``saturation_stats`` for one row of raw scores s = K q with keys k.

    Returns
    -------
    ndarray [2, 3]: rows (no scaling, ÷ √d_k), columns (max α, ‖∂α/∂z‖, ‖∂α/∂q‖)
    """
    s, k = np.asarray(scores, dtype=np.float64), np.asarray(k, dtype=np.float64)
    return np.stack(_statistics(s[None], k[None], d_k))[:, :, 0].T  # [3, 2, 1] -> [2, 3]
