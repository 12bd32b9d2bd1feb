"""Figures and tables of a real model: every head at once (the model view), the next tokens. Pure."""

from __future__ import annotations

import numpy as np
import pandas as pd

from attention.pretrained.common import ModelInfo
from attention.pretrained.gallery import GalleryHead, pronoun_target, pronoun_weight
from viz import svg
from viz.labels import markdown_text


def model_view(weights: np.ndarray, info: ModelInfo, layers: range) -> svg.Svg:
    """α of every head in ``layers`` [layers, heads, n, n] as small multiples on one scale 0 … 1: rows
    are layers, columns heads (both counted from 1, under the titles "layer" and "head"); in each tile,
    rows are queries, columns keys. 40-pixel tiles: a 12-head model (651 px) fits the page beside the
    sidebar on a 1024 px tablet or projector (564 px) at 0.87, labels legible (72-pixel tiles and
    "layer 1" labels were shrunk to 0.76 even at 1280 px)."""
    return svg.tiles(weights[layers.start:layers.stop], row_labels=[str(i + 1) for i in layers],
                     col_labels=[str(h + 1) for h in range(info.heads)],
                     title=f"Every head's α, layers {layers.start + 1}–{layers.stop}", row_title="layer",
                     col_title="head (in each tile: rows are queries, columns keys)", zmax=1.0, tile=40)


def next_token_frame(top: list[tuple[str, float]]) -> pd.DataFrame:
    """The likeliest next tokens and their probabilities, most likely first."""
    return pd.DataFrame({"next token": [t for t, _ in top], "probability": [p for _, p in top]},
                        index=pd.RangeIndex(1, len(top) + 1, name="rank"))


def gallery_reading(entry: GalleryHead, tokens: list[str], alpha: np.ndarray) -> str:
    """Markdown: the entry's measure on the learner's sentence (its tokens and this head's α), and
    whether the head does its job there. Tokens are escaped: they are the learner's text."""
    value = entry.measure(tokens, alpha)
    if value is None:
        return f"On your sentence: nothing to measure; it needs {entry.needs or 'two or more tokens'}."
    if entry.measure is pronoun_weight:
        j, _ = pronoun_target(tokens, alpha)
        return (f"On your sentence, “it” looks most at “{markdown_text(tokens[j])}” ({value:.2f}). Is that a noun, and "
                "is it the one “it” refers to?")
    said = f"On your sentence: {entry.measured} {value:.2f}"
    if value >= entry.at_least:
        return f"{said}, at least {entry.at_least}: it does its job here."
    return f"{said}, below {entry.at_least}: **it does not do this job on your sentence.**"


QUANTIZED = ("SmolLM2's package ships its weights quantized: the attention and feed-forward matrices as 4-bit numbers "
             "(Q4_1), the token embeddings as 8-bit (Q8_0), the norms as float32. They are turned back into float32 "
             "here, so every α and next-token probability on this page is the quantized model's.")


def unknown_text(words: list[str]) -> str:
    """Markdown: which parts of the learner's sentence MiniLM replaced by [UNK] (escaped: the learner's text)."""
    if not words:
        return "Measured on your sentence: no [UNK]; the vocabulary has a piece for every word."
    listed = ", ".join(f"“{markdown_text(w)}”" for w in words)
    return (f"Measured on your sentence: {len(words)} [UNK], each a whole word with a character the vocabulary lacks: "
            f"{listed}.")


def spaces_text(joined: int, alone: list[str]) -> str:
    """Markdown: how the learner's spaces were tokenized (``SmolLM2.spaces``; the tokens escaped)."""
    spaces = "space" if joined == 1 else "spaces"
    said = f"Measured on your sentence: {joined} {spaces} belong to the token after them"
    if not alone:
        return said + ", and no space is a token of its own."
    listed = ", ".join(f"“{markdown_text(t)}”" for t in alone)
    return said + f"; {len(alone)} {'is a token' if len(alone) == 1 else 'are tokens'} of its own (before {listed})."


def tile_notes(name: str, layers: range, gallery) -> dict[str, str]:
    """The every-head view's tooltips: for a head of the gallery, its job, keyed "row,col" of the tiles."""
    return {f"{entry.layer - layers.start},{entry.head}": entry.job.split(": ")[0] + " (one of the heads with a job, "
            "below)." for entry in gallery if entry.model == name and entry.layer in layers}


def first_token_share(weights: np.ndarray, layers: range) -> list[list[float | None]]:
    """Each tile's mean weight on the first token (over the rows after the first), for its tooltip."""
    w = np.asarray(weights[layers.start:layers.stop], dtype=np.float64)  # [layers, heads, n, n]
    if w.shape[-1] < 2:
        return [[None] * w.shape[1] for _ in range(w.shape[0])]
    return np.round(w[:, :, 1:, 0].mean(axis=-1), 6).tolist()
