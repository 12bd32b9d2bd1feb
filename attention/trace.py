"""One object that holds every intermediate step of single-head self-attention on a sentence.

Pages and figures read these arrays and never recompute them, so what the learner sees is
exactly what the engine computed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from attention.core import apply_mask, attention_scores, causal_mask, softmax
from attention.embeddings import embed, sinusoidal_positional_encoding
from attention.projections import Projections, preset_projections
from attention.tokens import token_ids, tokenize

Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class AttentionTrace:
    """Every step of Att(Q, K, V) = softmax(Q·Kᵀ / √d_k) · V for one sentence. n = len(tokens)."""

    sentence: str
    tokens: tuple[str, ...]  # n tokens
    token_ids: tuple[int, ...]  # n vocabulary ids, repeated tokens share one
    seed: int
    preset: str  # "random", "identity" or "custom"
    d_model: int
    d_k: int
    embeddings: Array  # E            [n, d_model]
    positional_encoding: Array | None  # P   [n, d_model], None when switched off
    x: Array  # X = E (+ P)           [n, d_model]
    w_q: Array  # W_Q                 [d_model, d_k]
    w_k: Array  # W_K                 [d_model, d_k]
    w_v: Array  # W_V                 [d_model, d_k]
    q: Array  # Q = X·W_Q             [n, d_k]
    k: Array  # K = X·W_K             [n, d_k]
    v: Array  # V = X·W_V             [n, d_k]
    score_terms: Array  # q_ic·k_jc   [n, n, d_k], summed over c gives the scores
    scores: Array  # S = Q·Kᵀ         [n, n], rows are queries, columns keys
    scale: float  # 1/(√d_k · T)
    temperature: float  # T, 1 for standard attention
    scaled_scores: Array  # S/√d_k   [n, n]
    causal: bool
    mask: npt.NDArray[np.bool_]  # M, True where query i may attend to key j   [n, n]
    masked_scores: Array  # S/√d_k with -inf where M is False   [n, n]
    row_max: Array  # m_i = max_j of the masked scores   [n]
    exp_scores: Array  # e^(s_ij - m_i), 0 where masked     [n, n]
    weights: Array  # α = softmax(masked scores), rows sum to 1   [n, n]
    weighted_values: Array  # α_ij·v_j   [n, n, d_k]
    output: Array  # Σ_j α_ij·v_j     [n, d_k]
    b_q: Array | None = None  # b_Q   [d_k]: a real model's Q = X·W_Q + b_Q (None: no biases)
    b_k: Array | None = None  # b_K   [d_k]
    b_v: Array | None = None  # b_V   [d_k]
    rope: RopeStep | None = None  # a decoder with rotary positions: q and k before the rotation
    x_is: str | None = None  # a real model's X in LaTeX: what this layer's attention receives
    # A step with a key/value cache: only the new token is a query. X, Q, the scores, α and the output
    # then have one row per query (``queries``: their positions), K and V one per token. None: every
    # token is a query (n rows everywhere).
    queries: tuple[int, ...] | None = None
    head: int | None = None  # which head of a multi-head trace this is (0-based); None: a single-head trace

    @property
    def n(self) -> int:
        return len(self.tokens)

    @property
    def query_positions(self) -> tuple[int, ...]:
        return tuple(range(self.n)) if self.queries is None else self.queries

    @property
    def cached(self) -> int:
        """How many rows of K and V came from a key/value cache (0 without one)."""
        return 0 if self.queries is None else self.n - len(self.queries)


class RopeStep(NamedTuple):
    """A rotary-position decoder's extra step for one head (q and k in the trace are after it)."""

    q_before: Array  # X·W_Q   [n, d_k]
    k_before: Array  # X·W_K   [n, d_k]
    theta: Array  # θ_c, the angle per position of pair c: position p turns it by p·θ_c   [d_k / 2]
    kv_head: int  # the key/value head this query head shares (grouped-query attention)
    group: int  # how many query heads share one key/value head


class Embedded(NamedTuple):
    """A sentence's tokens and its input matrix X = E (+ P)."""

    sentence: str
    tokens: tuple[str, ...]  # n tokens
    seed: int
    embeddings: Array  # E   [n, d_model]
    positional_encoding: Array | None  # P   [n, d_model]
    x: Array  # X   [n, d_model]


