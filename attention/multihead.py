"""Multi-head attention: split into heads, attend in each, concatenate, project with W_O.

    MultiHead(X) = Concat(head_1, …, head_h) · W_O,
    head_i = Attention(X·W_Q[:, i], X·W_K[:, i], X·W_V[:, i])
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from attention.core import causal_mask, scaled_dot_product_attention

Array = npt.NDArray[np.float64]


def head_dim(d_model: int, n_heads: int) -> int:
    """d_k = d_model / h, after checking that h divides d_model."""
    if not isinstance(n_heads, (int, np.integer)) or n_heads < 1:
        raise ValueError(f"n_heads must be a whole number ≥ 1, got {n_heads!r}.")
    if d_model % n_heads:
        divisors = [h for h in range(1, d_model + 1) if d_model % h == 0]
        raise ValueError(
            f"d_model = {d_model} is not divisible by n_heads = {n_heads}: every head gets "
            f"d_model / n_heads columns. Choose n_heads from {', '.join(map(str, divisors))}."
        )
    return d_model // n_heads


def split_heads(m: Array, n_heads: int) -> Array:
    """Head h takes columns h·d_k … (h+1)·d_k - 1.

    Shapes: [n, d_model] -> [n_heads, n, d_k]
    """
    n, d_model = m.shape
    d_k = head_dim(d_model, n_heads)
    return m.reshape(n, n_heads, d_k).transpose(1, 0, 2)


def concat_heads(heads: Array) -> Array:
    """Concat(head_1, …, head_h): the heads side by side again.

    Shapes: [n_heads, n, d_k] -> [n, n_heads · d_k]
    """
    n_heads, n, d_k = heads.shape
    return heads.transpose(1, 0, 2).reshape(n, n_heads * d_k)


def multi_head_attention(
    x: npt.ArrayLike,
    w_q: npt.ArrayLike,
    w_k: npt.ArrayLike,
    w_v: npt.ArrayLike,
    w_o: npt.ArrayLike,
    n_heads: int,
    causal: bool = False,
) -> tuple[Array, Array]:
    """MultiHead(X) = Concat(head_1, …, head_h) · W_O, with d_k = d_model / h per head.

    Parameters
    ----------
    x : array [n, d_model]
    w_q, w_k, w_v, w_o : arrays [d_model, d_model]
        Head h uses columns h·d_k … (h+1)·d_k of X·W_Q, X·W_K and X·W_V.
    n_heads : int
        Must divide d_model.
    causal : bool
        Apply the causal mask: token i attends only to tokens 0 … i.

    Returns
    -------
    output : array [n, d_model]
    weights : array [n_heads, n, n]
        Each head's α.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"x must be a matrix [n, d_model] (one row per token), got shape {x.shape}.")
    n, d_model = x.shape
    head_dim(d_model, n_heads)
    ws = []
    for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v), ("w_o", w_o)):
        w = np.asarray(w, dtype=np.float64)
        if w.shape != (d_model, d_model):
            raise ValueError(
                f"{name} has shape {w.shape} but must be [d_model, d_model] = [{d_model}, {d_model}] "
                f"to match x, which has d_model = {d_model} columns."
            )
        ws.append(w)
    w_q, w_k, w_v, w_o = ws
    q = split_heads(x @ w_q, n_heads)  # [n, d_model] -> [h, n, d_k]
    k = split_heads(x @ w_k, n_heads)  # [h, n, d_k]
    v = split_heads(x @ w_v, n_heads)  # [h, n, d_k]
    mask = causal_mask(n) if causal else None  # [n, n], broadcast over heads
    heads, weights = scaled_dot_product_attention(q, k, v, mask=mask)  # [h, n, d_k], [h, n, n]
    return concat_heads(heads) @ w_o, weights  # [n, d_model] @ [d_model, d_model] -> [n, d_model]
