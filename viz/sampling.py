"""Sampling the decoder's next token, drawn: the model's distribution before and after temperature, top-k and
top-p, the tokens cut marked, and where one seeded draw lands. Numbers from ``attention.sampling``."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Context, Decimal
from fractions import Fraction

import numpy as np
import pandas as pd

from attention.sampling import Draw, Processed, Sampling
from viz import arithmetic, svg
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
    tempered: np.ndarray  # [SHOWN] p at T, over the whole vocabulary
    after: np.ndarray  # [SHOWN] the p sampled from
    kept: np.ndarray  # [SHOWN] bool: left by top-k and top-p
    kept_count: int  # tokens left, of the whole vocabulary
    after_top_k: int  # tokens left by top-k alone
    top_k_mass: float  # their share of the tempered distribution
    kept_mass: float  # the kept tokens' share of the tempered distribution
    kept_share: float  # the kept tokens' share of what top-p measured (what top-k left, renormalised)
    vocabulary: int
    u: float
    drawn: str  # the token the draw lands on
    drawn_p: float
    slice_start: float  # the drawn token's slice of [0, 1)
    slice_end: float


def sampled(result: Processed, chosen: Draw, show: Callable[[int], str]) -> Sampled:
    """The page's summary of ``result`` and ``chosen`` (``show``: a token id as the page writes it). The last
    slice ends at 1, as the slices laid end to end do on paper (their float sum may stop just short of it)."""
    top = np.argsort(-result.before, kind="stable")[:SHOWN]
    k = int(np.flatnonzero(chosen.order == chosen.token)[0])
    return Sampled(
        sampling=result.sampling, tokens=tuple(show(int(i)) for i in top), before=result.before[top],
        tempered=result.tempered[top], after=result.after[top], kept=result.kept[top],
        kept_count=int(result.kept.sum()), after_top_k=int(result.left_by_top_k.sum()),
        top_k_mass=float(result.tempered[result.left_by_top_k].sum()),
        kept_mass=float(result.tempered[result.kept].sum()),
        kept_share=float(result.top_p_measures[result.kept].sum()), vocabulary=result.kept.size,
        u=chosen.u, drawn=show(chosen.token), drawn_p=float(result.after[chosen.token]),
        slice_start=float(chosen.ends[k - 1]) if k else 0.0,
        slice_end=1.0 if k == chosen.order.size - 1 else float(chosen.ends[k]))


# --- numbers as written ---------------------------------------------------------------------------------------------

DECIMALS = 3  # a probability in the table and the texts: at least three decimals
SIGNIFICANT = 2  # and at least two significant digits, so that no probability above 0 reads as 0
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass(frozen=True)
class Written:
    """A number as the page writes it, and what a learner reads: its value as written and one unit of its last
    digit."""
    text: str
    value: Fraction
    unit: Fraction


def fixed(x: float, decimals: int) -> Written:
    """``x`` ≥ 0 at ``decimals`` decimals: up to six as ``viz.arithmetic`` writes every number, beyond (a slice of
    [0, 1) narrower than 10⁻⁶) rounded from the float's exact value."""
    if decimals <= arithmetic.HELD:
        text = arithmetic.text(x, decimals)
    else:
        exact = Context(prec=decimals + 30)  # a float's exact value, however many decimals
        text = format(Decimal(x).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP, context=exact), "f")
    return Written(text, Fraction(text), Fraction(1, 10**decimals))


def probability(p: float, decimals: int = DECIMALS) -> Written:
    """A probability at ``decimals`` decimals, more where that would leave fewer than SIGNIFICANT digits: 0.326,
    0.0042, 0.00072 (at T = 5 the likeliest token of 49,152 holds less than 0.001, and "0.000" would read as if
    temperature had set it to 0). Where six decimals are not enough, in scientific notation: 7.2 × 10⁻⁸."""
    if p <= 0:
        return Written("0", Fraction(0), Fraction(1))
    needed = max(decimals, _places(p))
    if needed <= arithmetic.HELD:
        return fixed(p, needed)
    mantissa, exponent = f"{p:.{SIGNIFICANT - 1}e}".split("e")
    e = int(exponent)
    return Written(f"{mantissa} × 10{str(e).translate(_SUPERSCRIPT)}", Fraction(mantissa) * Fraction(10)**e,
                   Fraction(10) ** (e - SIGNIFICANT + 1))


