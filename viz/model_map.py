"""The model map (issue 36): where the open step sits in a whole model, as data for static/map.js.

A map is groups of parts in the order the numbers flow. The first group is what the page computes (a head's
steps, clickable, with the trace's own shapes); the others are the rest of the model, each labelled honestly:
for the walkthrough and the multi-head page "what a full model adds" (faded: not computed there), for the real
models their own layers and heads (computed by our forward, not drawn as steps). Shapes come from the trace and the
model's sizes, never from constants.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from attention import AttentionTrace
from attention.cross import CrossAttentionTrace
from attention.phonebook import Lookup
from attention.pretrained.common import ModelInfo
from viz.labels import count
from viz.svg import colours, normalise

THUMB_MAX = 12  # a thumbnail is drawn when its matrix has at most this many rows and columns ("where it fits")

FULL_MODEL = "What a full model adds (not computed in this lesson)"


def _part(label: str, shape: str = "", step: int | None = None, note: str = "", here: bool = False) -> dict:
    return {"label": label, "shape": shape, "step": step, "note": note, "here": here}


def _mark(parts: list[dict], here: Collection[int]) -> list[dict]:
    """``parts`` (numbered from 1) with the parts in ``here`` marked as what the page is about."""
    return [{**part, "here": part["here"] or k in here} for k, part in enumerate(parts, start=1)]


def _full_model(n: int, d_model: int, *, heads: bool = True) -> dict:
    """The faded rest of a full transformer: not computed on a lesson's page, said so."""
    more = [_part("More heads, concatenated, · W_O", f"[{n} × {d_model}]", note="the multi-head page")] if heads else []
    return {"name": FULL_MODEL, "faded": True, "parts": [
        *more,
        _part("+ X (residual)", f"[{n} × {d_model}]"),
        _part("LayerNorm"),
        _part("MLP (feed-forward)", f"[{n} × {d_model}]"),
        _part("× N layers", note="each reads the last one's output"),
        _part("Unembedding → next-token probabilities", "[vocabulary]")]}


def thumbnail(m: np.ndarray, *, weights: bool = False, top: float | None = None) -> dict | None:
    """A part's own numbers as a small picture: each cell's colour on the heatmaps' scales (α from 0 to its largest
    weight on viridis, as the step's heatmap;
    other numbers on the diverging scale from −``top`` to ``top``, by default the largest |entry|); NaN (masked)
    grey. None when it does not fit."""
    m = np.atleast_2d(m)  # [r, c]
    if m.shape[0] > THUMB_MAX or m.shape[1] > THUMB_MAX or m.size == 0:
        return None
    if weights:
        t = normalise(m, 0.0, float(np.nanmax(m)))
    else:
        if top is None:
            top = float(np.nanmax(np.abs(m))) if np.isfinite(m).any() else 0.0
        t = normalise(m, -top, top)
    t = np.where(np.isnan(m), np.nan, t)  # masked stays grey (normalise makes a flat matrix 0.5 everywhere)
    return {"rows": int(m.shape[0]), "cols": int(m.shape[1]), "colours": colours("weights" if weights else "signed", t)}


def _thumbs(trace: AttentionTrace) -> dict[str, dict | None]:
    """The thumbnails of a head's steps, by title, each matrix as its step draws it: X, Q, the scores (every cell:
    step 5 has no mask yet), the scaled scores (the masked ones −∞, grey, as step 6 sets them), α (masked grey, as
    step 7) and the output. The scores and the scaled scores share one scale (the larger |entry| of the two), so
    what the division does to their size shows."""
    rows = list(trace.query_positions)
    hidden = ~trace.mask[rows] if trace.mask.shape[0] == trace.n else ~trace.mask  # [rows, keys]
    x = trace.x[rows] if trace.x.shape[0] == trace.n else trace.x
    scores = trace.scores  # [rows, keys]
    scaled = np.where(np.isfinite(trace.masked_scores), trace.masked_scores, np.nan)  # −∞ where masked: grey
    top = float(np.nanmax(np.abs([scores, scaled])))  # (every query may see itself: never all NaN)
    return {"Embeddings X": thumbnail(x), "Queries, keys and values": thumbnail(trace.q),
            "Scores Q·Kᵀ": thumbnail(scores, top=top),
            "Scale by 1/√d_k": thumbnail(scaled, top=top),
            "Softmax: attention weights α": thumbnail(np.where(hidden, np.nan, trace.weights), weights=True),
            "The output for one query": thumbnail(trace.output)}