def embed_sentence(sentence: str, *, d_model: int, seed: int, positional: bool = False) -> Embedded:
    """tokens → X = E + P (P only when ``positional``). Raises SentenceError for unusable text."""
    tokens = tokenize(sentence)
    e = embed(tokens, d_model, seed)  # [n, d_model]
    p = sinusoidal_positional_encoding(len(tokens), d_model) if positional else None  # [n, d_model]
    x = e + p if p is not None else e  # [n, d_model]
    return Embedded(sentence, tuple(tokens), seed, e, p, x)


def trace_self_attention(
    sentence: str,
    *,
    d_model: int = 8,
    d_k: int = 4,
    seed: int = 0,
    preset: str = "random",
    positional: bool = False,
    causal: bool = False,
    temperature: float = 1.0,
    projections: Projections | None = None,
) -> AttentionTrace:
    """Trace Att(X·W_Q, X·W_K, X·W_V) on a sentence, keeping every intermediate.

    Parameters
    ----------
    sentence : str
        Any text; see ``attention.tokens.tokenize`` for how it is split.
    d_model, d_k : int
        Embedding width and query/key/value width.
    seed : int
        Seeds both the embeddings and the "random" preset.
    preset : str
        "random" or "identity"; ignored when ``projections`` is given.
    positional : bool
        Add sinusoidal positional encodings to the embeddings.
    causal : bool
        Mask keys after the query (decoder-style attention).
    temperature : float
        T > 0 divides the scaled scores: softmax(S / (√d_k · T)). 1 is standard attention.
    projections : Projections, optional
        Explicit W_Q, W_K, W_V, each [d_model, d_k] (for hand-edited matrices).

    Raises
    ------
    SentenceError
        For a sentence that cannot be shown (empty, too long); the message says why.
    ValueError
        For dimensions or projections that don't fit.
    """
    embedded = embed_sentence(sentence, d_model=d_model, seed=seed, positional=positional)
    if projections is None:
        projections = preset_projections(preset, d_model, d_k, seed)
    else:
        preset = "custom"
    return trace_attention(embedded, projections, preset=preset, causal=causal, temperature=temperature)


def trace_attention(
    embedded: Embedded,
    projections: Projections,
    *,
    preset: str = "custom",
    causal: bool = False,
    temperature: float = 1.0,
    biases: Projections | None = None,
    rotate: Callable[[Array], Array] | None = None,
) -> AttentionTrace:
    r"""Trace softmax(X W_Q (X W_K)^\top / (\sqrt{d_k} T)) · X W_V for an embedded sentence.

    ``biases`` (b_Q, b_K, b_V, each [d_k]), as a real model has them: Q = X·W_Q + b_Q, and so on.
    ``rotate`` (a decoder's RoPE) turns Q and K before the scores; ``trace.q``, ``trace.k`` are after
    it and ``trace.rope`` keeps them before (its θ and key/value head are the caller's to add).
    """
    d_model = embedded.x.shape[1]
    d_k = np.asarray(projections[0]).shape[1]
    _check_projections(projections, d_model, d_k)
    if not temperature > 0:
        raise ValueError(f"The temperature must be a positive number, got {temperature}.")
    w_q, w_k, w_v = (np.asarray(w, dtype=np.float64) for w in projections)
    x = embedded.x  # [n, d_model]
    n = len(embedded.tokens)

    q, k, v = x @ w_q, x @ w_k, x @ w_v  # [n, d_model] @ [d_model, d_k] -> [n, d_k]
    b_q = b_k = b_v = None
    if biases is not None:
        b_q, b_k, b_v = (np.asarray(b, dtype=np.float64) for b in biases)  # [d_k] each
        q, k, v = q + b_q, k + b_k, v + b_v
    rope = None
    if rotate is not None:
        rope = RopeStep(q, k, np.zeros(0), 0, 1)
        q, k = rotate(q), rotate(k)  # [n, d_k] each: every pair of coordinates turned by its position's angle
    mask = causal_mask(n) if causal else np.ones((n, n), dtype=bool)  # [n, n]
    return _attend(embedded, (w_q, w_k, w_v), q, k, v, mask, preset=preset, causal=causal, temperature=temperature,
                   biases=(b_q, b_k, b_v), rope=rope)