def _reads_as(value: Fraction, result: Written) -> bool:
    """Whether ``value`` (computed exactly from written numbers) lies strictly within half a unit of ``result``'s
    last digit: a learner's own arithmetic gives the written result (``viz.arithmetic``'s rule)."""
    return 2 * abs(value - result.value) < result.unit


def _all_kept_shown(s: Sampled) -> bool:
    """Whether every token that can be drawn is in the table (a learner can add up their column)."""
    return bool(s.sampling.top_k > 0 or s.sampling.top_p < 1) and s.kept_count == int(s.kept.sum())


def after_decimals(s: Sampled) -> int:
    """The decimals of the column “p sampled from”: where every token that can be drawn is in the table, the fewest
    (3 … 6) at which the column, as written, adds up to 1 (within half a unit of its last decimal), as the text
    says; −6 where none does (the text then says ≈ 1). Otherwise 3."""
    if not _all_kept_shown(s):
        return DECIMALS
    for d in range(DECIMALS, arithmetic.HELD + 1):
        total = sum((probability(float(p), d).value for p in s.after[s.kept]), Fraction(0))
        if _reads_as(total, fixed(1.0, d)):
            return d
    return -arithmetic.HELD


def sampling_figure(s: Sampled) -> svg.Svg:
    """Two bars a token: the model's p and the p sampled from; a token cut by top-k or top-p has no second bar."""
    after = [bar_label(p) if kept else CUT for p, kept in zip(s.after, s.kept, strict=True)]  # two decimals: side
    top = float(max(s.before.max(), s.after.max()))  # by side they fit; the table has more
    return svg.bars(list(s.tokens), [
        svg.Series("the model's p", s.before.tolist(), RAW_COLOUR, [bar_label(p) for p in s.before]),
        svg.Series(f"p sampled from ({settings_text(s.sampling)})", s.after.tolist(), SCALED_COLOUR, after),
    ], title="The next token's probabilities, before and after", x_title="next token (the model's likeliest first)",
        y_title="p", y_range=(0.0, min(1.0, top * 1.25) or 1.0), show_legend=True)


def bar_label(p: float) -> str:
    """A bar's label, at two decimals; a probability above 0 that would read 0.00 reads "<0.01"."""
    text = format_number(p, 2)
    return "<0.01" if p > 0 and text == "0.00" else text


def sampling_frame(s: Sampled) -> pd.DataFrame:
    """The numbers of the chart: each token's p, its p at T (over the whole vocabulary), and the p sampled from
    ("cut" where removed), written as ``probability`` writes them."""
    d = arithmetic.places(after_decimals(s))
    return pd.DataFrame({
        "next token": list(s.tokens),
        "p": [probability(float(p)).text for p in s.before],
        f"p at T = {s.sampling.temperature:g}": [probability(float(p)).text for p in s.tempered],
        "p sampled from": [probability(float(p), d).text if kept else CUT for p, kept in zip(s.after, s.kept,
                                                                                             strict=True)],
    }, index=pd.RangeIndex(1, len(s.tokens) + 1, name="rank"))


def settings_text(sampling: Sampling) -> str:
    top_k = "top-k off" if sampling.top_k <= 0 else f"top-k {sampling.top_k}"
    top_p = "top-p off" if sampling.top_p >= 1 else f"top-p {sampling.top_p:g}"
    return f"T {sampling.temperature:g}, {top_k}, {top_p}"


def _share(kept: float, left: float, share: float) -> tuple[Written, Written, str, Written]:
    """kept ÷ left = share, written so that it adds up (``viz.arithmetic``'s rule): the fewest decimals, from those
    that give every number two significant digits up to six, at which the written quotient rounds to the written
    share; "≈" where none does."""
    result = probability(share)
    for d in range(min(arithmetic.HELD, max(_places(kept), _places(left))), arithmetic.HELD + 1):
        a, b = fixed(kept, d), fixed(left, d)
        if b.value and _reads_as(a.value / b.value, result):
            return a, b, "=", result
    return fixed(kept, arithmetic.HELD), fixed(left, arithmetic.HELD), arithmetic.APPROX, result


