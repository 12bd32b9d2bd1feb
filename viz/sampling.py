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
from viz.i18n import N_, decimal, enumeration, nt, numbers, sentences, t, whole
from viz.labels import format_number, markdown_text
from viz.scaling import RAW_COLOUR, SCALED_COLOUR
from viz.tables import WORD_COLUMNS

SHOWN = 12  # tokens drawn and listed: the likeliest under the model
CUT = N_("cut")


@dataclass(frozen=True)
class Sampled:
    """What the page shows of one sampling: the SHOWN likeliest tokens (by the model), their probabilities before
    and after, which survived, the sums, and the draw. Small: the page's cache keeps it, not the 49,152 logits."""
    sampling: Sampling
    tokens: tuple[str, ...]  # [SHOWN] as the page shows them
    before: np.ndarray  # [SHOWN] the model's p
    tempered: np.ndarray  # [SHOWN] p at T, over the whole vocabulary
    after: np.ndarray  # [SHOWN] the p sampled from
    rests: tuple[np.ndarray, np.ndarray, np.ndarray]  # [SHOWN] each 1 − before, tempered, after: the others' sum
    kept: np.ndarray  # [SHOWN] bool: left by top-k and top-p
    kept_count: int  # tokens left, of the whole vocabulary
    after_top_k: int  # tokens left by top-k alone
    top_k_mass: float  # their share of the tempered distribution
    top_k_rest: float  # 1 − top_k_mass: the share of the tokens top-k cut, summed from them
    kept_mass: float  # the kept tokens' share of the tempered distribution
    kept_rest: float  # 1 − kept_mass: the share of every token cut, summed from them
    kept_share: float  # the kept tokens' share of what top-p measured (what top-k left, renormalised)
    share_rest: float  # 1 − kept_share: the share top-p cut of what it measured, summed from the tokens it cut
    vocabulary: int
    u: float
    drawn: str  # the token the draw lands on
    drawn_p: float
    drawn_rest: float  # 1 − drawn_p, summed from the other tokens' p sampled from
    slice_start: float  # the drawn token's slice of [0, 1)
    slice_end: float


def sampled(result: Processed, chosen: Draw, show: Callable[[int], str]) -> Sampled:
    """The page's summary of ``result`` and ``chosen`` (``show``: a token id as the page writes it). The last
    slice ends at 1, as the slices laid end to end do on paper (their float sum may stop just short of it). What a
    probability leaves to 1 is summed from the others (what a cut leaves out, from the tokens cut), not taken from
    1: a float near 1 holds no remainder below 10⁻¹⁶, and at T = 0.1 the likeliest token leaves 10⁻²⁰."""
    top = np.argsort(-result.before, kind="stable")[:SHOWN]
    k = int(np.flatnonzero(chosen.order == chosen.token)[0])
    left = result.left_by_top_k
    others = np.ones(result.before.size, dtype=bool)
    others[chosen.token] = False
    return Sampled(
        sampling=result.sampling, tokens=tuple(show(int(i)) for i in top), before=result.before[top],
        tempered=result.tempered[top], after=result.after[top],
        rests=tuple(_rests(p, top) for p in (result.before, result.tempered, result.after)), kept=result.kept[top],
        kept_count=int(result.kept.sum()), after_top_k=int(result.left_by_top_k.sum()),
        top_k_mass=float(result.tempered[left].sum()), top_k_rest=float(result.tempered[~left].sum()),
        kept_mass=float(result.tempered[result.kept].sum()), kept_rest=float(result.tempered[~result.kept].sum()),
        kept_share=float(result.top_p_measures[result.kept].sum()),
        share_rest=float(result.top_p_measures[left & ~result.kept].sum()), vocabulary=result.kept.size,
        u=chosen.u, drawn=show(chosen.token), drawn_p=float(result.after[chosen.token]),
        drawn_rest=float(result.after[others].sum()),
        slice_start=float(chosen.ends[k - 1]) if k else 0.0,
        slice_end=1.0 if k == chosen.order.size - 1 else float(chosen.ends[k]))


def _rests(p: np.ndarray, top: np.ndarray) -> np.ndarray:
    """[SHOWN] 1 − p of each token in ``top``: the sum of every other token's p ([vocab])."""
    unshown = np.ones(p.size, dtype=bool)
    unshown[top] = False
    base = float(p[unshown].sum())
    return np.array([base + float(np.delete(p[top], i).sum()) for i in range(top.size)])


