"""Claims of "A real model" (assets/real_model/*.md, the real model's step texts in assets/walkthrough/,
lessons/real_model.py, viz/pretrained.py, attention/pretrained/gallery.py), one test each, over
families of sentences: the gallery's own families (24 varied sentences, some chosen to break a claim;
20 with "it"; 24 induction sequences) and the token families below."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from gguf import GGUFReader
from streamlit.testing.v1 import AppTest

from attention.pretrained import load, package_dir
from attention.pretrained.gallery import (
    GALLERY,
    PRONOUN_SENTENCES,
    TEST_SENTENCES,
    first_token_heads,
    on_next,
    on_previous,
    pronoun_target,
)
from attention.pretrained.smollm2 import GGUF_FILE, rotate
from viz import pretrained as P
from viz.steps import ASSETS

# The two heaviest claims: 216 and 24 × 13-layer forward passes of a 135M-parameter model. pytest-timeout's 300 s
# (pyproject.toml) is a guard against a hang; beside a second test run on 2 cores these took longer than that (a
# fresh clone's `make test` beside two helpers: both timed out at 300 s, passed everywhere quiet), so their guard is
# longer. Nothing here waits for a time.
HEAVY = pytest.mark.timeout(1500)

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
APP = str(Path(__file__).resolve().parents[2] / "app.py")


def family_readings(entry):
    model = load(entry.model)
    for sentence in entry.family:
        tokens, weights = model.attentions(sentence)
        alpha = weights[entry.layer, entry.head]
        yield sentence, tokens, alpha, entry.measure(tokens, alpha)


# --- heads with a job: what the job text says, over the family it names -------------------------------


@pytest.mark.parametrize("entry", GALLERY, ids=lambda g: f"{g.model}-L{g.layer + 1}H{g.head + 1}")
def test_each_gallery_job_holds_on_as_many_family_sentences_as_it_says(entry):
    """ "… on each of the 24 test sentences", "on 22 of the 23 …": the measure reaches ``at_least`` on
    exactly ``holds_on`` of the sentences it can be measured on, and the job text gives both counts."""
    readings = [value for *_, value in family_readings(entry) if value is not None]
    if entry.at_least is not None:
        holds = sum(value >= entry.at_least for value in readings)
        assert holds == entry.holds_on, (holds, readings)
        assert f"at least {entry.at_least}" in entry.job
    counted = f"each of the {len(readings)}" if entry.holds_on == len(readings) else \
        f"{entry.holds_on} of the {len(readings)}"
    assert counted in entry.job, (counted, entry.job)


NOUNS = {"cat", "mat", "fish", "trophy", "suitcase", "dog", "ball", "garden", "phone", "lake", "car", "tree", "teacher",
         "student", "book", "bird", "nest", "river", "town", "table", "robot", "box", "farmer", "cow", "man", "cake",
         "oven", "lamp"}


def test_the_pronoun_head_looks_from_it_at_a_noun_before_it_on_each_sentence(minilm):
    """ "its largest weight (apart from [CLS] and [SEP]) is on a noun before it", on each of the 20."""
    for sentence in PRONOUN_SENTENCES:
        tokens, weights = minilm.attentions(sentence)
        j, _ = pronoun_target(tokens, weights[5, 11])
        assert tokens[j] in NOUNS and j < tokens.index("it"), (sentence, tokens[j])


def test_the_pronoun_head_does_not_follow_what_it_refers_to(minilm):
    """ "not reliably the noun “it” refers to: here “it” is the mat, and the head still looks at “cat”, as
    it does when “it” is the cat": in each minimal pair where "it" changes referent, the head's target
    stays the same noun."""
    pairs = [("The cat sat on the mat because it was soft", "The cat sat on the mat because it was tired"),
             ("The cat ate the fish because it was tasty", "The cat ate the fish because it was hungry"),
             ("The trophy did not fit in the suitcase because it was too small",
              "The trophy did not fit in the suitcase because it was too big"),
             ("The dog chased the ball because it was red", "The dog chased the ball because it was bored")]
    for first, second in pairs:
        assert first in PRONOUN_SENTENCES and second in PRONOUN_SENTENCES
        targets = []
        for sentence in (first, second):
            tokens, weights = minilm.attentions(sentence)
            targets.append(tokens[pronoun_target(tokens, weights[5, 11])[0]])
        assert targets[0] == targets[1], (first, targets)
    tokens, weights = minilm.attentions(GALLERY[3].sentence)
    assert GALLERY[3].sentence.endswith("soft") and tokens[pronoun_target(tokens, weights[5, 11])[0]] == "cat"


def test_the_previous_token_heads_first_row_looks_at_itself(minilm):
    """ "the first row, [CLS], has nothing to its left and looks at itself": at least 0.95, on each sentence."""
    for sentence in TEST_SENTENCES:
        _, weights = minilm.attentions(sentence)
        assert weights[0, 2, 0, 0] >= 0.95, sentence


def test_the_next_token_head_is_often_sharp_and_always_less_sharp_than_the_previous_token_head(minilm):
    """ "on most of them over half the rows have their largest weight there. Less sharp than the
    previous-token head above": per sentence."""
    over_half = 0
    for sentence in TEST_SENTENCES:
        tokens, weights = minilm.attentions(sentence)
        alpha = weights[1, 8]
        over_half += np.mean([alpha[i].argmax() == i + 1 for i in range(len(tokens) - 1)]) > 0.5
        assert on_next(tokens, alpha) < on_previous(tokens, weights[0, 2]), sentence
    assert over_half > len(TEST_SENTENCES) / 2


