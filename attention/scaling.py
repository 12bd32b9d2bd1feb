"""Why scores are divided by √d_k: the experiments of the "Why √d_k" lesson, in NumPy.

If the entries of q and k are independent with mean 0 and variance 1, then
q·k = Σ_c q_c k_c is a sum of d_k terms of variance 1, so Var(q·k) = d_k and its spread grows
like √d_k. Dividing by √d_k brings the variance back to 1.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

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


def random_score_row(d_k: int, n_keys: int, seed: int) -> Array:
    """One query against ``n_keys`` keys, all ~ N(0, 1)^d_k: the raw scores q·k_j.

    Returns
    -------
    ndarray, shape [n_keys]
    """
    rng = np.random.default_rng([seed, d_k, 0x50C])
    q = rng.standard_normal(d_k)  # [d_k]
    k = rng.standard_normal((n_keys, d_k))  # [n_keys, d_k]
    return k @ q  # [n_keys, d_k] @ [d_k] -> [n_keys]


def softmax_jacobian(weights: npt.ArrayLike) -> Array:
    """∂α_i/∂s_j = α_i (δ_ij − α_j): J = diag(α) − α αᵀ.

    Returns
    -------
    ndarray, shape [n, n]
    """
    a = np.asarray(weights, dtype=np.float64)  # [n]
    return np.diag(a) - np.outer(a, a)


def gradient_size(weights: npt.ArrayLike) -> float:
    """‖diag(α) − α αᵀ‖_F: how much the weights can still move when the scores move.

    It is largest for spread-out weights and goes to 0 as one weight goes to 1 (saturation),
    which is why unscaled scores make the gradients through the softmax vanish.
    """
    return float(np.linalg.norm(softmax_jacobian(weights)))
