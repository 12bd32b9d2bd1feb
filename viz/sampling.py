"""Sampling the decoder's next token, drawn: the model's distribution before and after temperature, top-k and
top-p, the tokens cut marked, and where one seeded draw lands. Numbers from ``attention.sampling``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from attention.sampling import Draw, Processed, Sampling
from viz import svg
from viz.labels import format_number, markdown_text
from viz.scaling import RAW_COLOUR, SCALED_COLOUR

SHOWN = 12  # tokens drawn and listed: the likeliest under the model
CUT = "cut"


@dataclass(frozen=True)
class Sampled:
    """What the page shows of one sampling: the SHOWN likeliest tokens (by the model), their probabilities before
    and after, which survived, the sums, and the draw. Small: the page's cache keeps it, not the 49,152 logits."""
    sampling: Sampling
    tokens: tuple[str, ...]  # [SHOWN] as the page shows them
    before: np.ndarray  # [SHOWN] the model's p
    tempered: np.ndarray  # [SHOWN] p at T
    after: np.ndarray  # [SHOWN] the p sampled from
    kept_count: int  # tokens left, of the whole vocabulary
    after_top_k: int  # tokens left by top-k alone
    kept_mass: float  # their share of the tempered distribution
    vocabulary: int
    u: float
    drawn: str  # the token the draw lands on
    drawn_p: float
    slice_start: float  # the drawn token's slice of [0, 1)
    slice_end: float


def sampled(result: Processed, chosen: Draw, show: Callable[[int], str]) -> Sampled:
    """The page's summary of ``result`` and ``chosen`` (``show``: a token id as the page writes it)."""
    top = np.argsort(-result.before, kind="stable")[:SHOWN]
    k = int(np.flatnonzero(chosen.order == chosen.token)[0])
    return Sampled(
        sampling=result.sampling, tokens=tuple(show(int(i)) for i in top), before=result.before[top],
        tempered=result.tempered[top], after=result.after[top], kept_count=int(result.kept.sum()),
        after_top_k=result.top_k_count, kept_mass=float(result.tempered[result.kept].sum()),
        vocabulary=result.kept.size,
        u=chosen.u, drawn=show(chosen.token), drawn_p=float(result.after[chosen.token]),
        slice_start=float(chosen.ends[k - 1]) if k else 0.0, slice_end=float(chosen.ends[k]))


def sampling_figure(s: Sampled) -> svg.Svg:
    """Two bars a token: the model's p and the p sampled from; a token cut by top-k or top-p has no second bar."""
    after = [format_number(p, 2) if p > 0 else CUT for p in s.after]  # two decimals: side by side they fit; the
    top = float(max(s.before.max(), s.after.max()))  # table has three
    return svg.bars(list(s.tokens), [
        svg.Series("the model's p", s.before.tolist(), RAW_COLOUR, [format_number(p, 2) for p in s.before]),
        svg.Series(f"p sampled from ({settings_text(s.sampling)})", s.after.tolist(), SCALED_COLOUR, after),
    ], title="The next token's probabilities, before and after", x_title="next token (the model's likeliest first)",
        y_title="p", y_range=(0.0, min(1.0, top * 1.25) or 1.0), show_legend=True)


def sampling_frame(s: Sampled) -> pd.DataFrame:
    """The numbers of the chart: each token's p, its p at T, and the p sampled from ("cut" where removed)."""
    return pd.DataFrame({
        "next token": list(s.tokens),
        "p": s.before,
        f"p at T = {s.sampling.temperature:g}": s.tempered,
        "p sampled from": [format_number(p, 3) if p > 0 else CUT for p in s.after],
    }, index=pd.RangeIndex(1, len(s.tokens) + 1, name="rank"))


def settings_text(sampling: Sampling) -> str:
    top_k = "top-k off" if sampling.top_k <= 0 else f"top-k {sampling.top_k}"
    top_p = "top-p off" if sampling.top_p >= 1 else f"top-p {sampling.top_p:g}"
    return f"T {sampling.temperature:g}, {top_k}, {top_p}"


def kept_text(s: Sampled) -> str:
    """Markdown: how many tokens each cut left, and what renormalising does, measured on this distribution."""
    k, p = s.sampling.top_k, s.sampling.top_p
    parts = [f"Of the vocabulary's {s.vocabulary:,} tokens, "]
    if k <= 0 and p >= 1:
        parts.append("none is cut: every token can be drawn, with its probability at T.")
        return "".join(parts)
    if k > 0:
        parts.append(f"top-k keeps the {s.after_top_k:,} with the largest logits"
                     + (" (tied logits are kept together)" if s.after_top_k > k else ""))
    if p < 1:
        parts.append(("; then " if k > 0 else "") + f"top-p keeps the fewest likeliest of "
                     f"{'those' if k > 0 else 'them'} whose probabilities at T add up to more than {p:g}")
    mass = f"{s.kept_mass:.3f}"
    parts.append(f": **{s.kept_count:,} token{'s' if s.kept_count != 1 else ''}**, holding "
                 f"{'' if float(mass) == s.kept_mass else '≈ '}{mass} of the probability at T. Their probabilities "
                 "are divided by that sum, so that they add up to 1; every other token's becomes 0.")
    return "".join(parts)


def draw_text(s: Sampled, seed: int) -> str:
    """Markdown: the seeded draw, as a learner could check it with the table (tokens escaped: a model's tokens are
    text)."""
    return (f"**The draw (seed {seed}):** u = {s.u:.4f}, a number drawn uniformly from [0, 1). Laid end to end, "
            "likeliest first, each kept token takes a slice of [0, 1) as long as its probability; u falls in "
            f"“{markdown_text(s.drawn)}”'s slice, [{s.slice_start:.4f}, {s.slice_end:.4f}) "
            f"(its p sampled from ≈ {s.drawn_p:.4f}), so the next token is **“{markdown_text(s.drawn)}”**. "
            "Another seed draws another u.")
