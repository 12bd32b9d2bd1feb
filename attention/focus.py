"""How focused a head's attention is, measured on its α, and which heads are attention sinks: the bridge between
the walkthrough's head and a trained model's heads (ui/bridge.py) and the real model's page read these.

A row that has one key to attend to (a causal head's first row) has no choice: its weight on that key is 1 whatever
the head learned. Both measures leave such rows out."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

Array = np.ndarray
SINK = 0.5  # a head that puts more than this share of its weight on the sink tokens is an attention sink


def allowed_keys(kind: str, n: int) -> npt.NDArray[np.bool_]:
    """M [n, n]: True where query i may attend to key j; causal (j ≤ i) for a decoder, every key for an encoder."""
    every = np.ones((n, n), dtype=bool)
    return np.tril(every) if kind == "decoder" else every


def sink_tokens(kind: str, n: int) -> list[int]:
    """Where a model's heads park their weight: an encoder's [CLS] and [SEP] (its first and last tokens, which it
    adds), a decoder's first token (for SmolLM2 the sentence's own first token: it adds no special token)."""
    return [0] if kind == "decoder" else [0, n - 1]


def choosing_rows(allowed: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """The rows with two keys or more to choose between   [n, n] → [n]."""
    return allowed.sum(axis=-1) >= 2


def entropy_share(weights: Array, allowed: npt.NDArray[np.bool_]) -> float | None:
    """mean_i H(α_i) / ln n_i: each row's entropy as a share of the largest it could be (α uniform over the n_i
    keys row i may attend to), averaged over the rows with two keys or more. 1: every key weighted equally; 0: one
    key takes all. None when no row has two keys (a one-token sentence under a causal mask)."""
    n_keys = allowed.sum(axis=-1)  # [n]
    rows = choosing_rows(allowed)
    if not rows.any():
        return None
    p = np.where(allowed, weights, 0.0)[rows]  # [rows, n]
    h = -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0), axis=-1)  # [rows]
    return float(np.mean(h / np.log(n_keys[rows])))


def sink_weight(weights: Array, allowed: npt.NDArray[np.bool_], sinks: list[int]) -> Array:
    """Each head's weight on the ``sinks`` tokens, averaged over the rows with two keys or more (a row with one key
    puts all its weight there by force)   [..., n, n] → [...]; NaN where no row has two keys."""
    rows = choosing_rows(allowed)
    if not rows.any():
        return np.full(weights.shape[:-2], np.nan)
    return weights[..., rows, :][..., sinks].sum(axis=-1).mean(axis=-1)


def sink_threshold(allowed: npt.NDArray[np.bool_], sinks: list[int]) -> float:
    """The weight on the ``sinks`` tokens above which a head is an attention sink: more than half (SINK), and more
    than an even spread over each row's keys would put there (``sink_weight`` of a uniform α). The second binds
    only where the sinks are most of the keys: an encoder's one-word sentence, [CLS] and [SEP] being 2 of its 3."""
    even = allowed / allowed.sum(axis=-1, keepdims=True)  # α spread evenly over the keys each row may see
    weight = sink_weight(even, allowed, sinks)
    return SINK if np.isnan(weight) else max(SINK, float(weight))


def sink_heads(weights: Array, allowed: npt.NDArray[np.bool_], sinks: list[int]) -> npt.NDArray[np.bool_]:
    """The attention sinks of weights [layers, heads, n, n]: the heads whose ``sink_weight`` is more than
    ``sink_threshold`` (most of their weight); none when no row has two keys   → [layers, heads]."""
    return np.nan_to_num(sink_weight(weights, allowed, sinks), nan=0.0) > sink_threshold(allowed, sinks)


def model_sinks(kind: str, weights: Array) -> npt.NDArray[np.bool_]:
    """A model's attention sinks on one sentence, from its α [layers, heads, n, n]: ``sink_heads`` with its mask and
    its sink tokens   → [layers, heads]."""
    n = weights.shape[-1]
    return sink_heads(weights, allowed_keys(kind, n), sink_tokens(kind, n))


class Informative(NamedTuple):
    layer: int  # from 0
    head: int
    share: float | None  # its entropy_share (None: no row has two keys, so no head is more focused than another)
    heads: int  # every head of the model
    sinks: int  # how many heads are attention sinks on this sentence (``sink_heads``)
    sinks_more_focused: int  # how many of those have a lower entropy_share than this head
    sink_at: float  # the sink_threshold: a sink's weight on the sink tokens is more than this

    @property
    def sinks_passed_over(self) -> int:
        """The sinks left out of the choice: all of them, unless every head is one (then none is left out)."""
        return 0 if self.sinks == self.heads else self.sinks


def most_informative_head(weights: Array, allowed: npt.NDArray[np.bool_], sinks: list[int]) -> Informative:
    """The head of weights [layers, heads, n, n] whose rows are the most focused (lowest ``entropy_share``) among
    those that are not attention sinks (``sink_heads``: most of their weight on the ``sinks`` tokens, over the rows
    with two keys or more); among all heads when every head is one. Ties, and a sentence where no row has
    two keys (no share at all): the first head in layer order."""
    layers, heads = weights.shape[:2]
    sink = sink_heads(weights, allowed, sinks)  # [layers, heads]
    every = [(layer, head) for layer in range(layers) for head in range(heads)]
    shares = {c: entropy_share(weights[c], allowed) for c in every}
    pool = [c for c in every if not sink[c]] or every
    best = min(pool, key=lambda c: (np.inf if shares[c] is None else shares[c]))
    share = shares[best]
    more = 0 if share is None else sum(1 for c in every if sink[c] and shares[c] is not None and shares[c] < share)
    return Informative(*best, share, len(every), int(sink.sum()), more, sink_threshold(allowed, sinks))