def test_most_of_the_decoders_heads_are_sinks_on_most_sentences(smollm2):
    """ "Most of this model's heads do this much of the time": on more than half the test sentences of two
    or more tokens, more than half of the 270 heads put most of their weight on the first token."""
    shares = [first_token_heads(*smollm2.attentions(s)) for s in TEST_SENTENCES if len(smollm2.tokenize(s)[1]) > 1]
    assert np.mean(np.array(shares) > 0.5) > 0.5, shares


@pytest.mark.parametrize("entry", GALLERY, ids=lambda g: f"{g.model}-L{g.layer + 1}H{g.head + 1}")
def test_the_reading_on_the_learners_sentence_says_whether_the_head_does_its_job(entry):
    """The gallery's sentence under each job is measured on the learner's sentence: "does its job here"
    exactly when the measure reaches ``at_least``, "nothing to measure" when the sentence lacks what it needs."""
    extra = ("no pronoun here", "A", "it", "I said it, and it stuck")
    for sentence in (*entry.family[:6], *extra):
        tokens, weights = load(entry.model).attentions(sentence)
        alpha = weights[entry.layer, entry.head]
        value, text = entry.measure(tokens, alpha), P.gallery_reading(entry, tokens, alpha)
        if value is None:
            assert "nothing to measure" in text
        elif entry.at_least is None:
            assert f"({value:.2f})" in text
        else:
            assert f"{value:.2f}" in text
            assert ("it does its job here" in text) == (value >= entry.at_least)
            assert ("does not do this job on your sentence" in text) == (value < entry.at_least)


# --- tokens ----------------------------------------------------------------------------------------

UNKNOWN_FAMILY = ["cat😀 is 😀 here", "I ❤ NY", "smile😀", "a 🤗 b c", "good🚀morning", "naïve café ☃", "x ∑ y",
                  "😀", "emoji🙂, please!", "ok 👍🏽 fine", "tea🍵time is now", "mix😀ed😀up", "😀start", "end😀",
                  "two ☂☂ rain", "α β γ", "the ♞ knight", "Ω is fine", "中文 text", "quote ❝ here", "ok🆗 go",
                  "hi 🐍🐍"]


