"""Tokens → embedding matrix X, and the sinusoidal positional encodings of the original paper."""

from __future__ import annotations

import hashlib
from functools import lru_cache

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float64]


def _token_seed(token: str, seed: int) -> int:
    """A 64-bit seed from the token's text and the lesson seed (stable across runs and machines)."""
    digest = hashlib.blake2b(f"{seed}\x00{token}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def token_embedding(token: str, d_model: int, seed: int) -> npt.NDArray[np.float64]:
    """e(token) ~ N(0, 1)^d_model, drawn from a generator seeded by (seed, token text).

    The same text gives the same vector wherever it stands, so repeated words visibly match, and
    the vector does not depend on the rest of the sentence. Text is compared exactly: "This" and
    "this" are different tokens.

    Returns
    -------
    ndarray, shape [d_model]
    """
    return _token_embedding(token, d_model, seed).copy()


@lru_cache(maxsize=4096)  # a generator costs ~0.1 ms to seed; a lesson's rerun embeds the same words again
def _token_embedding(token: str, d_model: int, seed: int) -> npt.NDArray[np.float64]:
    vector = np.random.default_rng(_token_seed(token, seed)).standard_normal(d_model)
    vector.flags.writeable = False  # shared by every call: no caller may change it
    return vector


def embed(tokens: list[str], d_model: int, seed: int) -> Matrix:
    """X = [e(t_1); …; e(t_n)]: one embedding row per token.

    Returns
    -------
    ndarray, shape [n, d_model]
    """
    if d_model < 1:
        raise ValueError(f"d_model must be at least 1, got {d_model}.")
    vectors = {t: _token_embedding(t, d_model, seed) for t in dict.fromkeys(tokens)}
    return np.stack([vectors[t] for t in tokens]) if tokens else np.zeros((0, d_model))


def sinusoidal_positional_encoding(n: int, d_model: int) -> Matrix:
    r"""PE_{pos, 2i} = \sin(pos / 10000^{2i/d_model}),  PE_{pos, 2i+1} = \cos(pos / 10000^{2i/d_model}).

    Vaswani et al. (2017), section 3.5. Positions count from 0. For an odd d_model the last
    column is a sine.

    Returns
    -------
    ndarray, shape [n, d_model]
    """
    pos = np.arange(n)[:, None]  # [n, 1]
    two_i = np.arange(0, d_model, 2)[None, :]  # [1, ceil(d_model / 2)]
    angle = pos / np.power(10000.0, two_i / d_model)  # [n, ceil(d_model / 2)]
    pe = np.empty((n, d_model))
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle[:, : d_model // 2])
    return pe