def head_parts(trace: AttentionTrace, titles: list[str], opens: Collection[int] | None = None) -> list[dict]:
    """One part per step of ``titles`` (``ui.walkthrough.steps_for``: the decoder has a RoPE step), numbered from 1,
    with its shape from ``trace``; the steps in ``opens`` (all when None) can be opened from the map."""
    n, d_model, d_k = trace.n, trace.d_model, trace.d_k
    rows = len(trace.query_positions)  # a cached step: the new token's row only
    keys = trace.scores.shape[-1]
    by_title = {
        "Tokens": ("Tokens", f"{n} token{'s' if n != 1 else ''}"),
        "Embeddings X": ("X = E + P" if trace.positional_encoding is not None else "X", f"[{rows} × {d_model}]"),
        "Projection matrices W_Q, W_K, W_V": ("W_Q, W_K, W_V", f"[{d_model} × {d_k}] each"),
        "Queries, keys and values": ("Q, K, V", f"[{rows} × {d_k}], [{keys} × {d_k}] ×2" if rows != keys
                                     else f"[{n} × {d_k}] each"),
        "Rotary positions (RoPE)": ("RoPE on q, k", f"[{rows} × {d_k}]"),
        "Scores Q·Kᵀ": ("Scores Q·Kᵀ", f"[{rows} × {keys}]"),
        "Scale by 1/√d_k": ((f"÷ √{d_k}" if trace.temperature == 1 else f"÷ (√{d_k} · {trace.temperature:g})")
                            + (" + mask" if trace.causal else ""), f"[{rows} × {keys}]"),
        "Softmax: attention weights α": ("α = softmax", f"[{rows} × {keys}]"),
        "The output for one query": ("Output Σ α v", f"[{rows} × {d_k}]"),
    }
    thumbs = _thumbs(trace)
    return [_part(*by_title[title], step=k if opens is None or k in opens else None) | {"thumb": thumbs.get(title)}
            for k, title in enumerate(titles, start=1)]


def lesson_map(trace: AttentionTrace, titles: list[str], current: int | None, *, heads: int | None = None,
               opens: Collection[int] | None = None, here: Collection[int] = (), name: str = "",
               where: str = "") -> dict:
    """The walkthrough's map (``heads`` None) or the multi-head page's (``heads`` heads, concatenated and mixed by
    W_O), inside the faded rest of a full model. Another lesson's map (``name`` its head's group) marks the steps
    ``here`` that lesson is about, and its parts open them ``where`` (in the walkthrough)."""
    n, d_model, d_k = trace.n, trace.d_model, trace.d_k
    name = name or ("One attention head: this lesson" if heads is None else "One head of this page's layer")
    groups = [{"name": name, "parts": _mark(head_parts(trace, titles, opens), here), "faded": False}]
    if heads is not None:
        groups.append({"name": f"{count(heads, 'head')}, one layer: this page", "faded": False, "parts": [
            _part(f"{count(heads, 'head')} side by side", f"[{n} × {d_k}] each"),
            _part("Concatenate", f"[{n} × {heads * d_k}]"),
            _part("· W_O", f"[{heads * d_k} × {d_model}] → [{n} × {d_model}]")]})
    groups.append(_full_model(n, d_model, heads=heads is None))
    return {"title": "Where this is in a model", "groups": groups, "current": current, "where": where,
            "folded": "One head of a model" if heads is None else "One head of this layer"}


