"""attention/sampling.py: temperature, top-k and top-p against Hugging Face's logits processors (golden files written
by tests/by_hand/make_sampling_golden.py), against the definitions written as loops, and as properties; the draw."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attention.sampling import ROUNDING, Sampling, draw, processed
from ui.links import MAX_TOP_K, SAMPLING_TEMPERATURES, TOP_PS
from ui.settings import MAX_SEED
from viz.labels import markdown_text

GOLDEN = np.load(Path(__file__).parent / "golden" / "sampling.npz")
SETTINGS = [Sampling(float(t), int(k), float(p)) for t, k, p in GOLDEN["settings"]]
INPUTS = sorted({int(key.split("/")[0]) for key in GOLDEN.files if key != "settings"})


@pytest.mark.parametrize("i", INPUTS)
def test_the_distribution_sampled_from_equals_hugging_faces_logits_processors(i):
    """SmolLM2's next-token logits on three sentences and three made-up ones (ties at every rank, one token far
    ahead, all equal), under 100 settings: as many tokens kept, the same probabilities (torch sums 49,152 float32
    terms: agreement to 5e-5 of each), the same tokens but for which of several tied on top-p's boundary stay
    (PyTorch's sort orders ties as it likes; ours keeps the smaller ids)."""
    logits = GOLDEN[f"{i}/logits"]
    for j, sampling in enumerate(SETTINGS):
        result = processed(logits, sampling)
        ids, p = GOLDEN[f"{i}/{j}/ids"], GOLDEN[f"{i}/{j}/p"]
        theirs = int(GOLDEN[f"{i}/{j}/count"])
        if (logits == logits[0]).all():  # n equal tokens (top-k keeps every tie): the running sums are m/n on paper
            assert int(result.kept.sum()) == flat_top_p_count(logits.size, sampling.top_p), (i, sampling)
            # where m/n = 1 − p exactly, float32 lands on either side: PyTorch's count is one off there
            assert abs(theirs - result.kept.sum()) <= 1, (i, sampling)
            continue
        assert int(result.kept.sum()) == theirs, (i, sampling)
        ours = np.sort(result.after[result.kept])[::-1][: ids.size]
        np.testing.assert_allclose(ours, p, rtol=5e-5, atol=1e-9, err_msg=str((i, sampling)))
        boundary = logits[result.kept].min()
        differ = set(np.flatnonzero(result.kept)) ^ set(ids) if ids.size == result.kept.sum() else \
            set(ids) - set(np.flatnonzero(result.kept))
        assert all(logits[d] == boundary for d in differ), (i, sampling)
        assert result.after.sum() == pytest.approx(1.0, abs=1e-12)


def flat_top_p_count(n: int, top_p: float) -> int:
    """Top-p on n equally likely tokens, in exact arithmetic: the m least likely go while m/n ≤ 1 − p."""
    from fractions import Fraction
    removed = max(m for m in range(n) if Fraction(m, n) <= 1 - Fraction(str(top_p)))
    return n - removed


def loop_processed(logits: list[float], t: float, k: int, top_p: float) -> list[float]:
    """The three steps written out as their definitions, with loops, in plain Python."""
    import math
    z = [x / t for x in logits]
    kept = list(range(len(z)))
    if 0 < k < len(z):
        kth = sorted(z, reverse=True)[k - 1]
        kept = [j for j in kept if z[j] >= kth]
    if top_p < 1:
        m = max(z[j] for j in kept)
        total = sum(math.exp(z[j] - m) for j in kept)
        running, removed = 0.0, set()
        by_rise = sorted(kept, key=lambda j: (z[j], -j))  # least likely first; of ties, the larger id first
        for j in by_rise[:-1]:  # the likeliest stays
            running += math.exp(z[j] - m) / total
            if running <= 1 - top_p + ROUNDING:
                removed.add(j)
        kept = [j for j in kept if j not in removed]
    m = max(z[j] for j in kept)
    total = sum(math.exp(z[j] - m) for j in kept)
    return [math.exp(z[j] - m) / total if j in kept else 0.0 for j in range(len(z))]


logit_vectors = hnp.arrays(np.float64, st.integers(1, 30), elements=st.floats(-20, 20).map(lambda x: round(x, 1)))


@settings(max_examples=300, deadline=None)
@given(logits=logit_vectors, t=st.sampled_from([0.1, 0.5, 1.0, 2.0, 10.0]), k=st.integers(0, 35),
       top_p=st.sampled_from([0.05, 0.3, 0.5, 0.9, 0.99, 1.0]))
def test_the_steps_equal_their_definitions_written_as_loops(logits, t, k, top_p):
    """Logits rounded to one decimal: ties are common. (Whether a token sits exactly at the top-p boundary is a
    question of rounding; the loop and the engine sum in the same order, so they agree there too.)"""
    result = processed(logits, Sampling(t, k, top_p))
    np.testing.assert_allclose(result.after, loop_processed(list(logits), t, k, top_p), atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(logits=logit_vectors, t=st.floats(0.05, 20), k=st.integers(0, 35), top_p=st.floats(0.01, 1.0))
def test_what_is_sampled_from_is_a_distribution_over_the_likeliest_tokens(logits, t, k, top_p):
    result = processed(logits, Sampling(t, k, top_p))
    assert result.after.sum() == pytest.approx(1.0) and (result.after >= 0).all()
    assert result.kept[np.argmax(logits)]  # the likeliest token is never cut (of ties, the first)
    assert 1 <= result.kept.sum() <= (k if 0 < k else logits.size) + (logits == np.sort(logits)[-k]).sum() - 1 \
        if 0 < k <= logits.size else result.kept.sum() >= 1
    kept_z, cut_z = logits[result.kept], logits[~result.kept]
    assert cut_z.size == 0 or cut_z.max() <= kept_z.min()  # what is kept is the likeliest
    if top_p < 1:  # the kept tokens hold more than top_p of what top-k left (at T), or are the likeliest alone
        left = processed(logits, Sampling(t, k, 1.0))
        mass = left.after[result.kept].sum()
        assert mass > top_p - 1e-9 or result.kept.sum() == 1


@settings(max_examples=200, deadline=None)
@given(logits=logit_vectors, k=st.integers(0, 35), top_p=st.floats(0.01, 1.0), seed=st.integers(0, 2**32 - 1))
def test_the_draw_lands_on_the_kept_token_whose_slice_holds_u(logits, k, top_p, seed):
    p = processed(logits, Sampling(1.0, k, top_p)).after
    chosen = draw(p, seed)
    assert 0 <= chosen.u < 1 and p[chosen.token] > 0
    position = int(np.flatnonzero(chosen.order == chosen.token)[0])
    start = chosen.ends[position - 1] if position else 0.0
    assert start <= chosen.u < chosen.ends[position] or position == chosen.order.size - 1
    assert list(p[chosen.order]) == sorted(p[chosen.order], reverse=True)  # likeliest first
    again = draw(p, seed)  # the seed decides
    assert (again.u, again.token) == (chosen.u, chosen.token)


def test_draws_follow_the_distribution():
    """Over 4,000 seeds, each token is drawn about as often as its probability says (within 4 standard errors)."""
    p = processed(np.array([2.0, 1.0, 0.5, 0.0, -1.0, -3.0]), Sampling(1.0, 0, 0.95)).after
    counts = np.bincount([draw(p, seed).token for seed in range(4000)], minlength=p.size)
    error = np.sqrt(p * (1 - p) / 4000)
    assert (np.abs(counts / 4000 - p) <= 4 * error + 1e-12).all(), (counts / 4000, p)


@settings(max_examples=200, deadline=None)
@given(logits=logit_vectors, low=st.floats(0.05, 10), factor=st.floats(1.0, 10))
def test_a_lower_temperature_makes_the_likeliest_token_likelier(logits, low, factor):
    """The lesson's claim: below 1 the likeliest token gets likelier still, above 1 the distribution flattens."""
    colder = processed(logits, Sampling(low, 0, 1.0)).tempered
    warmer = processed(logits, Sampling(low * factor, 0, 1.0)).tempered
    top = int(np.argmax(logits))
    assert colder[top] >= warmer[top] - 1e-12
    def entropy(p):
        return -float(np.sum(p[p > 0] * np.log(p[p > 0])))
    assert entropy(warmer) >= entropy(colder) - 1e-9  # flatter


# --- the page: "A real model", SmolLM2 -----------------------------------------------------------------------------

PAGE_STATES = [
    {},  # the model's own distribution: nothing cut
    {"rm_temperature": "0.7", "rm_top_k": "10", "rm_top_p": "0.9", "rm_draw": "3"},
    {"rm_temperature": "5.0", "rm_top_p": "0.05"},  # hot and then cut hard
    {"rm_temperature": "5.0", "rm_top_k": "5"},  # hot: p at T is below 0.001 on every row
    {"rm_top_k": "1"},  # greedy
    {"rm_top_k": "1000", "rm_temperature": "0.1", "rm_draw": "999999"},  # cold: p at T far below 10⁻⁶ from rank 4
    {"sentence": "Jindřich says: naïve café 你好 🤗!", "rm_temperature": "1.5", "rm_top_p": "0.8", "rm_draw": "7"},
    {"sentence": "a", "rm_top_p": "0.5", "rm_draw": "1"},  # one token
]


@pytest.mark.parametrize("query", PAGE_STATES)
def test_the_page_shows_the_engines_sampling_of_the_learners_sentence(smollm2, query):
    """The table, the kept count and mass, and the draw are the engine's, on the learner's sentence and settings, as
    the learner reads them (every probability above 0 reads above 0, at high T and low T); the settings are in the
    link."""
    from tests.table_reading import readable, shown_table
    from tests.test_pages import assert_no_exception
    from tests.test_pretrained import SMOLLM2_LABEL, open_real_model
    from ui.settings import DEFAULT_SENTENCE
    from viz.sampling import SHOWN

    at = open_real_model(rm_model=SMOLLM2_LABEL, **query)
    assert_no_exception(at)
    sampling = Sampling(float(query.get("rm_temperature", 1.0)), int(query.get("rm_top_k", 0)),
                        float(query.get("rm_top_p", 1.0)))
    result = processed(smollm2.recent(query.get("sentence", DEFAULT_SENTENCE)).logits, sampling)
    top = np.argsort(-result.before, kind="stable")[:SHOWN]
    shown = shown_table(at, "rm-sampling")
    assert list(shown["next token"]) == [smollm2.show(smollm2.vocabulary[i]) for i in top]
    for text, i in zip(shown["p"], top, strict=True):
        assert_reads(text, float(result.before[i]))
    for text, i in zip(shown[f"p at T = {sampling.temperature:g}"], top, strict=True):
        assert_reads(text, float(result.tempered[i]))
    for text, i in zip(shown["p sampled from"], top, strict=True):
        if result.kept[i]:
            assert_reads(text, float(result.after[i]))
        else:
            assert text == "cut"
    text = " ".join(readable(m.value) for m in at.markdown)
    count = int(result.kept.sum())
    if sampling.top_k or sampling.top_p < 1:
        m = re.search(rf"\*\*{count:,} tokens?\*\*, holding (?:\(?{NUMBER}\)? ÷ \(?{NUMBER}\)? [=≈] {NUMBER} of what "
                      rf"top-k left \()?({NUMBER}) of the probability at T", text)
        assert m, text
        assert_reads(m.group(1), result.tempered[result.kept].sum(),
                     below_1=bool((result.tempered[~result.kept] > 0).any()))  # below 1 where a token was cut
    else:
        assert "none is cut" in text
    chosen = draw(result.after, int(query.get("rm_draw", 0)))
    name = smollm2.show(smollm2.vocabulary[chosen.token])
    assert_reads(re.search(r"u = ([0-9.]+),", text).group(1), chosen.u)
    assert f"so the next token is **“{name}”**" in text
    for key, value in query.items():
        assert at.query_params[key] == value


# --- what the page writes: the sums, the table's numbers and the draw, read back as a learner reads them ------------

SENTENCES = ["This forum is awesome", "Jindřich says: naïve café 你好 🤗!", "a", "the the the the"]
_SUPERSCRIPTS = dict(zip("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789", strict=True))
HELD_SLACK = Fraction(1, 2 * 10**6)  # the app holds every number at six decimals before it rounds (viz.arithmetic)


# a number as the page writes a probability: 0.326, 0.00072, 7.2 × 10⁻⁸, 0.99993, 1 − 7.2 × 10⁻⁸
NUMBER = r"(?:1 − )?[0-9.]+(?: × 10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?"


def read(text: str) -> tuple[Fraction, Fraction]:
    """A written number ("0.00072", "7.2 × 10⁻⁸", "1 − 7.2 × 10⁻⁸") as a learner reads it: its value and one unit of
    its last digit. Written here, not taken from viz.sampling: the test reads the page's text on its own."""
    if text.startswith("1 − "):
        value, unit = read(text.removeprefix("1 − "))
        return 1 - value, unit
    mantissa, _, power = text.partition(" × 10")
    exponent = int("".join(_SUPERSCRIPTS[c] for c in power)) if power else 0
    assert re.fullmatch(r"[0-9]+(\.[0-9]+)?", mantissa), text
    decimals = len(mantissa.partition(".")[2])
    return Fraction(mantissa) * Fraction(10) ** exponent, Fraction(10) ** (exponent - decimals)


def significant(value: Fraction, unit: Fraction) -> int:
    """The significant digits a written number shows of a small number: "0.00072" two, "0.010" two, "0.326" three;
    from 0.5 on, of what it leaves to 1 (what a probability near 1 is told apart by): "0.99993" two (0.00007 to 1),
    "1 − 7.2 × 10⁻⁸" two, "1.000" none."""
    small = value if value < Fraction(1, 2) else 1 - value
    return len(str(int(small / unit))) if small > 0 else 0


def assert_reads(text: str, x: float, below_1: bool | None = None) -> None:
    """``text`` is ``x`` as written: within half a unit of its last digit (and the app's six-decimal holding); a
    number above 0 reads above 0 with at least two significant digits, and one below 1 (``below_1``: as it is on
    paper, where the float ``x`` has lost it; else ``x`` < 1) reads below 1 with two significant digits of what it
    leaves to 1 (the mirror: "1.000" would read as if nothing were left)."""
    value, unit = read(text)
    assert abs(value - Fraction(x)) <= unit / 2 + HELD_SLACK, (text, x)
    if x > 0:
        assert value > 0 and (value >= Fraction(1, 2) or significant(value, unit) >= 2), (text, x)
    if x < 1 if below_1 is None else below_1:
        assert value < 1 and (value < Fraction(1, 2) or significant(value, unit) >= 2), (text, x)


_logits: dict[str, np.ndarray] = {}


def page_sampling(model, sentence: str, sampling: Sampling, seed: int = 0):
    """The engine's sampling of the sentence, its draw, and what the page shows of them (``ui.models.sampled_of``)."""
    from viz import sampling as S
    if sentence not in _logits:
        _logits[sentence] = model.recent(sentence).logits
    result = processed(_logits[sentence], sampling)
    chosen = draw(result.after, seed)
    return result, chosen, S.sampled(result, chosen, lambda i: model.show(model.vocabulary[i]))


def table_cells(frame) -> dict[str, list[str]]:
    """The table's cells as the page writes them: text as it is, a number at the three decimals ui/sampling.py gives
    the table (so that this test reads a column of numbers as the learner would, had the page sent numbers)."""
    from viz.labels import format_number
    return {c: [v if isinstance(v, str) else format_number(float(v), 3) for v in frame[c]] for c in frame.columns}


sentences = st.sampled_from(SENTENCES)
temperatures = st.sampled_from(SAMPLING_TEMPERATURES)
top_ks = st.one_of(st.just(0), st.integers(1, 15), st.integers(16, MAX_TOP_K))
top_ps = st.sampled_from(TOP_PS)


@settings(max_examples=60, deadline=None)
@given(sentence=sentences, t=temperatures, k=top_ks, top_p=top_ps)
@example(sentence=SENTENCES[0], t=1.0, k=5, top_p=0.9)  # the audit's: "more than 0.9", then 0.804
@example(sentence=SENTENCES[0], t=5.0, k=5, top_p=0.9)
@example(sentence=SENTENCES[0], t=0.1, k=0, top_p=0.05)
def test_top_p_is_said_to_measure_what_top_k_left_and_the_sum_it_keeps_is_the_one_shown(smollm2, sentence, t, k,
                                                                                          top_p):
    """Top-p measures the distribution top-k left, renormalised (Hugging Face's order): the text says so, and the sum
    it writes beside "add up to at least p" is that distribution's, read at the decimals written, at least p. The
    masses written are the engine's, and a written quotient adds up (or says ≈)."""
    from viz import sampling as S
    if top_p >= 1:
        return
    result, _, shown = page_sampling(smollm2, sentence, Sampling(t, k, top_p))
    text = S.kept_text(shown)
    # what a learner reads: "add up to at least p", then the sum kept, which must be at least p
    said = re.search(rf"add up to (?:more than|at least) ([0-9.]+): \*\*[0-9,]+ tokens?\*\*, holding "
                     rf"(?:\(?{NUMBER}\)? ÷ \(?{NUMBER}\)? [=≈] )?(?:≈ )?({NUMBER})", text)
    assert said, text
    threshold, share = said.groups()
    assert float(threshold) == top_p
    assert read(share)[0] >= Fraction(str(top_p)) or result.kept.sum() == 1, text
    count = rf"\*\*{int(result.kept.sum()):,} tokens?\*\*"
    if k > 0:
        m = re.search(rf"add up to at least [0-9.]+: {count}, holding (\(?{NUMBER}\)?) ÷ (\(?{NUMBER}\)?) (=|≈) "
                      rf"({NUMBER}) of what top-k left \(({NUMBER}) of the probability at T\)", text)
        assert m and "Top-p then measures what top-k left, renormalised" in text, text
        numerator, denominator, relation, share, again = m.groups()
        for factor in (numerator, denominator):  # "1 − 2.0 × 10⁻⁷" in parentheses, so that ÷ takes all of it
            assert factor.startswith("(") == ("−" in factor) == factor.endswith(")"), m.group(0)
        numerator, denominator = numerator.strip("()"), denominator.strip("()")
        left, kept = result.left_by_top_k, result.kept  # below 1 where the cut hold more than 0 (the next test)
        assert_reads(share, result.top_p_measures[kept].sum(),  # the sum top-p measured
                     below_1=bool((result.top_p_measures[left & ~kept] > 0).any()))
        assert_reads(numerator, result.tempered[kept].sum(), below_1=bool((result.tempered[~kept] > 0).any()))
        assert_reads(denominator, result.tempered[left].sum(), below_1=bool((result.tempered[~left] > 0).any()))
        assert again == numerator and f"which hold {denominator} of the probability at T" in text
        assert f"each of their probabilities divided by {denominator}, so that they add up to 1" in text
        (n, _), (d, _), (r, unit) = read(numerator), read(denominator), read(share)
        assert relation == "≈" or 2 * abs(n / d - r) < unit, m.group(0)  # a learner's own division gives it
    else:
        m = re.search(rf"add up to at least [0-9.]+: {count}, holding ({NUMBER}) of the probability at T", text)
        assert m, text
        assert_reads(m.group(1), result.tempered[result.kept].sum(),  # at T, with nothing cut before
                     below_1=bool((result.tempered[~result.kept] > 0).any()))


@settings(max_examples=60, deadline=None)
@given(sentence=sentences, t=temperatures, k=top_ks, top_p=top_ps)
@example(sentence="the the the the", t=0.1, k=3, top_p=0.95)  # top-p cuts 2.3 × 10⁻⁸ of what top-k left: "1.000"
@example(sentence="the the the the", t=0.1, k=0, top_p=0.9)  # one token kept, 1 − 2.3 × 10⁻⁸ of p at T: "1.000"
@example(sentence="the the the the", t=0.1, k=5, top_p=1.0)  # top-k alone
@example(sentence=SENTENCES[0], t=0.1, k=2, top_p=0.95)  # top-p cuts nothing: all of what top-k left, 1
def test_a_share_or_mass_below_1_reads_below_1_with_two_digits_of_what_it_leaves(smollm2, sentence, t, k, top_p):
    """Every share and mass the text writes ("which hold L of the probability at T", "divided by L", "holding K ÷ L
    = S of what top-k left", "holding K of the probability at T") is the engine's, and reads below 1 wherever the
    tokens cut hold more than 0 in the engine's numbers, with two significant digits of what it leaves to 1 (issue
    43's audit: at T = 0.1 top-p cut a token and the text said "1.000 ÷ 1.000 = 1.000 of what top-k left"). Where
    nothing is cut, it is 1. Whether anything is cut is read from the engine's masks and probabilities, not from
    the sums the page writes (a float sum near 1 loses what it leaves below 10⁻¹⁶)."""
    from viz import sampling as S
    result, _, shown = page_sampling(smollm2, sentence, Sampling(t, k, top_p))
    text = S.kept_text(shown)
    if k <= 0 and top_p >= 1:
        assert "none is cut" in text
        return
    left, kept, tempered = result.left_by_top_k, result.kept, result.tempered
    top_k_cut = bool((tempered[~left] > 0).any())  # what top-k cut holds more than 0 at T
    any_cut = bool((tempered[~kept] > 0).any())
    top_p_cut = bool((result.top_p_measures[left & ~kept] > 0).any())  # top-p cut some of what top-k left
    written: list[tuple[str, float, bool]] = []  # (as written, the engine's number, below 1 in the engine's numbers)
    if k > 0 and top_p < 1:
        m = re.search(rf"which hold ({NUMBER}) of the probability at T\. Top-p then measures what top-k left, "
                      rf"renormalised: each of their probabilities divided by ({NUMBER}), so that they add up to 1\. "
                      rf".*holding \(?({NUMBER})\)? ÷ \(?({NUMBER})\)? [=≈] ({NUMBER}) of what top-k left "
                      rf"\(({NUMBER}) of the probability at T\)\. Their probabilities at T are divided by ({NUMBER}),",
                      text)
        assert m, text
        hold, divided, numerator, denominator, share, again, divisor = m.groups()
        assert hold == divided == denominator and numerator == again == divisor, text
        written += [(hold, tempered[left].sum(), top_k_cut), (numerator, tempered[kept].sum(), any_cut),
                    (share, result.top_p_measures[kept].sum(), top_p_cut)]
    else:
        m = re.search(rf": \*\*[0-9,]+ tokens?\*\*, holding ({NUMBER}) of the probability at T\. Their probabilities "
                      rf"at T are divided by ({NUMBER}),", text)
        assert m and m.group(1) == m.group(2), text
        written.append((m.group(1), tempered[kept].sum(), any_cut))
    for number, x, below_1 in written:
        assert_reads(number, float(x), below_1=below_1)
        assert (read(number)[0] == 1) == (not below_1), (number, text)  # and nothing cut reads 1


@settings(max_examples=60, deadline=None)
@given(sentence=sentences, t=temperatures, k=top_ks, top_p=top_ps)
@example(sentence=SENTENCES[0], t=0.5, k=0, top_p=0.9)  # the audit's 0.527 + 0.392 + 0.080 = 0.999
@example(sentence=SENTENCES[0], t=0.3, k=5, top_p=1.0)
@example(sentence=SENTENCES[0], t=0.1, k=12, top_p=1.0)  # kept tokens far below 10⁻⁶
@example(sentence="the the the the", t=0.1, k=2, top_p=1.0)  # no cell of plain decimals: the test's max() of none
@example(sentence="the the the the", t=0.1, k=3, top_p=1.0)  # three powers of ten, 1 + 3 × 10⁻¹⁰ as written
@example(sentence="the the the the", t=0.1, k=5, top_p=1.0)  # five powers of ten, 1 + 7.1 × 10⁻¹⁰: not 1 at 10⁻⁹
def test_where_the_table_shows_every_kept_token_their_column_adds_up_to_1_as_written_or_says_so(smollm2, sentence,
                                                                                               t, k, top_p):
    """"divided by that sum, so that they add up to 1": where all the kept tokens are in the table, their column
    “p sampled from”, read as written, adds up to 1 at the precision of its coarsest number, or the text says ≈ 1."""
    from viz import sampling as S
    if k <= 0 and top_p >= 1:
        return
    result, _, shown = page_sampling(smollm2, sentence, Sampling(t, k, top_p))
    cells = [c for c in table_cells(S.sampling_frame(shown))["p sampled from"] if c != S.CUT]
    text = S.kept_text(shown)
    assert "so that they add up to 1" in text
    if len(cells) < result.kept.sum():
        return  # the table shows twelve of them: there is nothing to add up
    if "adds up to ≈ 1" in text:
        return
    total = sum((read(c)[0] for c in cells), Fraction(0))
    # within half a unit of the coarsest number's last digit, powers of ten included: "1 − 1.9 × 10⁻⁸", "1.4 × 10⁻⁸"
    # and "5.3 × 10⁻⁹" add up to 1 + 3 × 10⁻¹⁰, 1 at the first one's 10⁻⁹ (a test that asked for exactly 1 failed it)
    assert 2 * abs(total - 1) < max(read(c)[1] for c in cells), (cells, float(total))
    assert "adds up to 1 as written" in text


@settings(max_examples=60, deadline=None)
@given(sentence=sentences, t=temperatures, k=top_ks, top_p=top_ps)
@example(sentence=SENTENCES[0], t=5.0, k=5, top_p=1.0)  # the audit's: p at T = 5 read 0.000 on every row
@example(sentence=SENTENCES[0], t=5.0, k=0, top_p=1.0)
@example(sentence=SENTENCES[0], t=0.1, k=0, top_p=1.0)  # p at T far below 10⁻⁶ from rank 4
@example(sentence="the the the the", t=0.1, k=0, top_p=1.0)  # the likeliest: 1 − 2.3 × 10⁻⁸ at T, read "1.000"
@example(sentence="1, 2, 3, 4,", t=0.1, k=5, top_p=1.0)  # the likeliest leaves 6.3 × 10⁻¹⁶; its float, 1 − 6.7 × 10⁻¹⁶
def test_every_probability_in_the_table_reads_the_engines_number_and_none_above_0_reads_0(smollm2, sentence, t, k,
                                                                                          top_p):
    """The table's p, p at T (the softmax of z / T over the whole vocabulary) and p sampled from are the engine's,
    at high T and low T: a number above 0 reads above 0, with two significant digits, and one below 1 reads below 1,
    with two significant digits of what it leaves to 1, which is what the other tokens hold (their sum: a float near
    1 holds no remainder below 10⁻¹⁶); a cut token reads "cut". The
    chart's bar labels (two decimals) read "<0.01" for a number above 0 that two decimals would write 0.00."""
    from viz import sampling as S
    result, _, shown = page_sampling(smollm2, sentence, Sampling(t, k, top_p))
    cells = table_cells(S.sampling_frame(shown))
    top = np.argsort(-result.before, kind="stable")[:S.SHOWN]
    columns = [("p", result.before), (f"p at T = {t:g}", result.tempered), ("p sampled from", result.after)]
    for column, numbers in columns:  # first: nothing above 0 reads as 0, nothing kept reads "cut" or 0
        for text, i in zip(cells[column], top, strict=True):
            assert (text == S.CUT) == (column == "p sampled from" and not result.kept[i]), (column, text)
            assert text == S.CUT or numbers[i] == 0 or read(text)[0] > 0, (column, text, numbers[i])
    for column, numbers in columns:  # then: each is the engine's number, with two significant digits
        for text, i in zip(cells[column], top, strict=True):
            if text != S.CUT:
                assert_reads(text, float(numbers[i]))
                value, unit = read(text)
                if value >= Fraction(1, 2):  # what it leaves to 1 is what the others hold, summed exactly (fsum)
                    others = math.fsum(np.delete(numbers, i).tolist())
                    assert 2 * abs(1 - value - Fraction(others)) <= unit, (column, text, others)
    from tests.svg_reading import texts
    labels = texts(S.sampling_figure(shown), "barlabel")  # the chart's bars: the model's p, then the p sampled from
    for label, x, kept in zip(labels, [*result.before[top], *result.after[top]], [True] * len(top) + [
            bool(result.kept[i]) for i in top], strict=True):
        if not kept:
            assert label == S.CUT
        elif label == "<0.01":  # a bar too short to read, above 0
            assert 0 < x < 0.005 + 5e-7, (label, x)
        else:  # two decimals, and nothing above 0 reads 0.00
            assert abs(read(label)[0] - Fraction(float(x))) <= Fraction(1, 200) + HELD_SLACK and read(label)[0] > 0


def assert_draw_reads(text: str, u: float, start: float, end: float, p: float) -> None:
    """The draw as written: u, its slice [a, b) and b − a read back from the text; a ≤ u < b at the decimals shown, a
    non-empty slice, each the engine's number, and b − a as written gives the p written. "≈" only where no decimals
    can give it (the slice's exact length, its float ends taken as they are, does not round to p: with enough
    decimals the written ends are those) and the written b − a is within rounding of p (half a unit of its last
    digit); where even that fails, the text says what b − a is, and that p is not it (issue 43's audit: at T = 2,
    seed 9, "[0.8702, 0.8703) (0.8703 − 0.8702 ≈ 0.000011, its p sampled from)", a slice nine times p)."""
    m = re.search(r"u = ([0-9.]+), a number", text)
    inside = re.search(r"slice, \[([0-9.]+), ([0-9.]+)\)", text)
    assert m and inside, text
    (x, unit), (a, unit_a), (b, unit_b) = read(m.group(1)), read(inside.group(1)), read(inside.group(2))
    assert a <= x < b and a < b, text  # u inside its slice, and the slice not empty, as written
    assert unit == unit_a == unit_b, text  # one precision for the three
    slack = unit / 2 + (HELD_SLACK if unit >= Fraction(1, 10**6) else 0)
    assert abs(x - Fraction(u)) <= slack and abs(a - Fraction(start)) <= slack and abs(b - Fraction(end)) <= slack
    s = re.search(r"slice, \[[0-9.]+, [0-9.]+\) \(([0-9.]+) − ([0-9.]+) (=|≈) (.+?), its p sampled from\)", text)
    length = Fraction(end) - Fraction(start)  # the slice as the engine laid it, exactly
    if s is None:  # no decimals give p, nor within rounding: "b − a = …; its p sampled from is …, which no number …"
        s = re.search(r"slice, \[[0-9.]+, [0-9.]+\) \(([0-9.]+) − ([0-9.]+) = ([0-9.]+); its p sampled from is (.+?), "
                      r"which no number of decimals gives here: (?:the slices' ends are running sums held as 64-bit "
                      r"floats, rounded to about 16 significant digits|its slice ends at p held as a 64-bit float, "
                      r"about 16 significant digits, and that float is not p)\)", text)
        assert s and (s.group(1), s.group(2)) == (inside.group(2), inside.group(1)), text
        assert read(s.group(3))[0] == b - a, text  # the subtraction as written
        assert_reads(s.group(4), p)
        value, p_unit = read(s.group(4))
        assert 2 * abs(length - value) > p_unit, text  # even the float ends written in full are not within rounding
        return
    assert (s.group(1), s.group(2)) == (inside.group(2), inside.group(1)), text
    assert_reads(s.group(4), p)
    value, p_unit = read(s.group(4))
    if s.group(3) == "=":
        assert 2 * abs((b - a) - value) < p_unit, text  # b − a as written gives the p written
    else:
        assert 2 * abs((b - a) - value) <= p_unit, text  # "≈": within rounding of p
        assert 2 * abs(length - value) >= p_unit, text  # and no decimals give "=": not even the ends in full


@settings(max_examples=80, deadline=None)
@given(sentence=sentences, t=temperatures, k=top_ks, top_p=top_ps, seed=st.one_of(st.integers(0, 20),
                                                                                  st.integers(0, MAX_SEED)))
@example(sentence=SENTENCES[0], t=5.0, k=0, top_p=1.0, seed=0)  # the audit's: u = 0.6370 in [0.6369, 0.6370)
@example(sentence=SENTENCES[0], t=2.0, k=0, top_p=1.0, seed=0)
@example(sentence="1, 2, 3, 4,", t=0.1, k=5, top_p=1.0, seed=0)  # the slice [0, 1 − 6.7 × 10⁻¹⁶) as floats laid it
def test_the_draw_writes_u_inside_its_slice_at_the_decimals_it_shows(smollm2, sentence, t, k, top_p, seed):
    """Seeds × temperatures × top-k/top-p on SmolLM2: the written u lies in the written slice, which is not empty;
    the slice is the drawn token's (the last one ends at 1, where the slices end on paper)."""
    from viz import sampling as S
    result, chosen, shown = page_sampling(smollm2, sentence, Sampling(t, k, top_p), seed)
    text = S.draw_text(shown, seed)
    position = int(np.flatnonzero(chosen.order == chosen.token)[0])
    start = float(chosen.ends[position - 1]) if position else 0.0
    end = 1.0 if position == chosen.order.size - 1 else float(chosen.ends[position])
    assert_draw_reads(text, chosen.u, start, end, float(result.after[chosen.token]))
    assert f"so the next token is **“{markdown_text(smollm2.show(smollm2.vocabulary[chosen.token]))}”**" in text


close_floats = st.floats(0, 1, exclude_max=True).flatmap(
    lambda u: st.tuples(st.just(u), st.integers(0, 3), st.integers(1, 3), st.floats(0, 1e-3)))


@settings(max_examples=300, deadline=None)
@given(case=close_floats)
def test_u_reads_inside_its_slice_even_a_hair_from_its_ends(smollm2, case):
    """Slices as narrow as a few floats, u one float from either end: the decimals grow until the written u is inside
    the written slice."""
    import dataclasses
    u, below, above, width = case
    start, end = u, u
    for _ in range(below):
        start = float(np.nextafter(start, 0.0))
    for _ in range(above):
        end = float(np.nextafter(end, 1.0))
    end = min(1.0, end + width)
    assert start <= u < end
    _, _, shown = page_sampling(smollm2, SENTENCES[0], Sampling(5.0, 0, 1.0))
    from viz import sampling as S
    text = S.draw_text(dataclasses.replace(shown, u=u, slice_start=start, slice_end=end, drawn_p=end - start), 0)
    assert_draw_reads(text, u, start, end, end - start)


@pytest.mark.parametrize("start,end,p,relation", [
    (0.5, 0.5625, 0.0625, "="),  # the slice 0.0625 on p's rounding boundary, but the ends written give 0.563 − 0.500
    (0.1875, 0.25, 0.0625, "≈"),  # the same slice where they give 0.062: no decimals give 0.063, 0.0625 is within
    (0.5, 0.5625, 0.0637, ""),  # a slice 0.0012 short of p (constructed; the float ends differ from p by ~10⁻¹⁶)
])
def test_the_draw_says_approximately_only_within_rounding_and_otherwise_what_b_minus_a_is(smollm2, start, end, p,
                                                                                          relation):
    """The three ways the draw writes its slice's length: "=" (the written b − a gives p), "≈" (no decimals do, and
    the written b − a is within rounding of p), and, where not even that holds, "b − a = …; its p sampled from is
    …, which no number of decimals gives here" (each checked by ``assert_draw_reads``)."""
    import dataclasses

    from viz import sampling as S
    _, _, shown = page_sampling(smollm2, SENTENCES[0], Sampling(5.0, 0, 1.0))
    u = start + 0.01
    text = S.draw_text(dataclasses.replace(shown, u=u, slice_start=start, slice_end=end, drawn_p=p), 0)
    assert_draw_reads(text, u, start, end, p)
    said = re.search(r"\) \([0-9.]+ − [0-9.]+ (=|≈) [0-9.]+(, its p sampled from|; its p sampled from is)", text)
    assert said and (said.group(1) if said.group(2) == ", its p sampled from" else "") == relation, text


def label_boxes(fig) -> tuple[list[tuple[float, float, float, float, str]], list[tuple[float, float, float, float]]]:
    """The chart's bar labels as boxes (x0, y0, x1, y1, text) of their estimated width (the text's length measured at
    its size) and their type's height above the baseline, and its bars' boxes, read from the markup."""
    from tests.svg_reading import elements
    from viz.svg import text_width
    labels = []
    for t in elements(fig, "text", "barlabel"):
        content, size, x, y = "".join(t.itertext()), float(t.get("font-size", 13)), float(t.get("x")), float(t.get("y"))
        assert t.get("text-anchor") == "middle" and t.get("dominant-baseline") == "auto"
        w = text_width(content, size)
        labels.append((x - w / 2, y - size, x + w / 2, y, content))
    bars = [(float(b.get("x")), float(b.get("y")), float(b.get("x")) + float(b.get("width")),
             float(b.get("y")) + float(b.get("height"))) for b in elements(fig, "rect", "bar")]
    return labels, bars


def overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@settings(max_examples=150, deadline=None)
@given(logits=st.lists(st.sampled_from([0.0, 0.0, 1e-9, 0.5, 0.5 + 1e-9, 1.0, 1.0, 2.0, 3.0, -1.0, -5.0, 8.0]) |
                       st.floats(-8, 8, allow_nan=False), min_size=2, max_size=40),
       t=st.sampled_from(SAMPLING_TEMPERATURES), k=st.integers(0, 20), top_p=st.sampled_from(TOP_PS))
@example(logits=[0.0] * 12, t=1.0, k=0, top_p=1.0)  # twelve ties: every pair "0.08" beside "0.08"
@example(logits=[0.0, 0.0, 0.0, 0.0], t=1.0, k=0, top_p=1.0)  # "0.250.25" (issue 47)
@example(logits=[0.0, 1e-9, 2e-9, 3e-9] * 3, t=1.0, k=0, top_p=1.0)  # near-ties
@example(logits=[8.0] + [-8.0] * 30, t=2.0, k=0, top_p=1.0)  # one token far ahead: its labels at the top
def test_the_sampling_charts_labels_never_print_over_each_other_a_bar_or_the_title(logits, t, k, top_p):
    """Issue 47: the two labels of a token's pair of bars stood side by side at the same height and printed over
    each other ("0.250.25"). Over distributions with ties and near-ties, every setting: no two labels' boxes
    (estimated from their texts' lengths) overlap, none lies on a bar, none reaches the title."""
    from viz import sampling as S
    from viz.svg import TITLE_BOTTOM
    result = processed(np.array(logits), Sampling(t, k, top_p))
    shown = S.sampled(result, draw(result.after, 0), lambda i: f"tok{i}")
    labels, bars = label_boxes(S.sampling_figure(shown))
    assert len(labels) == 2 * len(shown.tokens)
    for i, a in enumerate(labels):
        assert a[1] >= TITLE_BOTTOM, a
        assert not [b for b in labels[i + 1:] if overlap(a, b)], (a, [b for b in labels[i + 1:] if overlap(a, b)])
        assert not [b for b in bars if overlap(a, b)], a
