"""Sampling a decoder's next token: temperature, then top-k, then top-p (nucleus), then one seeded draw.

The three steps follow Hugging Face's logits processors as ``generate(do_sample=True)`` chains them
(``TemperatureLogitsWarper``, ``TopKLogitsWarper``, ``TopPLogitsWarper``), ties and edge cases included; the
tests compare this module with them on golden files (tests/by_hand/make_golden.py writes tests/golden/sampling.npz).
Written here rather than imported: the engine is NumPy only, and transformers would bring PyTorch.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from attention.core import softmax

Array = np.ndarray
ROUNDING = 1e-9  # top-p's comparison of a running sum of probabilities with 1 − p


class Sampling(NamedTuple):
    """What a learner sets: T > 0; top_k = 0 keeps every token; top_p = 1 keeps every token."""
    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0


def with_temperature(logits: Array, temperature: float) -> Array:
    """z / T: below 1 sharpens the distribution, above 1 flattens it."""  # [vocab]
    return logits / temperature


def top_k_kept(z: Array, k: int) -> Array:
    """The tokens whose logit is at least the k-th largest (ties with it are kept); k = 0 keeps every token."""
    if k <= 0 or k >= z.size:
        return np.ones(z.size, dtype=bool)
    kth = np.partition(z, z.size - k)[z.size - k]
    return z >= kth  # [vocab]


def top_p_kept(z: Array, p: float) -> Array:
    """The smallest set of likeliest tokens whose probabilities add up to at least p (at least the likeliest one;
    Hugging Face: "add up to top_p or higher"): sorted from the least likely, a token goes while the running sum of
    probabilities, itself included, is at most 1 − p, within ROUNDING (a sum exact on paper, 8 × 0.025 = 0.2 against
    1 − 0.8, lands on either side of it in floating point). p = 1 keeps every token. Of tokens tied on the boundary,
    the one with the smaller id stays (Hugging Face's sort leaves that choice to PyTorch's unstable sort)."""
    if p >= 1.0:
        return np.ones(z.size, dtype=bool)
    order = np.lexsort((-np.arange(z.size), z))  # least likely first; of tied tokens, the larger id first
    running = np.cumsum(softmax(z[order]))
    removed = running <= 1.0 - p + ROUNDING
    removed[-1] = False  # the likeliest token always stays
    kept = np.ones(z.size, dtype=bool)
    kept[order[removed]] = False
    return kept  # [vocab]


class Processed(NamedTuple):
    sampling: Sampling
    before: Array  # [vocab] softmax(logits): the model's own distribution
    tempered: Array  # [vocab] softmax(logits / T)
    left_by_top_k: Array  # [vocab] bool: the tokens top-k alone keeps
    top_p_measures: Array  # [vocab] what top-p measures: tempered, cut to what top-k left, renormalised
    kept: Array  # [vocab] bool: left by top-k and then top-p
    after: Array  # [vocab] the distribution sampled from: tempered, cut to kept, renormalised


def processed(logits: Array, sampling: Sampling) -> Processed:
    """p = softmax(mask(z / T)): the logits divided by T, the tokens top-k and then top-p remove set to −∞
    (top-p measures the distribution top-k left)."""
    logits = np.asarray(logits, dtype=np.float64)  # [vocab]
    z = with_temperature(logits, sampling.temperature)
    left_by_top_k = top_k_kept(z, sampling.top_k)
    kept = left_by_top_k & top_p_kept(np.where(left_by_top_k, z, -np.inf), sampling.top_p)
    return Processed(sampling, softmax(logits), softmax(z), left_by_top_k, softmax(np.where(left_by_top_k, z, -np.inf)),
                     kept, softmax(np.where(kept, z, -np.inf)))


class Draw(NamedTuple):
    u: float  # the uniform number drawn, in [0, 1)
    token: int  # the token whose slice of [0, 1) holds u
    order: Array  # [kept] the kept tokens, likeliest first (ties by id), as their slices are laid out
    ends: Array  # [kept] where each slice ends: the running sum of their probabilities


def draw(p: Array, seed: int) -> Draw:
    """One token from p by inverse transform: u ~ U[0, 1) from the seed; the kept tokens laid out likeliest first,
    each a slice of [0, 1) as long as its probability; the token is the one whose slice holds u."""
    u = float(np.random.default_rng(seed).random())
    kept = np.flatnonzero(p > 0)
    order = kept[np.lexsort((kept, -p[kept]))]  # likeliest first, ties by id
    ends = np.cumsum(p[order])
    k = min(int(np.searchsorted(ends, u, side="right")), order.size - 1)  # u past a rounded last end: the last
    return Draw(u, int(order[k]), order, ends)