def test_minilm_writes_unk_for_the_whole_word_not_the_character(minilm):
    """ "[UNK] for a word that holds a character its vocabulary lacks: the whole word becomes [UNK], not
    just that character": over 20 sentences, every [UNK] stands for a whole word of the sentence (as BERT
    splits words: at spaces and around punctuation), and that word's letters are not among the tokens."""
    seen = 0
    for sentence in UNKNOWN_FAMILY:
        _, tokens = minilm.tokenize(sentence)
        words = minilm.unknown_words(sentence)
        assert len(words) == tokens.count("[UNK]")
        cursor = 0
        for word in words:
            seen += 1
            start = sentence.index(word, cursor)
            cursor = start + len(word)
            before = sentence[start - 1 : start] or " "
            after = sentence[cursor : cursor + 1] or " "
            assert all(c.isspace() or c in ",.!?" or not c.isascii() for c in before + after), (sentence, word)
            letters = "".join(c for c in word.lower() if c.isascii() and c.isalpha())
            if letters:  # "cat😀": the word's letters are lost with it
                assert letters not in [t.lstrip("#") for t in tokens]
    assert seen >= 20
    assert P.unknown_text(minilm.unknown_words("cat😀 is here")) .count("“cat😀”") == 1


@pytest.mark.parametrize(("text", "expected"), [("Jindřich", "jindrich"), ("NAÏVE Café", "naive cafe"),
                                                ("ÀÉÎÕÜ", "aeiou"), ("Ångström", "angstrom"), ("Zoë", "zoe")])
def test_minilm_is_uncased_and_strips_accents(minilm, text, expected):
    """ "it lower-cases the text and strips accents ("Jindřich" → "jindrich")"."""
    _, tokens = minilm.tokenize(text)
    assert "".join(t.removeprefix("##") if t.startswith("##") else " " + t for t in tokens[1:-1]).strip() == expected


DIGIT_FAMILY = ["In 2024", "It was 1999 and 3 cats", "call 0800 123 456", "x = 3", "pi is 3.14159", "7 days", "a1b2c3",
                "100%", "v2.0 is out", "Room 101", "12:30 pm", "1 2 3 4", "2+2=4", "up 50 percent", "the 1st and 2nd",
                "ISBN 978 0", "see 4 5", "It costs $ 5", "year 2000", "99 bottles"]


def test_every_digit_is_a_token_and_a_space_before_a_digit_is_one_too(smollm2):
    """ "Every digit is a token of its own, so a space before a digit is one too" (SmolLM2), over 20."""
    for sentence in DIGIT_FAMILY:
        _, tokens = smollm2.tokenize(sentence)
        digits = [t for t in tokens if any(c.isdigit() for c in t)]
        assert digits and all(len(t) == 1 for t in digits), tokens
        for k, t in enumerate(tokens[1:], start=1):
            if t.isdigit() and tokens[k - 1].endswith("␣"):
                assert tokens[k - 1] == "␣", tokens
        assert len(smollm2.spaces(sentence)[1]) == sentence.count(" ") - smollm2.spaces(sentence)[0]


def test_a_space_before_a_word_belongs_to_the_words_token(smollm2):
    """ "A space usually belongs to the token after it ("␣cat", "␣.")": before every word of plain letters
    in the test sentences, and before "." — and the page counts it on the learner's sentence."""
    for sentence in [*TEST_SENTENCES, "end .", "a , b"]:
        if not sentence.isascii():
            continue
        _, tokens = smollm2.tokenize(sentence)
        words = sentence.split(" ")[1:]
        starts = [t for t in tokens if t.startswith("␣") and len(t) > 1]
        assert len(starts) == sum(1 for w in words if w and not w[0].isdigit()), (sentence, tokens)
        joined, alone = smollm2.spaces(sentence)
        assert joined == len(starts)
        assert P.spaces_text(joined, alone).startswith(f"Measured on your sentence: {joined} space")


