"""attention/sampling.py: temperature, top-k and top-p against Hugging Face's logits processors (golden files written
by tests/by_hand/make_sampling_golden.py), against the definitions written as loops, and as properties; the draw."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attention.sampling import ROUNDING, Sampling, draw, processed

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
    {"rm_top_k": "1"},  # greedy
    {"rm_top_k": "1000", "rm_temperature": "0.1", "rm_draw": "999999"},
    {"sentence": "Jindřich says: naïve café 你好 🤗!", "rm_temperature": "1.5", "rm_top_p": "0.8", "rm_draw": "7"},
    {"sentence": "a", "rm_top_p": "0.5", "rm_draw": "1"},  # one token
]


@pytest.mark.parametrize("query", PAGE_STATES)
def test_the_page_shows_the_engines_sampling_of_the_learners_sentence(smollm2, query):
    """The table, the kept count and mass, and the draw are the engine's, on the learner's sentence and settings;
    the settings are in the link."""
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
    assert [float(x) for x in shown["p"]] == [round(float(p), 3) for p in result.before[top]]
    assert list(shown["p sampled from"]) == [f"{p:.3f}" if kept else "cut" for p, kept in
                                             zip(result.after[top], result.kept[top], strict=True)]
    text = " ".join(readable(m.value) for m in at.markdown)
    count = int(result.kept.sum())
    if sampling.top_k or sampling.top_p < 1:
        assert f"**{count:,} token{'s' if count != 1 else ''}**, holding" in text
        assert f"{result.tempered[result.kept].sum():.3f} of the probability at T" in text
    else:
        assert "none is cut" in text
    chosen = draw(result.after, int(query.get("rm_draw", 0)))
    name = smollm2.show(smollm2.vocabulary[chosen.token])
    assert f"u = {chosen.u:.4f}" in text and f"so the next token is **“{name}”**" in text
    for key, value in query.items():
        assert at.query_params[key] == value
