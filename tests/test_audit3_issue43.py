"""The third truth audit of issue 43 (the sentences added by the first two audits' fixes): breaking inputs, failing
until fixed."""

from __future__ import annotations

import numpy as np

from attention.sampling import Sampling, draw, processed
from viz import sampling as S


def _sampled(trial: int, sampling: Sampling, seed: int):
    """Synthetic logits (5,000 tokens, one boosted), the trial-th of a seeded series, sampled and drawn."""
    rng = np.random.default_rng(1)
    for _ in range(trial + 1):
        logits = rng.normal(0, 3, 5000)
        logits[rng.integers(5000)] += rng.uniform(0, 30)
    result = processed(logits, sampling)
    return S.sampled(result, draw(result.after, seed), str)


def test_a_probability_is_rounded_from_its_own_value_not_from_six_decimals_first():
    """The caption: 'Each is written with at least two significant digits'. 0.00063452… has 0.00063 as its two
    significant digits; the page writes 0.00064 (rounded to 0.000635 first, then to five decimals)."""
    assert S.probability(0.0006345266573133017).text == "0.00063"


def test_the_draw_does_not_say_no_decimals_give_p_when_the_slice_is_p_to_1e_16():
    """T 2, top-k 0, top-p 1, seed 1: the slice [0.51146480…, 0.51209932…) is 0.000634526657313339 long, its p
    0.000634526657313302 (4 × 10⁻¹⁷ apart). The page says 'its p sampled from is 0.00064, which no number of decimals
    gives here: the slices' ends are running sums held as 64-bit floats': at 8 decimals b − a = 0.00063453, which is
    p (0.00063 at five decimals); the gap is the page's own double rounding of p, not the floats."""
    s = _sampled(55, Sampling(2.0, 0, 1.0), 1)
    assert abs((s.slice_end - s.slice_start) - s.drawn_p) < 1e-16
    assert "no number of decimals gives" not in S.draw_text(s, 1)


def test_a_first_slice_is_not_blamed_on_running_sums():
    """T 0.1, top-k 0, top-p 1 (any seed): the likeliest token's slice is [0, p) with p its own float, 1.0; the page
    writes '[0.000, 1.000) (1.000 − 0.000 = 1.000; its p sampled from is 1 − 2.2 × 10⁻²⁷, which no number of decimals
    gives here: the slices' ends are running sums held as 64-bit floats'. No sum is involved: p itself, 1 − 2.2 × 10⁻²⁷,
    is no 64-bit float (the nearest is 1)."""
    s = _sampled(0, Sampling(0.1, 0, 1.0), 0)
    assert s.slice_start == 0.0 and s.drawn_p == 1.0 and s.drawn_rest > 0
    assert "running sums" not in S.draw_text(s, 0)