def real_map(trace: AttentionTrace, titles: list[str], current: int | None, info: ModelInfo, layer: int,
             head: int, opens: Collection[int] | None = None) -> dict:
    """A real model's own map: its embeddings, layer ``layer``'s head ``head`` step by step (this page), the rest of
    that layer and the other layers (our forward computes them), and what comes out (MiniLM: a sentence embedding;
    SmolLM2: the next token's probabilities). A cached step (the cache lesson) computes the new token's row only."""
    n, d = len(trace.query_positions), info.d_model  # rows computed: every token, or the new one with a cache
    decoder = info.kind == "decoder"
    norm = "RMSNorm" if decoder else "LayerNorm"
    before = [_part("Token embeddings" + ("" if decoder else " + positions, LayerNorm"), f"[{n} × {d}]")]
    if layer > 0:
        before.append(_part(f"Layers 1–{layer}" if layer > 1 else "Layer 1", f"[{n} × {d}]"))
    shared = ", sharing K, V in threes" if decoder else ""
    rest = [_part(f"{info.heads} heads{shared}, concatenated, · W_O", f"[{n} × {d}]"), _part("+ residual, " + norm),
            _part("MLP", f"[{n} × {d}]"), _part("+ residual" + ("" if decoder else ", LayerNorm"))]
    if decoder:  # a pre-norm layer: its norm comes before the heads
        before.append(_part(f"Layer {layer + 1}'s {norm} before attention", f"[{n} × {d}]"))
    after = []
    if layer < info.layers - 1:
        after.append(_part(f"Layers {layer + 2}–{info.layers}" if layer < info.layers - 2 else f"Layer {info.layers}",
                           f"[{n} × {d}]"))
    if decoder:
        after += [_part("Final RMSNorm, unembedding", f"[{d} × vocabulary]"), _part("Next-token probabilities")]
    else:
        after += [_part("Mean pooling", f"[{d}]"), _part("Sentence embedding", f"[{d}], unit length")]
    model = info.title.split(" (")[0]
    return {"title": f"Where this is in {model}", "folded": f"Head {head + 1}, layer {layer + 1} of {model}",
            "current": current, "groups": [
        {"name": "Before this layer", "faded": False, "parts": before},
        {"name": f"Layer {layer + 1} of {info.layers}, head {head + 1} of {info.heads}: this page's steps",
         "faded": False, "parts": head_parts(trace, titles, opens)},
        {"name": f"The rest of layer {layer + 1} (our forward computes it; not drawn as steps)", "faded": False,
         "parts": rest},
        {"name": "After this layer", "faded": False, "parts": after}]}


def lookup_map(result: Lookup | None) -> dict:
    """The phonebook lesson's map: its lookup is one query of an attention head (names as keys, numbers as values,
    ÷ T where a head divides by √d_k), every step marked; the shapes are the lookup's (none before a lookup)."""
    def shape(text: str) -> str:
        return "" if result is None else text

    m, dim, digits = (0, 0, 0) if result is None else (len(result.names), result.keys.shape[1], result.values.shape[1])
    names = "the book's names" if result is None else f"the book's {m} name{'s' if m != 1 else ''}"
    parts = [_part(f"The name and {names} as trigram counts", shape(f"[{m + 1} × {dim}]"), 2,
                   note="fixed: a model learns its own"),
             _part("q: the name looked up", shape(f"[1 × {dim}]"), 4),
             _part("K: the names, V: the numbers", shape(f"[{m} × {dim}], [{m} × {digits}]"), 4),
             _part("Scores q·Kᵀ", shape(f"[1 × {m}]"), 5),
             _part("÷ T", note="a head divides by √d_k", step=6),
             _part("α = softmax", shape(f"[1 × {m}]"), 7),
             _part("Σ α v: the numbers mixed", shape(f"[1 × {digits}]"), 8)]
    return {"title": "Where this is in a model", "folded": "One query of one head", "current": None,
            "where": "the walkthrough", "groups": [
        {"name": "The phonebook is one query of an attention head: this lesson", "faded": False,
         "parts": _mark(parts, range(1, len(parts) + 1))},
        {"name": FULL_MODEL, "faded": True, "parts": [
            _part("Every token a query, at once", note="the walkthrough"), _part("More heads, · W_O"),
            _part("+ residual, LayerNorm, MLP"), _part("× N layers"), _part("Next-token probabilities")]}]}


