"""Multi-head attention: split into heads, attend in each, concatenate, project with W_O.

    MultiHead(X) = Concat(head_1, …, head_h) · W_O,
    head_i = Attention(X·W_Q[:, i], X·W_K[:, i], X·W_V[:, i])
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from attention.core import causal_mask, scaled_dot_product_attention
from attention.projections import Projections, random_output_projection, random_projections
from attention.trace import AttentionTrace, embed_sentence, trace_attention

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


@dataclass(frozen=True)
class MultiHeadTrace:
    """Every step of MultiHead(X) = Concat(head_1, …, head_h)·W_O on one sentence."""

    sentence: str
    tokens: tuple[str, ...]  # n tokens
    seed: int
    d_model: int
    n_heads: int  # h
    d_k: int  # d_model / h
    causal: bool
    x: Array  # X   [n, d_model]
    w_q: Array  # [d_model, d_model]; head h uses columns h·d_k … (h+1)·d_k
    w_k: Array  # [d_model, d_model]
    w_v: Array  # [d_model, d_model]
    w_o: Array  # [d_model, d_model]
    heads: tuple[AttentionTrace, ...]  # h single-head traces, each with d_k-wide projections
    weights: Array  # α of every head   [h, n, n]
    concat: Array  # Concat(head outputs)   [n, d_model]
    output: Array  # Concat · W_O   [n, d_model]

    @property
    def n(self) -> int:
        return len(self.tokens)


def trace_multi_head(
    sentence: str,
    *,
    d_model: int = 8,
    n_heads: int = 2,
    seed: int = 0,
    positional: bool = False,
    causal: bool = False,
    projections: Projections | None = None,
    w_o: npt.ArrayLike | None = None,
) -> MultiHeadTrace:
    """Trace multi-head self-attention on a sentence: each head in full, then concat and W_O.

    W_Q, W_K, W_V default to ``random_projections(d_model, d_model, seed)``, so with one head they
    are exactly the walkthrough's matrices at d_k = d_model. W_O defaults to
    ``random_output_projection(d_model, seed)``.
    """
    d_k = head_dim(d_model, n_heads)
    embedded = embed_sentence(sentence, d_model=d_model, seed=seed, positional=positional)
    preset = "random" if projections is None else "custom"
    if projections is None:
        projections = random_projections(d_model, d_model, seed)
    w_o = random_output_projection(d_model, seed) if w_o is None else np.asarray(w_o, dtype=np.float64)
    heads = tuple(
        replace(trace_attention(
            embedded,
            Projections(*(np.asarray(w)[:, h * d_k : (h + 1) * d_k] for w in projections)),  # [d_model, d_k]
            preset=preset,
            causal=causal,
        ), head=h)  # the head names itself (issue 47: a class reads "head 1's Z", not a Z)
        for h in range(n_heads)
    )
    concat = concat_heads(np.stack([head.output for head in heads]))  # [h, n, d_k] -> [n, d_model]
    return MultiHeadTrace(
        sentence=sentence,
        tokens=embedded.tokens,
        seed=seed,
        d_model=d_model,
        n_heads=n_heads,
        d_k=d_k,
        causal=causal,
        x=embedded.x,
        w_q=np.asarray(projections.w_q, dtype=np.float64),
        w_k=np.asarray(projections.w_k, dtype=np.float64),
        w_v=np.asarray(projections.w_v, dtype=np.float64),
        w_o=w_o,
        heads=heads,
        weights=np.stack([head.weights for head in heads]),  # [h, n, n]
        concat=concat,
        output=concat @ w_o,  # [n, d_model] @ [d_model, d_model] -> [n, d_model]
    )