# --- numbers as written ---------------------------------------------------------------------------------------------

DECIMALS = 3  # a probability in the table and the texts: at least three decimals
SIGNIFICANT = 2  # and at least two significant digits of p, or of 1 − p from 0.5 on: none above 0 reads 0, none
# below 1 reads 1
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass(frozen=True)
class Written:
    """A number as the page writes it, and what a learner reads: its value as written and one unit of its last
    digit."""
    text: str
    value: Fraction
    unit: Fraction


def fixed(x: float, decimals: int) -> Written:
    """``x`` ≥ 0 at ``decimals`` decimals, rounded half up from the float's exact value (so also beyond six decimals,
    for a slice of [0, 1) narrower than 10⁻⁶)."""
    # rounded once, from the float's exact value: viz.arithmetic holds numbers at six decimals first, and rounding
    # 0.00063452… to 0.000635 and then to five decimals wrote 0.00064, not p's own two digits (the third audit)
    exact = Context(prec=decimals + 30)  # a float's exact value, however many decimals
    text = format(Decimal(x).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP, context=exact), "f")
    return Written(text, Fraction(text), Fraction(1, 10**decimals))


def probability(p: float, decimals: int = DECIMALS, rest: float | None = None) -> Written:
    """A probability at ``decimals`` decimals, more where that would leave fewer than SIGNIFICANT digits of p, or of
    1 − p for p near 1: 0.326, 0.0042, 0.00072 (at T = 5 the likeliest token of 49,152 holds less than 0.001, and
    "0.000" would read as if temperature had set it to 0), 0.99993 (top-p cut 0.00007 of what top-k left, and
    "1.000" would read as if it had cut nothing). Where six decimals are not enough, in scientific notation:
    7.2 × 10⁻⁸, 1 − 7.2 × 10⁻⁸. ``rest`` is 1 − p where it is known better than from p (a sum of what a cut left
    out); otherwise 1 − p is taken from p (exact in floating point for p ≥ 0.5, where it is used)."""
    if p <= 0:
        return Written("0", Fraction(0), Fraction(1))
    return at_decimals(p, max(decimals, _places(_small_side(p, rest))), rest)


def _small_side(p: float, rest: float | None) -> float:
    """What a probability's significant digits are counted on: p, or from 0.5 on 1 − p (0 for a p of 1)."""
    if p < 0.5:
        return p
    return max(0.0, 1.0 - p if rest is None else rest)


def at_decimals(p: float, decimals: int, rest: float | None = None) -> Written:
    """A probability rounded at ``decimals`` decimals (as ``fixed``), written in scientific notation where its small
    side (p, or from 0.5 on 1 − p: ``rest`` where given) needs more than six decimals for SIGNIFICANT digits:
    7.2 × 10⁻⁸ and 1 − 7.2 × 10⁻⁸ at 9 decimals, 7.20 × 10⁻⁸ at 10."""
    small = _small_side(p, rest)
    near = p >= 0.5
    if small <= 0:
        return fixed(0.0 if not near else 1.0, decimals)
    if _places(small) <= arithmetic.HELD:
        if not near or decimals <= arithmetic.HELD:
            return fixed(1.0 - small if near else p, decimals)
        exact = Context(prec=decimals + 30)  # 1 − rest, exactly, however many decimals
        text = format(exact.subtract(Decimal(1), Decimal(small)).quantize(
            Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP, context=exact), "f")
        return Written(text, Fraction(text), Fraction(1, 10**decimals))
    mantissa, e = _scientific(small, decimals)
    power = f"{mantissa} × 10{str(e).translate(_SUPERSCRIPT)}"
    value = Fraction(mantissa) * Fraction(10) ** e
    unit = Fraction(1, 10**decimals)
    return Written(f"1 − {power}", 1 - value, unit) if near else Written(power, value, unit)


def _scientific(x: float, decimals: int) -> tuple[str, int]:
    """``x`` > 0 rounded at ``decimals`` decimals (half up, from the float's exact value), as a mantissa and a power
    of ten: the mantissa's last digit is the ``decimals``-th decimal."""
    exact = Context(prec=decimals + 30)
    q = Decimal(x).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP, context=exact)
    e = q.adjusted()
    return format(q.scaleb(-e, context=exact), f".{decimals + e}f"), e