def test_the_decoder_sees_itself_and_the_tokens_before(smollm2):
    """ "each token seeing itself and the tokens before it": in every head, α_ij = 0 for j > i and α_ii > 0."""
    for sentence in TEST_SENTENCES[:8]:
        _, weights = smollm2.attentions(sentence)
        n = weights.shape[-1]
        assert (weights[..., np.triu_indices(n, 1)[0], np.triu_indices(n, 1)[1]] == 0).all()
        assert (np.diagonal(weights, axis1=-2, axis2=-1) > 0).all()


def test_an_emoji_may_be_cut_into_its_bytes_and_a_space_before_it_stays_visible(smollm2):
    """ "A character outside the common ones may be split into pieces of its UTF-8 bytes, shown as ⟨F0 9F⟩";
    a piece that starts with a space shows it as "␣" (0dd9ac2 showed "⟨20 F0 9F 98⟩")."""
    _, tokens = smollm2.tokenize("I 😀 you")
    assert tokens[1] == "␣⟨F0 9F 98⟩" and tokens[2] == "⟨80⟩"
    assert "".join(tokens).count("⟨") == 2


def test_the_vocabularies_have_the_sizes_step_one_says(minilm, smollm2):
    """Step 1 of a real head: "its id in the model's vocabulary (30,522 entries for MiniLM, 49,152 for
    SmolLM2), and a token that appears twice has the same id twice"."""
    assert minilm.tokenizer.get_vocab_size() == 30522
    assert len(smollm2.vocabulary) == smollm2.embedding.shape[0] == 49152
    for model in (minilm, smollm2):
        ids, tokens = model.tokenize("the cat and the dog and the end")
        for a in range(len(tokens)):
            for b in range(len(tokens)):
                assert (ids[a] == ids[b]) == (tokens[a] == tokens[b])


def test_a_real_heads_step_one_shows_the_models_own_tokenizer_text():
    """Step 1 of a real head showed the walkthrough's "words and punctuation marks" on 0dd9ac2."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["rm_step"] = "1"
    at = at.switch_page("lessons/real_model.py").run()
    assert not at.exception
    texts = [m.value for m in at.markdown]
    assert any(t.startswith("These are the model's own tokens") for t in texts)
    assert not any("Real models use sub-word tokenizers" in t.replace("\n", " ") for t in texts)


# --- step 2: what X is ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["minilm", "smollm2"])
def test_x_is_what_the_layer_receives_as_step_two_writes_it(name):
    """Step 2 writes X = LayerNorm(E_word + E_position + E_segment) at MiniLM's layer 1, the output of the
    layer before at later layers, RMSNorm(…)·γ for SmolLM2 (0dd9ac2 wrote Embed(tokens) at every layer):
    X at each golden layer is Hugging Face's hidden state there (tests/by_hand/make_golden.py)."""
    model, golden = load(name), np.load(GOLDEN / f"{name}.npz")
    for s, sentence in enumerate(golden["sentences"]):
        for key in (k for k in golden.files if k.startswith(f"{s}/x/")):
            layer = int(key.rsplit("/", 1)[1])
            trace = model.head_trace(str(sentence), layer, 0)
            np.testing.assert_allclose(trace.x, golden[key], atol=2e-4, err_msg=key)
            said = trace.x_is
            if layer == 0:
                assert ("LayerNorm" in said and "position" in said) if name == "minilm" else "RMSNorm" in said
            else:
                assert f"the output of layer }} {layer}" in said
    if name == "minilm":  # layer 1's X from the weights by hand, in float64
        ids, _ = model.tokenize("This forum is awesome")
        e = (model.word[ids].astype(float) + model.position[: len(ids)] + model.type0)
        normed = (e - e.mean(1, keepdims=True)) / np.sqrt(e.var(1, keepdims=True) + 1e-12)
        np.testing.assert_allclose(model.head_trace("This forum is awesome", 0, 0).x,
                                   normed * model.ln_embed[0] + model.ln_embed[1], atol=1e-4)


