"""Builders for "Writing with a key/value cache": a Generation (attention.pretrained.smollm2) in, tables,
heatmaps and measured sentences out. They only arrange the engine's numbers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from viz import svg
from viz.figures import heatmap
from viz.labels import markdown_text, token_labels

BYTES_PER_NUMBER = 4  # float32, as the cache is kept here


def written_frame(gen, multiply_adds: Callable[..., int]) -> pd.DataFrame:
    """One row per written token: the token, its probability when chosen, what was read to predict it,
    the work (multiply-adds) and the measured time with the cache and recomputing the whole sequence.

    The first token comes from the prompt's pass, which reads every prompt token (and fills the cache):
    both ways do the same work. Written token k ≥ 2 comes from reading token k − 1 at position t; with the
    cache that is one token against t + 1 keys, without it a pass over all t + 1 tokens."""
    labels = token_labels(gen.tokens)
    rows = []
    for k in range(len(gen.written)):
        t = gen.prompt - 1 + k  # the position of the last token read before this one was chosen
        if k == 0:
            read = f"the prompt, {gen.prompt} tokens"
            with_cache = without = multiply_adds(t, cached=False)
        else:
            read = f"“{labels[t]}”, {t + 1} keys"
            with_cache, without = multiply_adds(t, cached=True), multiply_adds(t, cached=False)
        rows.append({"written": labels[gen.prompt + k], "p": gen.probabilities[k], "reads": read,
                     "cache: M mult-adds": f"{with_cache / 1e6:,.1f}", "whole: M mult-adds": f"{without / 1e6:,.1f}",
                     "cache: ms": round(1000 * gen.seconds_cached[k]),
                     "whole: ms": round(1000 * gen.seconds_recomputed[k])})
    return pd.DataFrame(rows, index=pd.RangeIndex(1, len(rows) + 1, name="token"))


def cache_bytes(gen, heads: int) -> tuple[int, int]:
    """(bytes the cache holds now, bytes it would hold with a key and a value for each of ``heads`` query
    heads)."""
    held = gen.keys.nbytes + gen.values.nbytes  # [layers, kv_heads, T, 64] each
    layers, _, read, d = gen.keys.shape
    return held, 2 * layers * heads * read * d * gen.keys.itemsize


def cache_text(gen, heads: int) -> str:
    """Markdown, measured: the cache's size now, and with one key and value per query head."""
    held, per_head = cache_bytes(gen, heads)
    layers, kv_heads, read, d = gen.keys.shape
    return (f"The cache now holds {read} tokens: for each of {layers} layers and {kv_heads} key/value heads, K and "
            f"V of {read} × {d} numbers each, {BYTES_PER_NUMBER} bytes a number: **{held:,} bytes** "
            f"({held / 2**20:.2f} MiB), {held // read:,} bytes a token. With a key and a value for every one of the "
            f"{heads} query heads it would be {per_head:,} bytes, {per_head // held}× as much: in grouped-query "
            f"attention {heads // kv_heads} query heads share one key/value head.")


def cache_frame(gen, matrix: np.ndarray) -> pd.DataFrame:
    """A cache matrix (K or V of one layer and key/value head, [T, 64]): rows the tokens read, in order."""
    labels = token_labels(gen.tokens)[:matrix.shape[0]]
    return pd.DataFrame(matrix, index=pd.Index(labels, name="token ↓ · dimension →"),
                        columns=[str(c + 1) for c in range(matrix.shape[1])])


def cache_figure(gen, matrix: np.ndarray, title: str) -> svg.Svg:
    frame = cache_frame(gen, matrix)
    return heatmap(matrix, row_labels=list(frame.index), col_labels=list(frame.columns),
                   title=f"{title}  [{matrix.shape[0]} × {matrix.shape[1]}]", row_title="token read (row)",
                   col_title="dimension", compact=True)


def same_text(gen) -> str:
    """Markdown, measured on the learner's prompt: how far the cached run is from recomputing."""
    largest = float(np.abs(gen.recomputed_logits).max())
    return (f"Measured on your prompt: the largest difference between a logit with the cache and the same logit "
            f"recomputed over the whole sequence is **{gen.logits_difference:.1e}** (the logits reach "
            f"{largest:.1f}), and between the α rows **{gen.weights_difference:.1e}**. Both ways compute the same "
            "sums; float32 rounds them a little differently when they are added in another order.")


def work_text(gen, multiply_adds: Callable[..., int]) -> str:
    """Markdown, measured: the work and time of the cached steps against recomputing, summed."""
    steps = range(gen.prompt, len(gen.ids) - 1)  # positions read by cached steps
    if not len(steps):
        return "Write at least two tokens to compare the work: the first comes from the prompt's pass either way."
    cached = sum(multiply_adds(t, cached=True) for t in steps)
    whole = sum(multiply_adds(t, cached=False) for t in steps)
    ms_cached = 1000 * sum(gen.seconds_cached[1:])
    ms_whole = 1000 * sum(gen.seconds_recomputed[1:])
    return (f"Measured on your prompt, for the {len(steps)} tokens after the first: **{cached:,}** multiply-adds with "
            f"the cache against **{whole:,}** recomputing ({whole / cached:.1f}×), and {ms_cached:.0f} ms against "
            f"{ms_whole:.0f} ms on this server.")


def step_label(gen, step: int) -> str:
    """A cached step as the picker names it (step from 0)."""
    labels = token_labels(gen.tokens)
    t = gen.steps[step].position
    return f"{step + 1} · reads “{labels[t]}” (position {t + 1}), writes “{labels[t + 1]}”"


def written_text(prompt: str, written: str) -> str:
    """The prompt and what the model wrote after it (decoded text) on one line, as Markdown-safe text: a
    line break is shown as ⏎ (in Markdown it would end the bold text, or the paragraph), and the bold
    text starts and ends with a character (“** Paris**” would not be bold)."""
    def line(text: str) -> str:
        return markdown_text(" ⏎ ".join(text.splitlines()) + (" ⏎" if text.endswith("\n") else ""))
    return f"“{line(prompt)}” → **{line(written.strip())}**" if written.strip() else \
        f"“{line(prompt)}” → (only spaces or line breaks: {markdown_text(repr(written)[:60])})"