def _reads_as(value: Fraction, result: Written) -> bool:
    """Whether ``value`` (computed exactly from written numbers) lies strictly within half a unit of ``result``'s
    last digit: a learner's own arithmetic gives the written result (``viz.arithmetic``'s rule)."""
    return 2 * abs(value - result.value) < result.unit


def _all_kept_shown(s: Sampled) -> bool:
    """Whether every token that can be drawn is in the table (a learner can add up their column)."""
    return bool(s.sampling.top_k > 0 or s.sampling.top_p < 1) and s.kept_count == int(s.kept.sum())


def after_decimals(s: Sampled) -> int:
    """The decimals of the column “p sampled from”: where every token that can be drawn is in the table, the fewest
    (3 … 6) at which the column, as written, adds up to 1 (within half a unit of its coarsest number's last digit), as
    the text says; −6 where none does (the text then says ≈ 1). Otherwise 3."""
    if not _all_kept_shown(s):
        return DECIMALS
    for d in range(DECIMALS, arithmetic.HELD + 1):
        written = [probability(float(p), d, rest) for p, rest in zip(s.after[s.kept], s.rests[2][s.kept], strict=True)]
        total = sum((w.value for w in written), Fraction(0))
        # at the coarsest number's last digit: a column all in powers of ten (1 − 2.3 × 10⁻⁸, 1.4 × 10⁻⁸, …) is
        # written to 10⁻⁹ at best, and its sum, 1 + 7.1 × 10⁻¹⁰, does not read 1 there (Hypothesis, in the test)
        if _reads_as(total, Written("1", Fraction(1), max(w.unit for w in written))):
            return d
    return -arithmetic.HELD


def sampling_figure(s: Sampled) -> svg.Svg:
    """Two bars a token: the model's p and the p sampled from; a token cut by top-k or top-p has no second bar."""
    after = [bar_label(p) if kept else t(CUT) for p, kept in zip(s.after, s.kept, strict=True)]  # two decimals: side
    top = float(max(s.before.max(), s.after.max()))  # by side they fit; the table has more
    return svg.bars(list(s.tokens), [
        svg.Series(t("the model's p"), s.before.tolist(), RAW_COLOUR, [bar_label(p) for p in s.before]),
        svg.Series(t("p sampled from ({settings})", settings=settings_text(s.sampling)), s.after.tolist(),
                   SCALED_COLOUR, after, outline=True),  # filled and outlined: told apart without colour
    ], title=t("The next token's probabilities, before and after"),
        x_title=t("next token (the model's likeliest first)"), y_title="p",
        y_range=(0.0, min(1.0, top * 1.25) or 1.0), show_legend=True)


def bar_label(p: float) -> str:
    """A bar's label, at two decimals; a probability above 0 that would read 0.00 reads "<0.01"."""
    text = format_number(p, 2)
    return "<" + decimal("0.01") if p > 0 and text == format_number(0.0, 2) else text


def sampling_frame(s: Sampled) -> pd.DataFrame:
    """The numbers of the chart: each token's p, its p at T (over the whole vocabulary), and the p sampled from
    ("cut" where removed), written as ``probability`` writes them."""
    d = arithmetic.places(after_decimals(s))
    frame = pd.DataFrame({
        "next token": list(s.tokens),
        "p": [decimal(probability(float(p), rest=rest).text) for p, rest in zip(s.before, s.rests[0], strict=True)],
        t("p at T = {temperature}", temperature=decimal(f"{s.sampling.temperature:g}")): [
            decimal(probability(float(p), rest=rest).text) for p, rest in zip(s.tempered, s.rests[1], strict=True)],
        "p sampled from": [decimal(probability(float(p), d, rest).text) if kept else t(CUT)
                           for p, rest, kept in zip(s.after, s.rests[2], s.kept, strict=True)],
    }, index=pd.RangeIndex(1, len(s.tokens) + 1, name="rank"))
    frame.attrs[WORD_COLUMNS] = True  # (its "p at T = …" is written in the reader's language already)
    return frame