# --- the weights: SmolLM2 is quantized, and says so ----------------------------------------------


def test_smollm2s_weights_are_the_quantization_the_page_names():
    """ "the attention and feed-forward matrices as 4-bit numbers (Q4_1), the token embeddings as 8-bit
    (Q8_0), the norms as float32" (0dd9ac2 said "the real, trained matrices" without a word of it)."""
    kinds: dict[str, set[str]] = {}
    for t in GGUFReader(package_dir("smollm2") / GGUF_FILE).tensors:
        part = t.name.split(".")[-2] if t.name.startswith("blk.") else t.name
        kinds.setdefault(part, set()).add(t.tensor_type.name)
    for part in ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"):
        assert kinds[part] == {"Q4_1"}
    assert kinds["token_embd.weight"] == {"Q8_0"}
    assert kinds["attn_norm"] == kinds["ffn_norm"] == kinds["output_norm.weight"] == {"F32"}
    assert "4-bit numbers (Q4_1)" in P.QUANTIZED and "8-bit (Q8_0)" in P.QUANTIZED
    text = (ASSETS / "walkthrough/03_projections_pretrained.md").read_text(encoding="utf-8")
    assert "4-bit" in text


# --- RoPE --------------------------------------------------------------------------------------


def test_rope_pairs_meet_at_the_angle_i_minus_j_times_theta_c(smollm2):
    """ "Pair by pair, a query at position i and a key at position j then meet at the angle (i − j)·θ_c":
    the angle between the rotated pair (q_c, q_c+32) of query i and the rotated pair of key j is the
    angle between the unrotated pairs plus (i − j)·θ_c, for every pair, over several heads and positions."""
    theta = smollm2.theta()
    for layer, head in ((0, 0), (10, 4), (29, 8)):
        trace = smollm2.head_trace("a b c d e f g h i j", layer, head)
        q0, k0 = trace.rope.q_before, trace.rope.k_before
        for i, j in ((9, 2), (5, 5), (3, 7)):
            def angle(v, c):
                return np.arctan2(v[c + 32], v[c])
            for c in range(32):
                turned = angle(trace.q[i], c) - angle(trace.k[j], c)
                expected = angle(q0[i], c) - angle(k0[j], c) + (i - j) * theta[c]
                assert np.isclose(np.cos(turned), np.cos(expected), atol=1e-6)
                assert np.isclose(np.sin(turned), np.sin(expected), atol=1e-6)
    q = np.random.default_rng(0).standard_normal((1, 64))
    assert np.allclose(rotate(q, *[m[:1] for m in smollm2.rope(1)]), q)  # position 0 is not turned


# --- switching heads off (assets/real_model/02_heads_off_*.md, 03_scan.md) ----------------------------


@pytest.fixture(scope="module")
def induction_readings(smollm2):
    """On each of the 24 induction prompts: the next word's probability with every head on, with the
    demo's head off, with the five induction heads off, and with five other heads drawn at random (drawn
    per prompt from one generator seeded 0, never an induction head)."""
    from attention.core import softmax
    from attention.pretrained.gallery import INDUCTION_HEAD, INDUCTION_HEADS, induction_prompt

    rng = np.random.default_rng(0)
    rows = []
    for seed in range(24):
        prompt, word = induction_prompt(seed)
        target = smollm2.tokenizer.encode(" " + word).ids[0]
        others: set[tuple[int, int]] = set()
        while len(others) < 5:
            head = (int(rng.integers(30)), int(rng.integers(9)))
            if head not in INDUCTION_HEADS:
                others.add(head)
        rows.append([softmax(smollm2.recent(prompt).logits)[target]] +
                    [softmax(smollm2.ablated_logits(prompt, frozenset(off)))[target]
                     for off in ({INDUCTION_HEAD}, set(INDUCTION_HEADS), others)])
    return np.array(rows)  # [24, 4]: on, demo head off, five induction heads off, five others off


