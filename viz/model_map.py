"""The model map (issue 36): where the open step sits in a whole model, as data for static/map.js.

A map is groups of parts in the order the numbers flow. The first group is what the page computes (a head's
steps, clickable, with the trace's own shapes); the others are the rest of the model, each labelled honestly:
for the walkthrough and the multi-head page "what a full model adds" (faded: not computed there), for the real
models their own layers and heads (computed by our forward, not drawn as steps). Shapes come from the trace and the
model's sizes, never from constants.
"""

from __future__ import annotations

from attention import AttentionTrace
from attention.pretrained.common import ModelInfo

FULL_MODEL = "What a full model adds (not computed in this lesson)"


def _part(label: str, shape: str = "", step: int | None = None, note: str = "") -> dict:
    return {"label": label, "shape": shape, "step": step, "note": note}


def head_parts(trace: AttentionTrace, titles: list[str], opens: range | None = None) -> list[dict]:
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
        "Scale by 1/√d_k": (f"÷ √{d_k}" + (" + mask" if trace.causal else ""), f"[{rows} × {keys}]"),
        "Softmax: attention weights α": ("α = softmax", f"[{rows} × {keys}]"),
        "The output for one query": ("Output Σ α v", f"[{rows} × {d_k}]"),
    }
    return [_part(*by_title[title], step=k if opens is None or k in opens else None)
            for k, title in enumerate(titles, start=1)]


def lesson_map(trace: AttentionTrace, titles: list[str], current: int | None, *, heads: int | None = None,
               opens: range | None = None) -> dict:
    """The walkthrough's map (``heads`` None) or the multi-head page's (``heads`` heads, concatenated and mixed by
    W_O), inside the faded rest of a full model."""
    n, d_model, d_k = trace.n, trace.d_model, trace.d_k
    groups = [{"name": "One attention head: this lesson" if heads is None else "One head of this page's layer",
               "parts": head_parts(trace, titles, opens), "faded": False}]
    if heads is not None:
        groups.append({"name": f"{heads} heads, one layer: this page", "faded": False, "parts": [
            _part(f"{heads} heads side by side", f"[{n} × {d_k}] each"),
            _part("Concatenate", f"[{n} × {heads * d_k}]"),
            _part("· W_O", f"[{heads * d_k} × {d_model}] → [{n} × {d_model}]")]})
    full = [] if heads is not None else [_part("More heads, concatenated, · W_O", f"[{n} × {d_model}]",
                                               note="the multi-head page")]
    groups.append({"name": FULL_MODEL, "faded": True, "parts": [
        *full,
        _part("+ X (residual)", f"[{n} × {d_model}]"),
        _part("LayerNorm"),
        _part("MLP (feed-forward)", f"[{n} × {d_model}]"),
        _part("× N layers", note="each reads the last one's output"),
        _part("Unembedding → next-token probabilities", "[vocabulary]")]})
    return {"title": "Where this is in a model", "groups": groups, "current": current}


def real_map(trace: AttentionTrace, titles: list[str], current: int | None, info: ModelInfo, layer: int,
             head: int) -> dict:
    """A real model's own map: its embeddings, layer ``layer``'s head ``head`` step by step (this page), the rest of
    that layer and the other layers (our forward computes them), and what comes out (MiniLM: a sentence embedding;
    SmolLM2: the next token's probabilities)."""
    n, d = trace.n, info.d_model
    decoder = info.kind == "decoder"
    norm = "RMSNorm" if decoder else "LayerNorm"
    before = [_part("Token embeddings" + ("" if decoder else " + positions, LayerNorm"), f"[{n} × {d}]")]
    if layer > 0:
        before.append(_part(f"Layers 1–{layer}" if layer > 1 else "Layer 1", f"[{n} × {d}]"))
    shared = ", sharing K, V in threes" if decoder else ""
    rest = [_part(f"{info.heads} heads{shared}, concatenated, · W_O", f"[{n} × {d}]"), _part("+ residual, " + norm),
            _part("MLP", f"[{n} × {d}]"), _part("+ residual" + ("" if decoder else ", LayerNorm"))]
    if decoder:
        rest.insert(0, _part(norm + " before attention", f"[{n} × {d}]"))
    after = []
    if layer < info.layers - 1:
        after.append(_part(f"Layers {layer + 2}–{info.layers}" if layer < info.layers - 2 else f"Layer {info.layers}",
                           f"[{n} × {d}]"))
    if decoder:
        after += [_part("Final RMSNorm, unembedding", f"[{d} × vocabulary]"), _part("Next-token probabilities")]
    else:
        after += [_part("Mean pooling", f"[{d}]"), _part("Sentence embedding", f"[{d}], unit length")]
    return {"title": f"Where this is in {info.title.split(' (')[0]}", "current": current, "groups": [
        {"name": "Before this layer", "faded": False, "parts": before},
        {"name": f"Layer {layer + 1} of {info.layers}, head {head + 1} of {info.heads}: this page's steps",
         "faded": False, "parts": head_parts(trace, titles)},
        {"name": f"The rest of layer {layer + 1} (our forward computes it; not drawn as steps)", "faded": False,
         "parts": rest},
        {"name": "After this layer", "faded": False, "parts": after}]}