def settings_text(sampling: Sampling) -> str:
    top_k = t("top-k off") if sampling.top_k <= 0 else f"top-k {sampling.top_k}"
    top_p = t("top-p off") if sampling.top_p >= 1 else f"top-p {decimal(f'{sampling.top_p:g}')}"
    return enumeration([f"T {decimal(f'{sampling.temperature:g}')}", top_k, top_p])


def _share(s: Sampled) -> tuple[Written, Written, str, Written]:
    """kept ÷ left = share (the kept tokens' share of the probability at T, over top-k's), written so that it adds
    up (``viz.arithmetic``'s rule): each part with two significant digits (of what it leaves to 1 from 0.5 on: a
    part below 1 reads below 1), then one more digit each, up to four more, until the written quotient rounds to the
    written share; "≈" (and two digits) where none does."""
    result = probability(s.kept_share, rest=s.share_rest)
    kept, left = _places(_small_side(s.kept_mass, s.kept_rest)), _places(_small_side(s.top_k_mass, s.top_k_rest))
    for more in range(5):
        a, b = at_decimals(s.kept_mass, kept + more, s.kept_rest), at_decimals(s.top_k_mass, left + more, s.top_k_rest)
        if b.value and _reads_as(a.value / b.value, result):
            return a, b, "=", result
    return at_decimals(s.kept_mass, kept, s.kept_rest), at_decimals(s.top_k_mass, left, s.top_k_rest), \
        arithmetic.APPROX, result


def _operand(w: Written) -> str:
    """A written number as a factor: "1 − 2.0 × 10⁻⁷" in parentheses."""
    return f"({decimal(w.text)})" if " − " in w.text else decimal(w.text)


def _places(p: float) -> int:
    """The decimals that give ``p`` SIGNIFICANT digits (at least DECIMALS; DECIMALS for 0)."""
    return DECIMALS if p <= 0 else max(DECIMALS, SIGNIFICANT - 1 - math.floor(math.log10(p)))


def kept_text(s: Sampled) -> str:
    """Markdown: how many tokens each cut left, what top-p measured, and what renormalising does, measured on this
    distribution."""
    k, p = s.sampling.top_k, s.sampling.top_p
    vocabulary = whole(s.vocabulary)
    if k <= 0 and p >= 1:
        return t("Of the vocabulary's {vocabulary} tokens, none is cut: every token can be drawn, with its probability "
                 "at T.", vocabulary=vocabulary)
    count = nt("**{count} token**", "**{count} tokens**", s.kept_count, count=whole(s.kept_count))
    tied = s.after_top_k > k
    if k > 0 and p < 1:
        kept, left, relation, share = _share(s)
        values = dict(vocabulary=vocabulary, top_k=whole(s.after_top_k), left=decimal(left.text),
                      top_p=decimal(f"{p:g}"), count=count, kept=_operand(kept), left_operand=_operand(left),
                      relation=relation, share=decimal(share.text), kept_at_t=decimal(kept.text))
        said = (t("Of the vocabulary's {vocabulary} tokens, top-k keeps the {top_k} with the largest logits (tied "
                  "logits are kept together), which hold {left} of the probability at T.", **values) if tied else
                t("Of the vocabulary's {vocabulary} tokens, top-k keeps the {top_k} with the largest logits, which "
                  "hold {left} of the probability at T.", **values))
        said = sentences(said, t("Top-p then measures what top-k left, renormalised: each of their probabilities "
                                 "divided by {left}, so that they add up to 1. It keeps the fewest likeliest of them "
                                 "whose renormalised probabilities add up to at least {top_p}: {count}, holding "
                                 "{kept} ÷ {left_operand} {relation} {share} of what top-k left ({kept_at_t} of the "
                                 "probability at T).", **values))
    else:
        kept = probability(s.kept_mass, rest=s.kept_rest)
        values = dict(vocabulary=vocabulary, top_k=whole(s.after_top_k), top_p=decimal(f"{p:g}"), count=count,
                      kept=decimal(kept.text))
        if k > 0:
            said = (t("Of the vocabulary's {vocabulary} tokens, top-k keeps the {top_k} with the largest logits (tied "
                      "logits are kept together): {count}, holding {kept} of the probability at T.", **values) if tied
                    else t("Of the vocabulary's {vocabulary} tokens, top-k keeps the {top_k} with the largest logits: "
                           "{count}, holding {kept} of the probability at T.", **values))
        else:
            said = t("Of the vocabulary's {vocabulary} tokens, top-p keeps the fewest likeliest of them whose "
                     "probabilities at T add up to at least {top_p}: {count}, holding {kept} of the probability at T.",
                     **values)
    said = sentences(said, t("Their probabilities at T are divided by {kept}, so that they add up to 1, and every "
                             "other token's becomes 0.", kept=decimal(kept.text)))
    if _all_kept_shown(s):
        every = {1: t("it"), 2: t("both")}.get(s.kept_count) or t("all {count}", count=s.kept_count)
        said = sentences(said, t("In the table, which shows {every}, the column “p sampled from” adds up to 1 as "
                                 "written.", every=every) if after_decimals(s) > 0 else
                         t("In the table, which shows {every}, the column “p sampled from” adds up to ≈ 1: each "
                           "number is rounded.", every=every))
    return said