def trace_cached_query(
    embedded: Embedded,
    projections: Projections,
    k_cache: Array,
    v_cache: Array,
    rotate: Callable[[Array], Array] | None = None,
) -> AttentionTrace:
    r"""One step of a decoder with a key/value cache: the last token of ``embedded.tokens`` is read.

    ``embedded.x`` is that token's row only [1, d_model]; ``k_cache``, ``v_cache`` [t, d_k] hold the t
    tokens before it (K after RoPE). Its q, k, v = x·W_Q, x·W_K, x·W_V [1, d_k] (``rotate`` turns q and k
    for its position); k and v are appended to the cache, and q is scored against all t + 1 keys:
    softmax(q·Kᵀ/√d_k)·V, one row. No mask is needed: the cache holds no later token.
    """
    w_q, w_k, w_v = (np.asarray(w, dtype=np.float64) for w in projections)
    x = embedded.x  # [1, d_model]
    t = len(embedded.tokens) - 1
    if x.shape[0] != 1 or k_cache.shape[0] != t or v_cache.shape[0] != t:
        raise ValueError(f"A cached step reads one token after {t} cached ones; got X {x.shape}, "
                         f"K {k_cache.shape}, V {v_cache.shape}.")
    q, k_new, v_new = x @ w_q, x @ w_k, x @ w_v  # [1, d_model] @ [d_model, d_k] -> [1, d_k]
    rope = None
    if rotate is not None:
        rope = RopeStep(q, k_new, np.zeros(0), 0, 1)
        q, k_new = rotate(q), rotate(k_new)
    k = np.vstack([k_cache, k_new])  # [t + 1, d_k]: the cache, then the new row
    v = np.vstack([v_cache, v_new])  # [t + 1, d_k]
    trace = _attend(embedded, (w_q, w_k, w_v), q, k, v, np.ones((1, t + 1), dtype=bool), preset="pretrained",
                    causal=False, temperature=1.0, biases=(None, None, None), rope=rope)
    return dataclasses.replace(trace, queries=(t,))


def _attend(embedded: Embedded, projections: tuple[Array, Array, Array], q: Array, k: Array, v: Array,
            mask: npt.NDArray[np.bool_], *, preset: str, causal: bool, temperature: float,
            biases: tuple[Array | None, Array | None, Array | None], rope: RopeStep | None) -> AttentionTrace:
    """softmax(mask(Q·Kᵀ/(√d_k·T)))·V from Q [n_q, d_k] and K, V [n, d_k], every step kept."""
    d_k = q.shape[1]
    score_terms = q[:, None, :] * k[None, :, :]  # [n_q, 1, d_k] * [1, n, d_k] -> [n_q, n, d_k]
    scores = attention_scores(q, k)  # [n_q, n]
    scale = 1.0 / (np.sqrt(d_k) * temperature)
    scaled = scores * scale  # [n_q, n]
    masked = apply_mask(scaled, mask)  # [n_q, n], -inf where masked
    weights = softmax(masked, axis=-1)  # [n_q, n]
    row_max = masked.max(axis=-1)  # [n_q]; finite, since every query may attend to itself
    exp_scores = np.exp(masked - row_max[:, None])  # [n_q, n]
    weighted_values = weights[:, :, None] * v[None, :, :]  # [n_q, n, 1] * [1, n, d_k] -> [n_q, n, d_k]
    output = weighted_values.sum(axis=1)  # Σ_j α_ij v_j: [n_q, d_k]
    w_q, w_k, w_v = projections
    b_q, b_k, b_v = biases

    return AttentionTrace(
        sentence=embedded.sentence,
        tokens=embedded.tokens,
        token_ids=tuple(token_ids(list(embedded.tokens))),
        seed=embedded.seed,
        preset=preset,
        d_model=embedded.x.shape[1],
        d_k=d_k,
        embeddings=embedded.embeddings,
        positional_encoding=embedded.positional_encoding,
        x=embedded.x,
        w_q=w_q,
        w_k=w_k,
        w_v=w_v,
        q=q,
        k=k,
        v=v,
        score_terms=score_terms,
        scores=scores,
        scale=float(scale),
        temperature=float(temperature),
        scaled_scores=scaled,
        causal=causal,
        mask=mask,
        masked_scores=masked,
        row_max=row_max,
        exp_scores=exp_scores,
        weights=weights,
        weighted_values=weighted_values,
        output=output,
        b_q=b_q,
        b_k=b_k,
        b_v=b_v,
        rope=rope,
    )


def _check_projections(projections: Projections, d_model: int, d_k: int) -> None:
    for name, w in zip(("W_Q", "W_K", "W_V"), projections, strict=True):
        w = np.asarray(w)
        if w.shape != (d_model, d_k):
            raise ValueError(f"{name} has shape {w.shape} but must be [d_model, d_k] = [{d_model}, {d_k}].")
        if not np.isfinite(w).all():
            raise ValueError(f"{name} contains NaN or infinity; every entry must be a finite number.")
