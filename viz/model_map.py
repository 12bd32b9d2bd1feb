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
from viz.i18n import N_, nt, t
from viz.svg import colours, normalise

THUMB_MAX = 12  # a thumbnail is drawn when its matrix has at most this many rows and columns ("where it fits")

FULL_MODEL = N_("What a full model adds (not computed in this lesson)")  # English: t() translates


def _part(label: str, shape: str = "", step: int | None = None, note: str = "", here: bool = False) -> dict:
    return {"label": label, "shape": shape, "step": step, "note": note, "here": here}


def _mark(parts: list[dict], here: Collection[int]) -> list[dict]:
    """``parts`` (numbered from 1) with the parts in ``here`` marked as what the page is about."""
    return [{**part, "here": part["here"] or k in here} for k, part in enumerate(parts, start=1)]


def _full_model(n: int, d_model: int, *, heads: bool = True) -> dict:
    """The faded rest of a full transformer: not computed on a lesson's page, said so."""
    more = [_part(t("More heads, concatenated, · W_O"), f"[{n} × {d_model}]", note=t("the multi-head page"))] \
        if heads else []
    return {"name": t(FULL_MODEL), "faded": True, "parts": [
        *more,
        _part(t("+ X (residual)"), f"[{n} × {d_model}]"),
        _part("LayerNorm"),
        _part(t("MLP (feed-forward)"), f"[{n} × {d_model}]"),
        _part(t("× N layers"), note=t("each reads the last one's output")),
        _part(t("Unembedding → next-token probabilities"), t("[vocabulary]"))]}


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
    divide = f"÷ √{d_k}" if trace.temperature == 1 else f"÷ (√{d_k} · {trace.temperature:g})"
    by_title = {  # by the step's English title (ui.walkthrough.STEPS), as the page names it
        "Tokens": (t("Tokens"), nt("{n} token", "{n} tokens", n)),
        "Embeddings X": ("X = E + P" if trace.positional_encoding is not None else "X", f"[{rows} × {d_model}]"),
        "Projection matrices W_Q, W_K, W_V": ("W_Q, W_K, W_V", t("{shape} each", shape=f"[{d_model} × {d_k}]")),
        "Queries, keys and values": ("Q, K, V", f"[{rows} × {d_k}], [{keys} × {d_k}] ×2" if rows != keys
                                     else t("{shape} each", shape=f"[{n} × {d_k}]")),
        "Rotary positions (RoPE)": (t("RoPE on q, k"), f"[{rows} × {d_k}]"),
        "Scores Q·Kᵀ": (t("Scores Q·Kᵀ"), f"[{rows} × {keys}]"),
        "Scale by 1/√d_k": (t("{divide} + mask", divide=divide) if trace.causal else divide, f"[{rows} × {keys}]"),
        "Softmax: attention weights α": ("α = softmax", f"[{rows} × {keys}]"),
        "The output for one query": (t("Output Σ α v"), f"[{rows} × {d_k}]"),
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
    name = name or (t("One attention head: this lesson") if heads is None else t("One head of this page's layer"))
    groups = [{"name": name, "parts": _mark(head_parts(trace, titles, opens), here), "faded": False}]
    if heads is not None:
        groups.append({"name": nt("{n} head, one layer: this page", "{n} heads, one layer: this page", heads),
                       "faded": False, "parts": [
            _part(nt("{n} head side by side", "{n} heads side by side", heads),
                  t("{shape} each", shape=f"[{n} × {d_k}]")),
            _part(t("Concatenate"), f"[{n} × {heads * d_k}]"),
            _part("· W_O", f"[{heads * d_k} × {d_model}] → [{n} × {d_model}]")]})
    groups.append(_full_model(n, d_model, heads=heads is None))
    return {"title": t("Where this is in a model"), "groups": groups, "current": current, "where": where,
            "folded": t("One head of a model") if heads is None else t("One head of this layer"),
            "texts": map_texts()}


def real_map(trace: AttentionTrace, titles: list[str], current: int | None, info: ModelInfo, layer: int,
             head: int, opens: Collection[int] | None = None) -> dict:
    """A real model's own map: its embeddings, layer ``layer``'s head ``head`` step by step (this page), the rest of
    that layer and the other layers (our forward computes them), and what comes out (MiniLM: a sentence embedding;
    SmolLM2: the next token's probabilities). A cached step (the cache lesson) computes the new token's row only."""
    n, d = len(trace.query_positions), info.d_model  # rows computed: every token, or the new one with a cache
    decoder = info.kind == "decoder"
    norm = "RMSNorm" if decoder else "LayerNorm"
    before = [_part(t("Token embeddings") if decoder else t("Token embeddings + positions, LayerNorm"), f"[{n} × {d}]")]
    if layer > 0:
        before.append(_part(t("Layers 1–{last}", last=layer) if layer > 1 else t("Layer {layer}", layer=1),
                            f"[{n} × {d}]"))
    rest = [_part(t("{heads} heads, sharing K, V in threes, concatenated, · W_O", heads=info.heads) if decoder else
                  t("{heads} heads, concatenated, · W_O", heads=info.heads), f"[{n} × {d}]"),
            _part(t("+ residual, {norm}", norm=norm)), _part("MLP", f"[{n} × {d}]"),
            _part(t("+ residual") if decoder else t("+ residual, {norm}", norm="LayerNorm"))]
    if decoder:  # a pre-norm layer: its norm comes before the heads
        before.append(_part(t("Layer {layer}'s {norm} before attention", layer=layer + 1, norm=norm), f"[{n} × {d}]"))
    after = []
    if layer < info.layers - 1:
        after.append(_part(t("Layers {first}–{last}", first=layer + 2, last=info.layers) if layer < info.layers - 2
                           else t("Layer {layer}", layer=info.layers), f"[{n} × {d}]"))
    if decoder:
        after += [_part(t("Final RMSNorm, unembedding"), t("[{d} × vocabulary]", d=d)),
                  _part(t("Next-token probabilities"))]
    else:
        after += [_part(t("Mean pooling"), f"[{d}]"), _part(t("Sentence embedding"), t("[{d}], unit length", d=d))]
    model = info.title.split(" (")[0]
    return {"title": t("Where this is in {model}", model=model),
            "folded": t("Head {head}, layer {layer} of {model}", head=head + 1, layer=layer + 1, model=model),
            "current": current, "texts": map_texts(), "groups": [
        {"name": t("Before this layer"), "faded": False, "parts": before},
        {"name": t("Layer {layer} of {layers}, head {head} of {heads}: this page's steps", layer=layer + 1,
                   layers=info.layers, head=head + 1, heads=info.heads),
         "faded": False, "parts": head_parts(trace, titles, opens)},
        {"name": t("The rest of layer {layer} (our forward computes it; not drawn as steps)", layer=layer + 1),
         "faded": False, "parts": rest},
        {"name": t("After this layer"), "faded": False, "parts": after}]}


def lookup_map(result: Lookup | None) -> dict:
    """The phonebook lesson's map: its lookup is one query of an attention head (names as keys, numbers as values,
    ÷ T where a head divides by √d_k), every step marked; the shapes are the lookup's (none before a lookup)."""
    def shape(text: str) -> str:
        return "" if result is None else text

    m, dim, digits = (0, 0, 0) if result is None else (len(result.names), result.keys.shape[1], result.values.shape[1])
    names = (t("The name and the book's names as trigram counts") if result is None else
             nt("The name and the book's {n} name as trigram counts", "The name and the book's {n} names as trigram "
                "counts", m))
    parts = [_part(names, shape(f"[{m + 1} × {dim}]"), 2, note=t("fixed: a model learns its own")),
             _part(t("q: the name looked up"), shape(f"[1 × {dim}]"), 4),
             _part(t("K: the names, V: the numbers"), shape(f"[{m} × {dim}], [{m} × {digits}]"), 4),
             _part(t("Scores q·Kᵀ"), shape(f"[1 × {m}]"), 5),
             _part("÷ T", note=t("a head divides by √d_k"), step=6),
             _part("α = softmax", shape(f"[1 × {m}]"), 7),
             _part(t("Σ α v: the numbers mixed"), shape(f"[1 × {digits}]"), 8)]
    return {"title": t("Where this is in a model"), "folded": t("One query of one head"), "current": None,
            "where": t("the walkthrough"), "texts": map_texts(), "groups": [
        {"name": t("The phonebook is one query of an attention head: this lesson"), "faded": False,
         "parts": _mark(parts, range(1, len(parts) + 1))},
        {"name": t(FULL_MODEL), "faded": True, "parts": [
            _part(t("Every token a query, at once"), note=t("the walkthrough")), _part(t("More heads, · W_O")),
            _part(t("+ residual, LayerNorm, MLP")), _part(t("× N layers")), _part(t("Next-token probabilities"))]}]}


def cross_map(trace: CrossAttentionTrace) -> dict:
    """The cross-attention lesson's map: queries from the target's tokens, keys and values from the source's, one
    head with the trace's shapes (all on the page, so all marked), inside the faded decoder layer a full
    encoder–decoder model wraps it in."""
    i, j, d, d_k = len(trace.target.tokens), len(trace.source.tokens), trace.w_q.shape[0], trace.d_k
    parts = [_part(t("X_t (target), X_s (source)"), f"[{i} × {d}], [{j} × {d}]", 2),
             _part("W_Q, W_K, W_V", t("{shape} each", shape=f"[{d} × {d_k}]"), 3),
             _part(t("Q = X_t·W_Q; K, V from X_s"), f"[{i} × {d_k}], [{j} × {d_k}] ×2", 4),
             _part(t("Scores Q·Kᵀ"), f"[{i} × {j}]", 5), _part(f"÷ √{d_k}", f"[{i} × {j}]", 6),
             _part("α = softmax", f"[{i} × {j}]", 7), _part(t("Output Σ α v"), f"[{i} × {d_k}]", 8)]
    return {"title": t("Where this is in a model"), "folded": t("One cross-attention head"), "current": None,
            "where": t("the walkthrough"), "texts": map_texts(), "groups": [
        {"name": t("One cross-attention head: this lesson"), "faded": False, "parts": _mark(parts, range(1, 9))},
        {"name": t("What a full model adds (not computed in this lesson): an encoder–decoder"), "faded": True,
         "parts": [
            _part(t("The encoder's layers read the source"), f"[{j} × {d}]", note=t("its last output gives K and V")),
            _part(t("The decoder's causal self-attention on the target first"), f"[{i} × {d}]"),
            _part(t("More heads, · W_O; + residual, LayerNorm"), f"[{i} × {d}]"), _part("MLP", f"[{i} × {d}]"),
            _part(t("× N decoder layers"), note=t("each reads the source again")),
            _part(t("Next-token probabilities"), t("[vocabulary]"))]}]}


def training_map(trace: AttentionTrace, titles: list[str], current: int | None, *, head: int, heads: int,
                 classes: int, trained: bool = True) -> dict:
    """The learn lesson's map: the trained head's steps (3–8 open below the page's α), the rest of this small model
    (its heads, W_O and the answer's probabilities, trained with it), and what a full model adds. Before a run
    (``trained`` False) the head is the run's step 0 and no step opens: the page has no steps to open yet."""
    n, d_model, d_k = trace.n, trace.d_model, trace.d_k
    folded = t("The small model's one head") if heads == 1 else t("Head {head} of the small model's {heads}",
                                                                   head=head + 1, heads=heads)
    which = t("The model's one head") if heads == 1 else t("Head {head} of {heads}", head=head + 1, heads=heads)
    return {"title": t("Where this head is in the model being trained"), "folded": folded,
            "current": current, "where": "", "texts": map_texts(), "groups": [
        {"name": t("{head}: its steps (3–8 open below, in “This head, step by step”)", head=which) if trained else
         t("{head} before training (step 0, on the first held-out sequence): its steps open once trained",
           head=which), "faded": False,
         "parts": head_parts(trace, titles, range(3, len(titles) + 1) if trained else ())},
        {"name": t("The rest of this model (trained with it)"), "faded": False, "parts": [
            _part(t("{heads} heads, concatenated", heads=heads), f"[{n} × {heads * d_k}]") if heads > 1 else
            _part(t("Its output"), f"[{n} × {d_k}]"),
            _part("· W_O + b", f"[{heads * d_k} × {classes}] → [{n} × {classes}]"),
            _part(t("softmax: each position's answer"), f"[{n} × {classes}]")]},
        {"name": t("What a full model adds (not in this one)"), "faded": True, "parts": [
            _part(t("+ X (residual)"), f"[{n} × {d_model}]"), _part("LayerNorm"),
            _part(t("MLP (feed-forward)"), f"[{n} × {d_model}]"), _part(t("× N layers"))]}]}


TEXTS = {  # the words static/map.js writes around the data's own
    "openStep": N_("Open step {step}"), "openStepIn": N_("Open step {step} in {where}"),
    "fold": N_("Fold the map to one line"), "unfold": N_("Show the whole model: every part, its shape and numbers"),
    "youAreHere": N_("(you are here)"), "thisLesson": N_("(this lesson)"),
}


def map_texts() -> dict[str, str]:
    return {name: t(template) for name, template in TEXTS.items()}
