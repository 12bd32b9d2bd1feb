"""From random to trained and back (issue 36, ui/bridge.py): the focus measure (attention/focus.py) against its
definition, the head it picks against a brute-force search, and the pages' bridge both ways on varied sentences:
the step, the head, and the measured sentence read from the traces the pages show."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from streamlit.testing.v1 import AppTest

from attention.focus import SINK, entropy_share, most_informative_head
from attention.pretrained import MODELS
from tests.table_reading import readable
from tests.test_pages import APP, TIMEOUT, assert_no_exception


def test_uniform_rows_share_one_one_hot_rows_share_zero_and_single_key_rows_are_left_out():
    n = 5
    causal = np.tril(np.ones((n, n), dtype=bool))
    uniform = causal / causal.sum(axis=1, keepdims=True)
    assert entropy_share(uniform, causal) == pytest.approx(1.0)
    one_hot = np.eye(n)[[0, 0, 1, 2, 3]]  # each row all on one key it may see
    assert entropy_share(one_hot, causal) == pytest.approx(0.0)
    half = np.zeros((2, 2))
    half[0] = [1, 0]
    half[1] = [0.5, 0.5]
    assert entropy_share(half, np.tril(np.ones((2, 2), dtype=bool))) == pytest.approx(1.0)  # row 0 sees one key
    assert entropy_share(np.ones((1, 1)), np.ones((1, 1), dtype=bool)) is None


def row_shares_by_loops(weights, allowed) -> float | None:
    shares = []
    for row, ok in zip(weights, allowed, strict=True):
        keys = [w for w, a in zip(row, ok, strict=True) if a]
        if len(keys) >= 2:
            shares.append(-sum(w * math.log(w) for w in keys if w > 0) / math.log(len(keys)))
    return sum(shares) / len(shares) if shares else None


def alphas(n: int, heads: int = 1):
    """Row-stochastic [heads, n, n] under a causal mask."""
    return hnp.arrays(np.float64, (heads, n, n), elements=st.floats(0, 5)).map(
        lambda a: np.where(np.tril(np.ones((n, n), dtype=bool)), np.exp(a), 0.0)).map(
        lambda e: e / e.sum(axis=-1, keepdims=True))


@settings(max_examples=100, deadline=None)
@given(data=st.data(), n=st.integers(1, 8))
def test_the_share_is_the_mean_normalised_row_entropy_and_lies_in_0_1(data, n):
    weights = data.draw(alphas(n))[0]
    allowed = np.tril(np.ones((n, n), dtype=bool))
    got, want = entropy_share(weights, allowed), row_shares_by_loops(weights, allowed)
    assert (got is None) == (want is None)
    if got is not None:
        assert got == pytest.approx(want, abs=1e-12) and -1e-12 <= got <= 1 + 1e-12


@settings(max_examples=100, deadline=None)
@given(data=st.data(), n=st.integers(2, 7), layers=st.integers(1, 3), heads=st.integers(1, 4))
def test_the_head_picked_is_the_most_focused_of_those_that_are_not_sinks(data, n, layers, heads):
    weights = np.stack([data.draw(alphas(n, heads)) for _ in range(layers)])  # [layers, heads, n, n]
    allowed = np.tril(np.ones((n, n), dtype=bool))
    best = most_informative_head(weights, allowed, [0])
    every = [(lay, h) for lay in range(layers) for h in range(heads)]
    words = [c for c in every if weights[c][:, 0].mean() < SINK]
    pool = words or every
    lowest = min(row_shares_by_loops(weights[c], allowed) for c in pool)
    assert (best.layer, best.head) in pool
    assert best.share == pytest.approx(lowest, abs=1e-12)
    assert best.sinks_passed_over == (len(every) - len(words) if words else 0)


# --- the pages ----------------------------------------------------------------------------------------------------

SENTENCES = ["This forum is awesome", "The cat sat on the mat because it was tired", "a",
             "Jindřich says: naïve café 你好 🤗!", "to be or not to be, that is the question", "1 2 3 4 5 6 7 8 9 10"]


def info_text(at) -> str:
    return " ".join(readable(i.value) for i in at.info)


@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize("sentence,step", [(s, k) for s, k in zip(SENTENCES, [7, 5, 8, 6, 1, 4], strict=True)])
def test_the_bridge_opens_the_same_sentence_and_step_on_the_most_focused_head_and_back(name, sentence, step,
                                                                                      minilm, smollm2):
    """Walkthrough → a real model → walkthrough: the step by its title, the head the measure picks on the model's α
    of that sentence, and each page's sentence with the two shares read from the traces the pages show."""
    from ui.walkthrough import STEPS, steps_for
    model = {"minilm": minilm, "smollm2": smollm2}[name]
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update({"sentence": sentence, "step": str(step), "seed": "7", "d_k": "3"})
    at.run()
    random = entropy_share(*_walkthrough_trace(sentence, seed=7, d_k=3))
    at.button(key=f"bridge_{name}").click().run()
    assert_no_exception(at)
    tokens, weights = model.attentions(sentence)
    n = len(tokens)
    allowed = np.tril(np.ones((n, n), dtype=bool)) if MODELS[name].kind == "decoder" else np.ones((n, n), bool)
    best = most_informative_head(weights, allowed, [0] if MODELS[name].kind == "decoder" else [0, n - 1])
    at.switch_page("lessons/real_model.py").run()  # (AppTest does not follow st.switch_page itself)
    assert_no_exception(at)
    assert at.radio(key="rm_model").value == name
    assert (at.selectbox(key="rm_layer").value, at.selectbox(key="rm_head").value) == (best.layer + 1, best.head + 1)
    trace = model.head_trace(sentence, best.layer, best.head)
    real_step = at.selectbox(key="rm_step").value
    assert steps_for(trace)[real_step - 1][0] == STEPS[step - 1][0]  # the same step, by its title
    trained = entropy_share(trace.weights, trace.mask)
    text = info_text(at)
    shown = fmt(trained)
    assert f"the walkthrough's random weights {fmt(random)}; " in text
    assert f"layer {best.layer + 1}, head {best.head + 1}, {shown}. This head is the most focused" in text
    if trained is not None and random is not None:
        assert ("more focused: it has learned" in text) == (trained < random)

    at.button(key="bridge_random").click().run()
    at.switch_page("lessons/walkthrough.py").run()
    assert_no_exception(at)
    assert at.selectbox(key="step").value == step
    back = info_text(at)
    assert f"layer {best.layer + 1}, head {best.head + 1}, {shown}; these random weights {fmt(random)}." in back


