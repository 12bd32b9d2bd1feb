"""Builders for "Writing with a key/value cache": a Generation (attention.pretrained.smollm2) in, tables,
heatmaps and measured sentences out. They only arrange the engine's numbers.

Words and numbers are in the running language (``viz.i18n``); a frame's column names are English words
(``viz.tables.HEADERS``, ``WORD_COLUMNS``), which the table shows translated."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from viz import arithmetic as A
from viz import svg
from viz.figures import heatmap
from viz.i18n import N_, decimal, grouped, listed, nt, percent, sentences, t, whole
from viz.labels import markdown_text, significant, token_labels
from viz.tables import WORD_COLUMNS

BYTES_PER_NUMBER = 4  # float32, as the cache is kept here


def written_frame(gen, multiply_adds: Callable[..., int]) -> pd.DataFrame:
    """One row per written token: the token, its probability when chosen, what was read to predict it,
    the work (multiply-adds) and the measured time with the cache and recomputing the whole sequence.

    The first token comes from the prompt's pass, which reads every prompt token (and fills the cache):
    both ways do the same work. Written token k ≥ 2 comes from reading token k − 1 at position t; with the
    cache that is one token against t + 1 keys, without it a pass over all t + 1 tokens."""
    labels = token_labels(gen.tokens)
    rows = []
    for k, (with_cache, without) in enumerate(_work(gen, multiply_adds)):
        at = gen.prompt - 1 + k  # the position of the last token read before this one was chosen
        read = (nt("the prompt, {n} token", "the prompt, {n} tokens", gen.prompt) if k == 0 else
                nt("“{token}”, {n} key", "“{token}”, {n} keys", at + 1, token=labels[at]))
        rows.append({"written": labels[gen.prompt + k], "p": gen.probabilities[k], "reads": read,
                     "cache: M mult-adds": grouped(with_cache / 10, 1), "whole: M mult-adds": grouped(without / 10, 1),
                     "cache: ms": _ms(gen.seconds_cached[k]), "whole: ms": _ms(gen.seconds_recomputed[k])})
    frame = pd.DataFrame(rows, index=pd.RangeIndex(1, len(rows) + 1, name="token"))
    frame.attrs[WORD_COLUMNS] = True
    return frame


def _ms(seconds: float) -> int:
    """A step's time as the table shows it: whole milliseconds."""
    return round(1000 * seconds)


