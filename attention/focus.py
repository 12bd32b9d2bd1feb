"""How focused a head's attention is, measured on its α: the bridge between the walkthrough's random weights and a
trained model's heads (ui/bridge.py) reads these."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

Array = np.ndarray
SINK = 0.5  # a head that sends at least this share of its weight to the special tokens is an attention sink


def entropy_share(weights: Array, allowed: npt.NDArray[np.bool_]) -> float | None:
    """mean_i H(α_i) / ln n_i: each row's entropy as a share of the largest it could be (α uniform over the n_i
    keys row i may attend to), averaged over the rows with two keys or more. 1: every key weighted equally; 0: one
    key takes all. None when no row has two keys (a one-token sentence under a causal mask)."""
    n_keys = allowed.sum(axis=-1)  # [n]
    rows = n_keys >= 2
    if not rows.any():
        return None
    p = np.where(allowed, weights, 0.0)[rows]  # [rows, n]
    h = -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0), axis=-1)  # [rows]
    return float(np.mean(h / np.log(n_keys[rows])))


class Informative(NamedTuple):
    layer: int  # from 0
    head: int
    share: float | None  # its entropy_share
    sinks_passed_over: int  # heads left out as attention sinks


def most_informative_head(weights: Array, allowed: npt.NDArray[np.bool_], special: list[int]) -> Informative:
    """The head of weights [layers, heads, n, n] whose rows are the most focused (lowest ``entropy_share``), passing
    over attention sinks: heads whose mean weight on the ``special`` tokens (the first one; MiniLM's [CLS] and [SEP])
    is at least SINK, unless every head is one. Ties: the first head in layer order."""
    layers, heads = weights.shape[:2]
    on_special = weights[..., special].sum(axis=-1).mean(axis=-1)  # [layers, heads]
    candidates = [(layer, head) for layer in range(layers) for head in range(heads)]
    words = [c for c in candidates if on_special[c] < SINK]
    pool = words or candidates
    shares = {c: entropy_share(weights[c], allowed) for c in pool}
    best = min(pool, key=lambda c: (np.inf if shares[c] is None else shares[c]))
    return Informative(*best, shares[best], len(candidates) - len(words) if words else 0)