def fmt(share: float | None) -> str:
    return "not measured (no query sees two keys)" if share is None else f"{share:.2f}"


def _walkthrough_trace(sentence: str, *, seed: int, d_k: int):
    from attention import trace_self_attention
    from ui.settings import DEFAULT_D_MODEL
    trace = trace_self_attention(sentence, d_model=DEFAULT_D_MODEL, d_k=d_k, seed=seed)
    return trace.weights, trace.mask


def test_a_real_heads_step_maps_to_the_walkthroughs_by_its_title_and_rope_to_q_k_v(smollm2, minilm):
    from ui.bridge import _walkthrough_step
    decoder = smollm2.head_trace("The cat sat on the mat", 0, 0)  # steps: …, Q K V, RoPE, scores, …
    assert [_walkthrough_step(decoder, k) for k in range(1, 10)] == [1, 2, 3, 4, 4, 5, 6, 7, 8]
    encoder = minilm.head_trace("The cat sat on the mat", 0, 0)
    assert [_walkthrough_step(encoder, k) for k in range(1, 9)] == list(range(1, 9))


@pytest.mark.parametrize("name", list(MODELS))
def test_all_steps_on_one_page_offer_the_bridge_under_alpha_and_the_way_back_opens_that_one_step(name, minilm,
                                                                                               smollm2):
    """The long page has no open step: the bridge sits once, under α (the rows the measured sentence compares), and
    opens α; coming back from the real head opens the walkthrough on that step alone, with the sentence."""
    from ui.walkthrough import STEPS, steps_for
    from ui.walkthrough_lesson import BRIDGED_STEP
    sentence = SENTENCES[0]
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update({"sentence": sentence, "all_steps": "true"})
    at.run()
    assert len([b for b in at.button if b.key == f"bridge_{name}"]) == 1
    at.button(key=f"bridge_{name}").click().run()
    at.switch_page("lessons/real_model.py").run()
    assert_no_exception(at)
    model = {"minilm": minilm, "smollm2": smollm2}[name]
    trace = model.head_trace(sentence, at.selectbox(key="rm_layer").value - 1, at.selectbox(key="rm_head").value - 1)
    assert steps_for(trace)[at.selectbox(key="rm_step").value - 1][0] == STEPS[BRIDGED_STEP - 1][0]
    assert "From random to trained" in info_text(at)
    at.button(key="bridge_random").click().run()
    at.switch_page("lessons/walkthrough.py").run()
    assert_no_exception(at)
    assert at.toggle(key="all_steps").value is False and at.selectbox(key="step").value == BRIDGED_STEP
    assert "From trained to random" in info_text(at)