def test_induction_prompts_give_the_next_word_0_64_at_the_median_and_the_top_on_21(induction_readings, smollm2):
    """ "a probability of 0.64 at the median, and it is the likeliest next token on 21 of the 24"."""
    from attention.pretrained.gallery import induction_prompt

    assert round(float(np.median(induction_readings[:, 0])), 2) == 0.64
    top = 0
    for seed in range(24):
        prompt, word = induction_prompt(seed)
        top += int(np.argmax(smollm2.recent(prompt).logits)) == smollm2.tokenizer.encode(" " + word).ids[0]
    assert top == 21


def test_the_demo_induction_head_off_lowers_it_on_each_prompt_to_0_29_at_the_median(induction_readings):
    """ "Switching off layer 19, head 7 … lowers it on each of the 24, to 0.29 at the median"."""
    on, off = induction_readings[:, 0], induction_readings[:, 1]
    assert (off < on).all()
    assert round(float(np.median(off)), 2) == 0.29


def test_the_five_induction_heads_off_take_it_below_0_06_on_every_prompt(induction_readings):
    """ "takes it below 0.06 on every one, and below 0.001 at the median"."""
    assert (induction_readings[:, 2] < 0.06).all(), induction_readings[:, 2]
    assert np.median(induction_readings[:, 2]) < 0.001


@HEAVY
def test_five_other_heads_at_random_leave_it_between_0_37_and_0_59_at_the_median(induction_readings, smollm2):
    """ "Five other heads picked at random (for each prompt, in ten separate draws) leave it between 0.37 and
    0.59 at the median": one draw's 0.41 was said as if it were the rule (issue 32); ten draws, each from a
    generator seeded with its number, the first the fixture's."""
    from attention.core import softmax
    from attention.pretrained.gallery import INDUCTION_HEADS, induction_prompt

    drawn = []  # [9 draws][24 prompts]: each draw's five heads for each prompt, in the order its generator gives them
    for draw in range(1, 10):
        rng, sets = np.random.default_rng(draw), []
        for _ in range(24):
            others: set[tuple[int, int]] = set()
            while len(others) < 5:
                head = (int(rng.integers(30)), int(rng.integers(9)))
                if head not in INDUCTION_HEADS:
                    others.add(head)
            sets.append(frozenset(others))
        drawn.append(sets)
    values = np.empty((9, 24))
    for seed in range(24):  # a prompt's nine draws as one batch
        prompt, word = induction_prompt(seed)
        logits = smollm2.ablated_logits_each(prompt, [sets[seed] for sets in drawn])  # [9, vocab]
        values[:, seed] = softmax(logits)[:, smollm2.tokenizer.encode(" " + word).ids[0]]
    medians = [float(np.median(induction_readings[:, 3])), *np.median(values, axis=1)]
    assert (round(min(medians), 2), round(max(medians), 2)) == (0.37, 0.59)


def test_the_five_induction_heads_are_those_with_a_mean_induction_weight_of_at_least_half(smollm2):
    """ "(a mean weight of at least 0.5 on the token after the earlier occurrence: layer 18, heads 4, 5 and 6,
    and layer 19, heads 7 and 8)": measured over the induction family, exactly these five, as the page counts
    them from 1."""
    from attention.pretrained.gallery import INDUCTION_HEADS, induction, induction_family

    readings = [[[induction(smollm2.recent(s).tokens, smollm2.recent(s).weights[layer, head]) for head in range(9)]
                 for layer in range(30)] for s in induction_family()]
    found = {(int(layer), int(head)) for layer, head in np.argwhere(np.mean(readings, axis=0) >= 0.5)}
    assert found == set(INDUCTION_HEADS)
    assert sorted(P.head_label(*h) for h in INDUCTION_HEADS) == ["L18 H4", "L18 H5", "L18 H6", "L19 H7", "L19 H8"]
    text = " ".join((ASSETS / "real_model" / "02_heads_off_smollm2.md").read_text().split())
    assert "layer 18, heads 4, 5 and 6, and layer 19, heads 7 and 8" in text