def cross_map(trace: CrossAttentionTrace) -> dict:
    """The cross-attention lesson's map: queries from the target's tokens, keys and values from the source's, one
    head with the trace's shapes (all on the page, so all marked), inside the faded decoder layer a full
    encoder–decoder model wraps it in."""
    i, j, d, d_k = len(trace.target.tokens), len(trace.source.tokens), trace.w_q.shape[0], trace.d_k
    parts = [_part("X_t (target), X_s (source)", f"[{i} × {d}], [{j} × {d}]", 2),
             _part("W_Q, W_K, W_V", f"[{d} × {d_k}] each", 3),
             _part("Q = X_t·W_Q; K, V from X_s", f"[{i} × {d_k}], [{j} × {d_k}] ×2", 4),
             _part("Scores Q·Kᵀ", f"[{i} × {j}]", 5), _part(f"÷ √{d_k}", f"[{i} × {j}]", 6),
             _part("α = softmax", f"[{i} × {j}]", 7), _part("Output Σ α v", f"[{i} × {d_k}]", 8)]
    return {"title": "Where this is in a model", "folded": "One cross-attention head", "current": None,
            "where": "the walkthrough", "groups": [
        {"name": "One cross-attention head: this lesson", "faded": False, "parts": _mark(parts, range(1, 9))},
        {"name": FULL_MODEL + ": an encoder–decoder", "faded": True, "parts": [
            _part("The encoder's layers read the source", f"[{j} × {d}]", note="its last output gives K and V"),
            _part("The decoder's causal self-attention on the target first", f"[{i} × {d}]"),
            _part("More heads, · W_O; + residual, LayerNorm", f"[{i} × {d}]"), _part("MLP", f"[{i} × {d}]"),
            _part("× N decoder layers", note="each reads the source again"),
            _part("Next-token probabilities", "[vocabulary]")]}]}


def training_map(trace: AttentionTrace, titles: list[str], current: int | None, *, head: int, heads: int,
                 classes: int, trained: bool = True) -> dict:
    """The learn lesson's map: the trained head's steps (3–8 open below the page's α), the rest of this small model
    (its heads, W_O and the answer's probabilities, trained with it), and what a full model adds. Before a run
    (``trained`` False) the head is the run's step 0 and no step opens: the page has no steps to open yet."""
    n, d_model, d_k = trace.n, trace.d_model, trace.d_k
    folded = "The small model's one head" if heads == 1 else f"Head {head + 1} of the small model's {heads}"
    return {"title": "Where this head is in the model being trained", "folded": folded,
            "current": current, "where": "", "groups": [
        {"name": ("The model's one head" if heads == 1 else f"Head {head + 1} of {heads}") + (
            ": its steps (3–8 open below, in “This head, step by step”)" if trained else
            " before training (step 0, on the first held-out sequence): its steps open once trained"), "faded": False,
         "parts": head_parts(trace, titles, range(3, len(titles) + 1) if trained else ())},
        {"name": "The rest of this model (trained with it)", "faded": False, "parts": [
            _part(f"{heads} heads, concatenated", f"[{n} × {heads * d_k}]") if heads > 1 else
            _part("Its output", f"[{n} × {d_k}]"),
            _part("· W_O + b", f"[{heads * d_k} × {classes}] → [{n} × {classes}]"),
            _part("softmax: each position's answer", f"[{n} × {classes}]")]},
        {"name": "What a full model adds (not in this one)", "faded": True, "parts": [
            _part("+ X (residual)", f"[{n} × {d_model}]"), _part("LayerNorm"),
            _part("MLP (feed-forward)", f"[{n} × {d_model}]"), _part("× N layers")]}]}
