"""Scaled dot-product attention, one small function per step of the formula.

    Attention(Q, K, V) = softmax(Q·Kᵀ / √d_k) · V
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


def softmax(x: npt.ArrayLike, axis: int = -1) -> Array:
    r"""softmax(x)_j = e^{x_j - m} / \sum_{j'} e^{x_{j'} - m},  with m = \max_j x_j.

    Subtracting the row maximum m changes nothing mathematically and keeps every exponent ≤ 0, so
    inputs of ±1e6 give finite weights. Entries of -inf (masked keys) get weight exactly 0. A row
    that is -inf everywhere has nothing to attend to and gets all-zero weights (not NaN).

    Raises
    ------
    ValueError
        For NaN or +inf inputs, which have no meaningful softmax.
    """
    return softmax_(np.array(x, dtype=np.float64), axis=axis)  # np.array copies: x is left alone


def softmax_(x: Array, axis: int = -1) -> Array:
    """softmax computed in place in the float64 array x, which it returns.

    For the engine's own fresh score arrays: on large inputs every avoided temporary matters
    (an [h, 2048, 2048] score tensor is 134 MB).
    """
    if x.size == 0:
        return x
    m = np.max(x, axis=axis, keepdims=True)  # NaN propagates into m, so one small check suffices
    if np.isnan(m).any() or np.isposinf(m).any():
        raise ValueError("softmax got NaN or +inf; scores must be finite numbers or -inf (masked).")
    m[np.isneginf(m)] = 0.0  # an all -inf row: exp(-inf - 0) = 0 everywhere
    x -= m
    np.exp(x, out=x)
    total = np.sum(x, axis=axis, keepdims=True)
    total[total == 0] = 1.0  # the all-masked rows: 0 / 1 = 0
    x /= total
    return x


def attention_scores(q: Array, k: Array) -> Array:
    """S = Q·Kᵀ: s_ij = q_i·k_j, how well query i matches key j.

    Shapes: [..., n_q, d_k] @ [..., d_k, n_k] -> [..., n_q, n_k]
    """
    return q @ np.swapaxes(k, -1, -2)


def causal_mask(n: int) -> BoolArray:
    """M_ij = (j ≤ i): query i may attend to itself and to earlier tokens only.

    Returns
    -------
    ndarray of bool, shape [n, n], True on and below the diagonal
    """
    return np.tril(np.ones((n, n), dtype=bool))


def apply_mask(scores: Array, mask: BoolArray | None) -> Array:
    """s_ij stays where M_ij is True and becomes -inf where it is False (None keeps every score).

    True means "may attend", as in the boolean ``attn_mask`` of PyTorch's
    ``torch.nn.functional.scaled_dot_product_attention``. Beware: ``torch.nn.MultiheadAttention``'s
    boolean ``attn_mask`` and ``key_padding_mask`` mean the opposite (True = blocked).
    """
    if mask is None:
        return scores
    return np.where(mask, scores, -np.inf)


def apply_mask_(scores: Array, mask: BoolArray | None) -> Array:
    """apply_mask in place: the fresh score array gets -inf where the mask is False."""
    if mask is not None:
        np.copyto(scores, -np.inf, where=~mask)
    return scores


def scaled_dot_product_attention(
    q: npt.ArrayLike,
    k: npt.ArrayLike,
    v: npt.ArrayLike,
    mask: npt.ArrayLike | None = None,
    scale: float | None = None,
) -> tuple[Array, Array]:
    r"""Att(Q, K, V) = softmax(scale · Q·Kᵀ, masked) · V,  with scale = 1/\sqrt{d_k} by default.

    Parameters
    ----------
    q : array [n_q, d_k]
    k : array [n_k, d_k]
    v : array [n_k, d_v]
        Leading batch dimensions (for example heads: [h, n, d_k]) are allowed on all three.
    mask : bool array [n_q, n_k], optional
        True where query i may attend to key j (as in torch.nn.functional.scaled_dot_product_attention;
        torch.nn.MultiheadAttention's boolean masks mean the opposite); broadcasts over batch dims.
    scale : float, optional
        Multiplies the scores; defaults to 1/√d_k.

    Returns
    -------
    output : array [n_q, d_v]
        Row i is Σ_j α_ij v_j.
    weights : array [n_q, n_k]
        α, each row summing to 1 (0 for a row whose keys are all masked).
    """
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    _check_qkv(q, k, v)
    d_k = q.shape[-1]
    if scale is None:
        scale = 1.0 / np.sqrt(d_k)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        expected = (q.shape[-2], k.shape[-2])
        if mask.shape[-2:] != expected:
            raise ValueError(
                f"mask has shape {mask.shape} but must be [n_q, n_k] = {list(expected)}: "
                "one True/False per (query, key) pair."
            )
    scores = attention_scores(q, k)  # [n_q, n_k], a fresh array, so the next steps work in place
    scores *= scale
    weights = softmax_(apply_mask_(scores, mask), axis=-1)  # [n_q, n_k]
    return weights @ v, weights  # [n_q, n_k] @ [n_k, d_v] -> [n_q, d_v]


def _check_qkv(q: Array, k: Array, v: Array) -> None:
    for name, a in (("q", q), ("k", k), ("v", v)):
        if a.ndim < 2:
            raise ValueError(f"{name} must be a matrix (one row per token), got shape {a.shape}.")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"q has d_k = {q.shape[-1]} columns but k has {k.shape[-1]}: a query and a key must "
            "have the same length to take their dot product."
        )
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"k has {k.shape[-2]} rows but v has {v.shape[-2]}: every key needs exactly one value."
        )