def test_minilm_layers_before_the_first_head_off_run_as_they_did(minilm):
    """ "The layers before the first head switched off run exactly as they did, so the map starts at that
    head's layer" and "1 is unchanged": on varied sentences, every α before that layer (and the layer's own
    α, which the switch acts after) is the original bit for bit, and nothing off gives cosine 1."""
    for sentence in TEST_SENTENCES[:8]:
        original = minilm.recent(sentence)
        for off in ({(3, 4)}, {(0, 0), (5, 11)}, {(5, h) for h in range(12)}):
            run = minilm.ablated(sentence, frozenset(off))
            first = min(layer for layer, _ in off)
            np.testing.assert_array_equal(run.weights[:first + 1], original.weights[:first + 1])
            if first < 5:
                assert not np.allclose(run.weights[first + 1:], original.weights[first + 1:])
        same = minilm.ablated(sentence, frozenset())
        assert abs(float(np.dot(same.embedding, original.embedding)) - 1) < 1e-6


def test_a_scan_drop_is_the_ablated_runs_drop_and_0_69_halves_the_probability(smollm2):
    """ "A drop of 0.69 (ln 2) halves its probability": the drop is log p(on) − log p(off) of the same
    token, so p(off) = p · e^(−drop); checked against runs with each head off on its own."""
    from attention.pretrained.smollm2 import log_softmax

    assert abs(np.exp(-0.69) - 0.5) < 0.002
    for sentence in ("The capital of France is", "1, 2, 3, 4,", "<b>bold</b> and *stars*"):
        scan = smollm2.scan(sentence, (2, 17))
        for k, layer in enumerate(scan.layers):
            for head in (0, 4, 8):
                off = log_softmax(smollm2.ablated_logits(sentence, frozenset({(layer, head)})))[scan.token]
                assert abs(scan.drops[k, head] - (scan.log_p - off)) < 1e-4
                assert np.isclose(np.exp(scan.log_p) * np.exp(-scan.drops[k, head]), np.exp(off), rtol=1e-4)


def test_a_scan_computes_no_layer_before_the_scanned_one_again(smollm2, monkeypatch):
    """ "the nine heads run as one batch from that layer on: the layers before it are not computed again":
    scanning layer k calls attention once per layer from k to the last, each on a batch of nine."""
    sentence = "Attention is all you need"
    smollm2.recent(sentence)  # the forward with every head on is the page's, already there
    calls = []
    attention = smollm2.attention
    monkeypatch.setattr(smollm2, "attention",
                        lambda layer, a, *rest: calls.append(a.shape) or attention(layer, a, *rest))
    smollm2.scan(sentence, (20,))
    n = len(smollm2.recent(sentence).ids)
    assert calls == [(n, 576)] + [(9, n, 576)] * 9


@HEAVY
def test_the_scans_ranking_finds_an_induction_head_on_each_induction_prompt(smollm2):
    """The ranking is stable on a family: on each of the 24 induction prompts, scanning layers 18–19 puts
    one of the five induction heads among its three largest drops."""
    from attention.pretrained.gallery import INDUCTION_HEADS, induction_prompt

    for seed in range(24):
        prompt, _ = induction_prompt(seed)
        scan = smollm2.scan(prompt, (17, 18))
        top = [divmod(int(i), 9) for i in np.argsort(-scan.drops, axis=None)[:3]]
        assert any((scan.layers[k], head) in INDUCTION_HEADS for k, head in top), (prompt, top)
