"""Builders for "Writing with a key/value cache": a Generation (attention.pretrained.smollm2) in, tables,
heatmaps and measured sentences out. They only arrange the engine's numbers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from viz import svg
from viz.figures import heatmap
from viz.labels import count, markdown_text, token_labels

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
            read = f"the prompt, {count(gen.prompt, 'token')}"
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
    if not gen.steps:  # one token written: it came from the prompt's pass, the same pass both ways
        return ("With one token written there is no cached step: the token came from the prompt's pass, which is the "
                "same pass both ways. Write two or more to compare the cached numbers with the recomputed ones.")
    largest = float(np.abs(gen.recomputed_logits).max())
    return (f"Measured on your prompt: the largest difference between a logit with the cache and the same logit "
            f"recomputed over the whole sequence is **{gen.logits_difference:.1e}** (the logits reach "
            f"{largest:.1f}), and between the α rows of the {len(gen.steps)} cached steps and the recomputed ones "
            f"**{gen.weights_difference:.1e}**. Both ways compute the same sums; float32 rounds them a little "
            "differently when they are added in another order.")


def work_text(gen, multiply_adds: Callable[..., int]) -> str:
    """Markdown: the table's rows after the first, added up as the table shows them (millions of multiply-adds to
    one decimal, ms whole), and what the two ratios say."""
    frame = written_frame(gen, multiply_adds).iloc[1:]
    if frame.empty:
        return "Write at least two tokens to compare the work: the first comes from the prompt's pass either way."
    tenths = [sum(round(float(x.replace(",", "")) * 10) for x in frame[c]) for c in ("cache: M mult-adds",
                                                                                    "whole: M mult-adds")]
    ms = [int(frame[c].sum()) for c in ("cache: ms", "whole: ms")]
    fewer = f"{tenths[1] / tenths[0]:.1f}" if tenths[0] else "–"
    faster = f"{ms[1] / ms[0]:.1f}×" if ms[0] else "more"
    return (f"The table's {count(len(frame), 'row')} after the first add up to **{tenths[0] / 10:,.1f}** million "
            f"multiply-adds with the cache against **{tenths[1] / 10:,.1f}** million recomputing: {fewer}× fewer. "
            f"In time it was {ms[0]:,} ms against {ms[1]:,} ms here, {faster} faster: the time saves less than the "
            "arithmetic (measure a step's time below to see why).")


def growth_text(multiply_adds: Callable[..., int], work_parts: Callable[[int], tuple[int, int]],
                positions: range) -> str:
    """Markdown, from the model's shapes: how the work of a step grows with the position t it reads, with the
    cache and without, over the positions this text's steps read (``positions``, from 0)."""
    first, last = positions[0], positions[-1]
    fixed, _ = work_parts(first)
    per_key = work_parts(first + 1)[1] - work_parts(first)[1]
    grown = (multiply_adds(last, cached=True) - multiply_adds(first, cached=True)) / multiply_adds(first, cached=True)
    whole_first, whole_last = multiply_adds(first, cached=False), multiply_adds(last, cached=False)
    # one more token read, its pairs aside: the pass over positions 0 and 1 less the one over 0, less the 3 new pairs
    per_token = multiply_adds(1, cached=False) - multiply_adds(0, cached=False) - 3 * per_key
    return (f"**How the work grows.** With the cache, a step does **{fixed:,}** multiply-adds whatever its position "
            f"(the new token's projections, W_O, MLP and the unembedding), plus {per_key:,} for each key its queries "
            f"read: from position {first + 1} to {last + 1} that part added {100 * grown:.1f} % to a step, so the "
            f"column stays nearly flat. Without the cache a step repeats the whole pass: {per_token:,} more for each "
            f"token read, and its query-key pairs, from {whole_first / 1e6:,.1f} to {whole_last / 1e6:,.1f} million "
            "here. Its one "
            f"part that grows like t², the scores of every pair of tokens, is "
            f"{100 * _pairs_share(multiply_adds, work_parts, last):.1f} % of the last pass: at these lengths the "
            "recomputation grows about linearly with the length, and so does what the cache saves.")


def _pairs_share(multiply_adds: Callable[..., int], work_parts: Callable[[int], tuple[int, int]], t: int) -> float:
    """The share of a whole pass over t + 1 tokens spent on its (t + 1)² query-key pairs."""
    per_pair = work_parts(0)[1]  # one query against one key, in every layer and head (position 0: one key)
    return per_pair * (t + 1) ** 2 / multiply_adds(t, cached=False)


def timing_frame(lengths: list[int], seconds: list[tuple[float, float]], multiply_adds: Callable[..., int],
                 weight_bytes: int, cache_bytes: Callable[[int], int]) -> pd.DataFrame:
    """Measured here, per number of tokens read: the work, the bytes read and the time of a cached step and of a
    whole pass (median seconds of a few runs)."""
    return pd.DataFrame({
        "cache: M mult-adds": [multiply_adds(n - 1, cached=True) / 1e6 for n in lengths],
        "whole: M mult-adds": [multiply_adds(n - 1, cached=False) / 1e6 for n in lengths],
        "cache: MB read": [(weight_bytes + cache_bytes(n - 1)) / 1e6 for n in lengths],
        "whole: MB read": [weight_bytes / 1e6] * len(lengths),
        "cache: ms": [1000 * c for c, _ in seconds],
        "whole: ms": [1000 * w for _, w in seconds],
    }, index=pd.Index(lengths, name="tokens read"))


PAYS = 1.5  # "pays": a whole pass takes at least this many times as long as a cached step


def pays_text(lengths: list[int], seconds: list[tuple[float, float]], multiply_adds: Callable[..., int],
              weight_bytes: int) -> str:
    """Markdown, measured: what dominates a step's time, and from which length on a whole pass takes at least
    PAYS times as long as a cached step on this server (at that length and every longer one measured)."""
    ratios = [w / c for c, w in seconds]
    work = [multiply_adds(n - 1, cached=False) / multiply_adds(n - 1, cached=True) for n in lengths]
    pays = next((n for k, n in enumerate(lengths) if all(r >= PAYS for r in ratios[k:])), None)
    shown = [k for k, n in enumerate(lengths) if n in (8, lengths[-1])] or [len(lengths) - 1]
    said = (f"**Why the time saves less.** Both ways read all of the model's weights once a step, "
            f"**{weight_bytes / 1e6:,.0f} MB** here (float32), and a cached step reads its cache's rows besides. At "
            "these lengths reading the weights, not the arithmetic, takes most of a step's time: a whole pass over "
            + " and over ".join(f"{lengths[k]} tokens did {work[k]:.1f}× the multiply-adds of a cached step in "
                                f"{ratios[k]:.1f}× its time" for k in shown) + " (the table has every length). ")
    if pays is None:
        return said + f"In this run a whole pass never took {PAYS}× as long as a cached step from some length on."
    return said + (f"Measured here, from {pays} token{'s' if pays > 1 else ''} on a whole pass takes at least {PAYS}× "
                   "as long as a cached step, and the longer the text, the more the cache saves.")


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