def _work(gen, multiply_adds: Callable[..., int]) -> list[tuple[int, int]]:
    """Each written token's work, with the cache and recomputing, in tenths of a million multiply-adds as the table
    shows them (rounded as ``viz.arithmetic`` rounds every shown number): the table and the sums below it read the
    same digits. The first token comes from the prompt's pass, the same work both ways."""
    out = []
    for k in range(len(gen.written)):
        at = gen.prompt - 1 + k
        with_cache = multiply_adds(at, cached=k > 0)
        without = multiply_adds(at, cached=False)
        out.append(tuple(int(A.digits(A.held(x / 1e6), 1)) for x in (with_cache, without)))
    return out


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
    return nt("The cache now holds {n} token: for each of {layers} layers and {kv_heads} key/value heads, K and V of "
              "{n} × {d} numbers each, {bytes} bytes a number: **{held} bytes** ({mib} MiB), {per_token} bytes a "
              "token. With a key and a value for every one of the {heads} query heads it would be {per_head} bytes, "
              "{times}× as much: in grouped-query attention {share} query heads share one key/value head.",
              "The cache now holds {n} tokens: for each of {layers} layers and {kv_heads} key/value heads, K and V of "
              "{n} × {d} numbers each, {bytes} bytes a number: **{held} bytes** ({mib} MiB), {per_token} bytes a "
              "token. With a key and a value for every one of the {heads} query heads it would be {per_head} bytes, "
              "{times}× as much: in grouped-query attention {share} query heads share one key/value head.", read,
             layers=layers, kv_heads=kv_heads, d=d, bytes=BYTES_PER_NUMBER, held=whole(held),
             mib=decimal(f"{held / 2**20:.2f}"), per_token=whole(held // read), heads=heads, per_head=whole(per_head),
             times=per_head // held, share=heads // kv_heads)


def cache_frame(gen, matrix: np.ndarray) -> pd.DataFrame:
    """A cache matrix (K or V of one layer and key/value head, [T, 64]): rows the tokens read, in order."""
    labels = token_labels(gen.tokens)[:matrix.shape[0]]
    return pd.DataFrame(matrix, index=pd.Index(labels, name=N_("token ↓ · dimension →")),
                        columns=[str(c + 1) for c in range(matrix.shape[1])])


def cache_figure(gen, matrix: np.ndarray, title: str) -> svg.Svg:
    frame = cache_frame(gen, matrix)
    return heatmap(matrix, row_labels=list(frame.index), col_labels=list(frame.columns),
                   title=f"{title}  [{matrix.shape[0]} × {matrix.shape[1]}]", row_title=t("token read (row)"),
                   col_title=t("dimension"), compact=True)


def same_text(gen) -> str:
    """Markdown, measured on the learner's prompt: how far the cached run is from recomputing."""
    if not gen.steps:  # one token written: it came from the prompt's pass, the same pass both ways
        return t("With one token written there is no cached step: the token came from the prompt's pass, which is "
                 "the same pass both ways. Write two or more to compare the cached numbers with the recomputed ones.")
    largest = float(np.abs(gen.recomputed_logits).max())
    return nt("Measured on your prompt: the largest difference between a logit with the cache and the same logit "
              "recomputed over the whole sequence is **{logits}** (the logits reach {largest}), and between the α row "
              "of the {n} cached step and the recomputed one **{weights}**. Both ways compute the same sums; float32 "
              "rounds them a little differently when they are added in another order.",
              "Measured on your prompt: the largest difference between a logit with the cache and the same logit "
              "recomputed over the whole sequence is **{logits}** (the logits reach {largest}), and between the α rows "
              "of the {n} cached steps and the recomputed ones **{weights}**. Both ways compute the same sums; float32 "
              "rounds them a little differently when they are added in another order.", len(gen.steps),
              logits=significant(gen.logits_difference), largest=decimal(f"{largest:.1f}"),
              weights=significant(gen.weights_difference))


def work_text(gen, multiply_adds: Callable[..., int]) -> str:
    """Markdown: the table's rows after the first, added up as the table shows them (millions of multiply-adds to
    one decimal, ms whole), and what the two ratios say."""
    work = _work(gen, multiply_adds)[1:]
    if not work:
        return t("Write at least two tokens to compare the work: the first comes from the prompt's pass either way.")
    tenths = [sum(w[side] for w in work) for side in (0, 1)]
    ms = [sum(map(_ms, seconds[1:])) for seconds in (gen.seconds_cached, gen.seconds_recomputed)]  # as the table
    fewer = f"{tenths[1] / tenths[0]:.1f}" if tenths[0] else "–"
    work_said = nt("The table's {n} row after the first adds up to **{cached}** million multiply-adds with the cache "
                   "against **{whole}** million recomputing: {fewer}× fewer.",
                   "The table's {n} rows after the first add up to **{cached}** million multiply-adds with the cache "
                   "against **{whole}** million recomputing: {fewer}× fewer.", len(work),
                   cached=grouped(tenths[0] / 10, 1), whole=grouped(tenths[1] / 10, 1), fewer=decimal(fewer))
    times = dict(cached_ms=whole(ms[0]), whole_ms=whole(ms[1]))
    if not ms[0]:  # the cached steps read 0 ms at whole milliseconds: no ratio to compare
        return sentences(work_said, t("In time it was {cached_ms} ms against {whole_ms} ms here: too short to compare "
                                      "at whole milliseconds.", **times))
    faster = f"{ms[1] / ms[0]:.1f}"
    if float(faster) < 1:  # the cached steps took longer (a busy server measures unevenly)
        return sentences(work_said, t("In time the cached steps took longer here, {cached_ms} ms against {whole_ms} "
                                      "ms: a busy server measures unevenly (measure a step's time below).", **times))
    if fewer != "–" and float(faster) < float(fewer):  # as shown: the time saved less than the arithmetic
        return sentences(work_said, t("In time it was {cached_ms} ms against {whole_ms} ms here, {faster}× faster: "
                                      "the time saves less than the arithmetic (measure a step's time below to see "
                                      "why).", faster=decimal(faster), **times))
    return sentences(work_said, t("In time it was {cached_ms} ms against {whole_ms} ms here, {faster}× faster.",
                                  faster=decimal(faster), **times))


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
    return t("**How the work grows.** With the cache, a step does **{fixed}** multiply-adds whatever its position (the "
             "new token's projections, W_O, MLP and the unembedding), plus {per_key} for each key its queries read: "
             "from position {first} to {last} that part added {grown} to a step, so the column stays nearly flat. "
             "Without the cache a step repeats the whole pass: {per_token} more for each token read, and its query-key "
             "pairs, from {whole_first} to {whole_last} million here. Its one part that grows like t², the scores of "
             "every pair of tokens, is {pairs} of the last pass: at these lengths the recomputation grows about "
             "linearly with the length, and so does what the cache saves.", fixed=whole(fixed), per_key=whole(per_key),
             first=first + 1, last=last + 1, grown=percent(decimal(f"{100 * grown:.1f}")),
             per_token=whole(per_token), whole_first=grouped(whole_first / 1e6, 1),
             whole_last=grouped(whole_last / 1e6, 1),
             pairs=percent(decimal(f"{100 * _pairs_share(multiply_adds, work_parts, last):.1f}")))


def _pairs_share(multiply_adds: Callable[..., int], work_parts: Callable[[int], tuple[int, int]], t: int) -> float:
    """The share of a whole pass over t + 1 tokens spent on its (t + 1)² query-key pairs."""
    per_pair = work_parts(0)[1]  # one query against one key, in every layer and head (position 0: one key)
    return per_pair * (t + 1) ** 2 / multiply_adds(t, cached=False)


def timing_frame(lengths: list[int], seconds: list[tuple[float, float]], multiply_adds: Callable[..., int],
                 weight_bytes: int, cache_bytes: Callable[[int], int]) -> pd.DataFrame:
    """Measured here, per number of tokens read: the work, the bytes read and the time of a cached step and of a
    whole pass (median seconds of a few runs)."""
    frame = pd.DataFrame({
        "cache: M mult-adds": [multiply_adds(n - 1, cached=True) / 1e6 for n in lengths],
        "whole: M mult-adds": [multiply_adds(n - 1, cached=False) / 1e6 for n in lengths],
        "cache: MB read": [(weight_bytes + cache_bytes(n - 1)) / 1e6 for n in lengths],
        "whole: MB read": [weight_bytes / 1e6] * len(lengths),
        "cache: ms": [1000 * c for c, _ in seconds],
        "whole: ms": [1000 * w for _, w in seconds],
    }, index=pd.Index(lengths, name="tokens read"))
    frame.attrs[WORD_COLUMNS] = True
    return frame


PAYS = 1.5  # "pays": a whole pass takes at least this many times as long as a cached step


def pays_text(lengths: list[int], seconds: list[tuple[float, float]], multiply_adds: Callable[..., int],
              weight_bytes: int) -> str:
    """Markdown, measured: what dominates a step's time, and from which length on a whole pass takes at least
    PAYS times as long as a cached step on this server (at that length and every longer one measured)."""
    ratios = [w / c for c, w in seconds]
    work = [multiply_adds(n - 1, cached=False) / multiply_adds(n - 1, cached=True) for n in lengths]
    pays = next((n for k, n in enumerate(lengths) if all(r >= PAYS for r in ratios[k:])), None)
    shown = [k for k, n in enumerate(lengths) if n in (8, lengths[-1])] or [len(lengths) - 1]
    passes = listed([nt("over {n} token did {work}× the multiply-adds of a cached step in {time}× its time",
                         "over {n} tokens did {work}× the multiply-adds of a cached step in {time}× its time",
                         lengths[k], work=decimal(f"{work[k]:.1f}"), time=decimal(f"{ratios[k]:.1f}")) for k in shown])
    # the heading says the time saved less only where every length it names shows so (times as written)
    less = all(float(f"{ratios[k]:.1f}") < float(f"{work[k]:.1f}") for k in shown)
    mb = whole(round(weight_bytes / 1e6))
    said = (t("**Why the time saves less.** Both ways read all of the model's weights once a step, **{mb} MB** here "
              "(float32), and a cached step reads its cache's rows besides. At these lengths reading the weights, not "
              "the arithmetic, takes most of a step's time: a whole pass {passes} (the table has every length).",
              mb=mb, passes=passes) if less else
            t("**Time and work.** Both ways read all of the model's weights once a step, **{mb} MB** here (float32), "
              "and a cached step reads its cache's rows besides. Measured here, a whole pass {passes} (the table has "
              "every length; a busy server measures unevenly).", mb=mb, passes=passes))
    if pays is None:
        return sentences(said, t("In this run a whole pass never took {pays}× as long as a cached step from some "
                                 "length on.", pays=decimal(str(PAYS))))
    return sentences(said, nt("Measured here, from {n} token on a whole pass takes at least {pays}× as long as a "
                              "cached step, and the longer the text, the more the cache saves.",
                              "Measured here, from {n} tokens on a whole pass takes at least {pays}× as long as a "
                              "cached step, and the longer the text, the more the cache saves.", pays,
                              pays=decimal(str(PAYS))))


def step_label(gen, step: int) -> str:
    """A cached step as the picker names it (step from 0)."""
    labels = token_labels(gen.tokens)
    at = gen.steps[step].position
    return f"{step + 1} · " + t("reads “{read}” (position {position}), writes “{written}”", read=labels[at],
                                 position=at + 1, written=labels[at + 1])


def written_text(prompt: str, written: str) -> str:
    """The prompt and what the model wrote after it (decoded text) on one line, as Markdown-safe text: a
    line break is shown as ⏎ (in Markdown it would end the bold text, or the paragraph), and the bold
    text starts and ends with a character (“** Paris**” would not be bold)."""
    def line(text: str) -> str:
        return markdown_text(" ⏎ ".join(text.splitlines()) + (" ⏎" if text.endswith("\n") else ""))
    if written.strip():
        return t("“{prompt}” → **{written}**", prompt=line(prompt), written=line(written.strip()))
    return t("“{prompt}” → (only spaces or line breaks: {written})", prompt=line(prompt),
             written=markdown_text(repr(written)[:60]))