def _places(p: float) -> int:
    """The decimals that give ``p`` > 0 SIGNIFICANT digits (at least DECIMALS)."""
    return max(DECIMALS, SIGNIFICANT - 1 - math.floor(math.log10(p)))


def kept_text(s: Sampled) -> str:
    """Markdown: how many tokens each cut left, what top-p measured, and what renormalising does, measured on this
    distribution."""
    k, p = s.sampling.top_k, s.sampling.top_p
    parts = [f"Of the vocabulary's {s.vocabulary:,} tokens, "]
    if k <= 0 and p >= 1:
        parts.append("none is cut: every token can be drawn, with its probability at T.")
        return "".join(parts)
    count = f"**{s.kept_count:,} token{'s' if s.kept_count != 1 else ''}**"
    ties = " (tied logits are kept together)" if s.after_top_k > k else ""
    if k > 0 and p < 1:
        kept, left, relation, share = _share(s.kept_mass, s.top_k_mass, s.kept_share)
        parts.append(f"top-k keeps the {s.after_top_k:,} with the largest logits{ties}, which hold {left.text} of "
                     f"the probability at T. Top-p then measures what top-k left, renormalised: each of their "
                     f"probabilities divided by {left.text}, so that they add up to 1. It keeps the fewest "
                     f"likeliest of them whose renormalised probabilities add up to at least {p:g}: {count}, "
                     f"holding {kept.text} ÷ {left.text} {relation} {share.text} of what top-k left ({kept.text} of "
                     "the probability at T).")
    else:
        kept = probability(s.kept_mass)
        if k > 0:
            parts.append(f"top-k keeps the {s.after_top_k:,} with the largest logits{ties}")
        else:
            parts.append(f"top-p keeps the fewest likeliest of them whose probabilities at T add up to at least {p:g}")
        parts.append(f": {count}, holding {kept.text} of the probability at T.")
    parts.append(f" Their probabilities at T are divided by {kept.text}, so that they add up to 1, and every other "
                 "token's becomes 0.")
    if _all_kept_shown(s):
        every = {1: "it", 2: "both"}.get(s.kept_count, f"all {s.kept_count}")
        parts.append(f" In the table, which shows {every}, the column “p sampled from” adds up to 1 as written."
                     if after_decimals(s) > 0 else
                     f" In the table, which shows {every}, the column “p sampled from” adds up to ≈ 1: each number "
                     "is rounded.")
    return "".join(parts)


def slice_decimals(u: float, start: float, end: float, fewest: int = DECIMALS) -> int:
    """The fewest decimals (from ``fewest``) at which u, written, lies in its slice [start, end), written: a learner
    reads start ≤ u < end, never an empty slice nor a u outside it. Needs start ≤ u < end (floats have at most 1,074
    decimals, so there is such a number)."""
    d = fewest
    while d < 1100:
        a, x, b = (fixed(v, d).value for v in (start, u, end))
        if a <= x < b:
            return d
        d += 1
    return d


def draw_text(s: Sampled, seed: int) -> str:
    """Markdown: the seeded draw, as a learner could check it with the table (tokens escaped: a model's tokens are
    text). u and the slice are written with the decimals that show u inside its slice; the slice's length is its
    token's p sampled from, written as the table writes it, with "=" where the written subtraction gives it."""
    column = arithmetic.places(after_decimals(s))
    d = slice_decimals(s.u, s.slice_start, s.slice_end, column)
    u, a, b = (fixed(v, d) for v in (s.u, s.slice_start, s.slice_end))
    p = probability(s.drawn_p, column)  # as the table writes it
    relation = "=" if _reads_as(b.value - a.value, p) else arithmetic.APPROX
    token = markdown_text(s.drawn)
    return (f"**The draw (seed {seed}):** u = {u.text}, a number drawn uniformly from [0, 1). Laid end to end, "
            "likeliest first, each kept token takes a slice of [0, 1) as long as its probability; u falls in "
            f"“{token}”'s slice, [{a.text}, {b.text}) ({b.text} − {a.text} {relation} {p.text}, its p sampled from), "
            f"so the next token is **“{token}”**. Another seed draws another u.")