def draw_decimals(s: Sampled, p: Written, fewest: int) -> tuple[int, str]:
    """The decimals of u and the drawn token's slice [a, b), and what b − a is to its p sampled from (``p``, as the
    table writes it): the fewest decimals (from ``fewest``) at which u reads inside a non-empty slice and the written
    b − a gives p ("="); else the fewest at which u reads inside and b − a is within rounding of p, half a unit of its
    last digit ("≈": p on a rounding boundary); else the fewest at which u reads inside ("": not even the slice as
    the engine laid it, its float ends written in full, is within rounding of p). Past six decimals where it takes
    more: a float has at most 1,074 decimals, past which more change nothing. Needs start ≤ u < end."""
    inside = approx = None
    d = fewest
    while True:
        a, x, b = (fixed(v, d).value for v in (s.slice_start, s.u, s.slice_end))
        if a <= x < b:
            gap = 2 * abs(b - a - p.value)
            if gap < p.unit:
                return d, "="
            if gap <= p.unit and approx is None:
                approx = d
            if inside is None:
                inside = d
        if all(w == Fraction(v) for w, v in ((a, s.slice_start), (x, s.u), (b, s.slice_end))):
            break  # every number written in full: more decimals change nothing
        d += 1
    return (approx, arithmetic.APPROX) if approx is not None else (inside if inside is not None else d, "")


def draw_text(s: Sampled, seed: int) -> str:
    """Markdown: the seeded draw, as a learner could check it with the table (tokens escaped: a model's tokens are
    text). u and the slice are written with the decimals that show u inside its slice and make the written b − a
    its token's p sampled from, written as the table writes it (``draw_decimals``: "=", else "≈" within rounding,
    else what b − a is)."""
    column = arithmetic.places(after_decimals(s))
    p = probability(s.drawn_p, column, s.drawn_rest)  # as the table writes it
    d, relation = draw_decimals(s, p, column)
    u, a, b = (fixed(v, d) for v in (s.u, s.slice_start, s.slice_end))
    token = markdown_text(s.drawn)
    at = dict(u=decimal(u.text), a=decimal(a.text), b=decimal(b.text), p=decimal(p.text))
    if relation:
        length = t("{b} − {a} {relation} {p}, its p sampled from", relation=relation, **at)
    else:  # the float ends: p within 10⁻¹⁶ of a rounding boundary of its last digit, or a sliver after many floats
        difference = format(Context(prec=d + 10).subtract(Decimal(b.text), Decimal(a.text)), "f")  # exact
        why = (t("its slice ends at p held as a 64-bit float, about 16 significant digits, and that float is not p")
               if s.slice_start == 0 else  # the first slice: no sum (the third audit: 1 − 2.2 × 10⁻²⁷ is no float)
               t("the slices' ends are running sums held as 64-bit floats, rounded to about 16 significant digits"))
        length = t("{b} − {a} = {difference}; its p sampled from is {p}, which no number of decimals gives here: "
                   "{why}", difference=decimal(difference), why=why, **at)
    return t("**The draw (seed {seed}):** u = {u}, a number drawn uniformly from [0, 1). Laid end to end, likeliest "
             "first, each kept token takes a slice of [0, 1) as long as its probability; u falls in “{token}”'s "
             "slice, [{slice}) ({length}), so the next token is **“{token}”**. Another seed draws another u.",
             seed=seed, u=at["u"], token=token, slice=numbers([at["a"], at["b"]]), length=length)
