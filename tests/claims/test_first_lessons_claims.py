"""Claims of the first five lessons (walkthrough, multi-head, √d_k, phonebook, relevance) that no older
test holds, one test each, over the family of sentences, seeds and sizes. The claims these lessons
make that older tests already hold are listed, with those tests, in tests/claims/registry.py."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from attention import SentenceError, trace_self_attention
from attention.multihead import trace_multi_head
from attention.phonebook import lookup, name_ngrams, shared_ngrams
from attention.projections import random_projections
from attention.scaling import dot_product_samples, saturation_stats
from tests.claims.families import D_MODELS, SEEDS, SENTENCES
from viz.relevance import similarity_summary


def traces(**options):
    for sentence, d_model, seed in itertools.product(SENTENCES, D_MODELS, SEEDS[:3]):
        try:
            yield trace_self_attention(sentence, d_model=d_model, d_k=min(d_model, 4), seed=seed, **options)
        except SentenceError:
            continue


# --- walkthrough ---------------------------------------------------------------------------------


def test_a_word_that_appears_twice_gets_the_same_id():
    """Step 1: "a token that appears twice, spelt the same, capitals included, gets the same id twice" and "“The”
    and “the” are two tokens with two ids", and the Spanish and French texts' «El»/«el», « Le »/« le » (the colour:
    tests/test_figures.py)."""
    for t in traces():
        for a, b in itertools.combinations(range(t.n), 2):
            assert (t.token_ids[a] == t.token_ids[b]) == (t.tokens[a] == t.tokens[b])
    t = trace_self_attention("The cat saw the cat.", d_model=8, d_k=4, seed=0)  # the audit's sentence (issue 47)
    assert t.tokens[0] == "The" and t.tokens[3] == "the" and t.token_ids[0] != t.token_ids[3]
    assert t.token_ids[1] == t.token_ids[4]
    for capital, small in (("El", "el"), ("Le", "le")):  # the Spanish and French texts' own pair
        t = trace_self_attention(f"{capital} gato vio {small} gato", seed=0)
        assert t.tokens[0] == capital and t.tokens[3] == small and t.token_ids[0] != t.token_ids[3]


def test_the_same_word_gets_the_same_row_wherever_it_stands_and_positions_tell_copies_apart():
    """Step 2: "the same token (spelt the same, capitals included) always gets the same row of the table, wherever
    it stands"; with positional encodings "the same token at different positions gets a different row of X"; "fixed
    by the seed". Tokens are compared as spelt: "The" and "the" are two (step 1)."""
    for plain, with_p in zip(traces(), traces(positional=True), strict=True):
        again = trace_self_attention(plain.sentence, d_model=plain.d_model, d_k=plain.d_k, seed=plain.seed)
        np.testing.assert_array_equal(plain.x, again.x)
        for a, b in itertools.combinations(range(plain.n), 2):
            if plain.tokens[a] == plain.tokens[b]:
                np.testing.assert_array_equal(plain.x[a], plain.x[b])
                assert not np.array_equal(with_p.x[a], with_p.x[b])


@pytest.mark.parametrize("d_model", D_MODELS)
def test_seeded_random_projections_have_mean_zero_and_variance_one_over_d_model(d_model):
    """Step 3: "entries drawn from a normal distribution with mean 0 and variance 1/d_model", over 200
    seeds (a mean within 4 standard errors, a variance within 5 %)."""
    entries = np.concatenate([np.concatenate(random_projections(d_model, 4, seed)).ravel() for seed in range(200)])
    assert abs(entries.mean()) < 4 * np.sqrt(1 / d_model / entries.size)
    assert entries.var() == pytest.approx(1 / d_model, rel=0.05)


def test_the_output_row_is_the_sum_of_the_scaled_value_vectors():
    """Step 8: "each value vector v_j is scaled by α_ij, and the scaled vectors add up to the output row"."""
    for t in traces(causal=True):
        np.testing.assert_allclose(t.weighted_values, t.weights[:, :, None] * t.v[None, :, :], atol=1e-12)
        np.testing.assert_allclose(t.weighted_values.sum(axis=1), t.output, atol=1e-12)


def test_masked_keys_get_weight_exactly_zero_and_every_row_still_sums_to_one():
    """Step 7 and the mask caption: "a masked key has z = −∞ and gets weight exactly 0"; "query i attends
    only to tokens 1 … i, and every row still sums to 1"; "without a mask every weight is positive"."""
    for t in traces(causal=True):
        n = t.n
        upper = np.triu(np.ones((n, n), dtype=bool), 1)
        assert (t.weights[upper] == 0).all() and np.isneginf(t.masked_scores[upper]).all()
        np.testing.assert_allclose(t.weights.sum(axis=1), 1, atol=1e-12)
    for t in traces():
        assert (t.weights > 0).all() or np.isclose(t.weights, 0).any()  # positive, up to float underflow
        assert (t.weights >= 0).all() and (t.weights <= 1).all()


# --- multi-head ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("d_model", "heads"), [(8, 2), (8, 4), (16, 4), (12, 3), (16, 8)])
def test_h_heads_of_d_model_over_h_cost_about_as_much_as_one_big_head(d_model, heads):
    """Multi-head intro: "each works in a smaller space of d_k = d_model / h dimensions, so h heads cost
    about as much as one big head": the multiply-adds of the projections and of Q·Kᵀ and αV, counted
    from the trace's shapes, are the same for h heads as for one head of d_model."""
    mh = trace_multi_head("the cat sat on the mat", d_model=d_model, n_heads=heads, seed=1)
    n, d_k = mh.n, mh.d_k
    assert d_k * heads == d_model
    per_head = 3 * n * d_model * d_k + 2 * n * n * d_k  # X·W_Q, X·W_K, X·W_V; Q·Kᵀ; αV
    assert heads * per_head == 3 * n * d_model * d_model + 2 * n * n * d_model
    assert mh.concat.shape == (n, d_model)  # "concatenated back to d_model columns"


# --- √d_k ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("d_k", [1, 4, 16, 64, 256])
def test_a_typical_score_is_about_root_d_k_and_scaling_brings_it_back_to_about_one(d_k):
    """√d_k intro: "its typical size is √d_k … d_k = 64 and a typical score is about ±8. Dividing by √d_k
    brings it back to about ±1": the standard deviation of q·k over 20,000 draws, for each d_k."""
    dots = dot_product_samples(d_k, 20000, seed=3)
    assert dots.std() == pytest.approx(np.sqrt(d_k), rel=0.05)
    assert (dots / np.sqrt(d_k)).std() == pytest.approx(1, rel=0.05)


def test_with_a_spread_of_twenty_the_largest_score_usually_takes_almost_everything():
    """Saturation: "with a standard deviation of about 20 (as q·k has at d_k = 400), the largest one usually
    wins almost everything: one weight goes to ≈ 1": over 5,000 rows of 8, 16 and 64 scores ~ N(0, 20²),
    most rows have a largest weight above 0.9; and q·k at d_k = 400 has that spread."""
    rng = np.random.default_rng(0)
    for keys in (8, 16, 64):
        z = rng.normal(0, 20, (5000, keys))
        e = np.exp(z - z.max(axis=1, keepdims=True))
        assert np.mean((e / e.sum(axis=1, keepdims=True)).max(axis=1) > 0.9) > 0.5
    assert dot_product_samples(400, 20000, seed=1).std() == pytest.approx(20, rel=0.05)


@pytest.mark.parametrize("seed", [0, 1, 42])
def test_with_scaling_the_weights_stay_spread_and_the_gradient_alive_for_every_d_k(seed):
    """Saturation: "With the scores divided by √d_k the weights stay spread out for every d_k, and the
    gradient stays alive": at every d_k from 1 to 512, the scaled rows' median largest weight stays below
    0.5 and the share of rows with ‖∂α/∂q‖ < 0.05 below 5 %, while without scaling both grow."""
    for d_k in (1, 4, 16, 64, 256, 512):
        s = saturation_stats(d_k, 400, 16, seed)
        assert np.median(s.max_weight[1]) < 0.5 and np.mean(s.gradient_q[1] < 0.05) < 0.05
    big = saturation_stats(512, 400, 16, seed)
    assert np.median(big.max_weight[0]) > 0.9 and np.mean(big.gradient_q[0] < 0.05) > 0.3


# --- phonebook -----------------------------------------------------------------------------------


NEAR_NAMES = {"en": ("Jindřich", 5), "es": ("Sebastián", 6), "fr": ("François", 5), "zh": ("Jindřich", 5)}


@pytest.mark.parametrize("lang", sorted(NEAR_NAMES))
def test_a_name_is_the_counts_of_its_trigrams_and_the_lessons_query_shares_the_stated_triples(lang):
    """ "“Jan” → #ja, jan, an#"; "“Jindrich” is close to “Jindřich” (five shared triples)", and in Spanish
    "«Sebastian» … «Sebastián» (seis …)", in French "« Francois » … « François » (cinq …)": the name each language's
    lesson looks up (its text quotes it), and the closest name in that language's book, by the hard lookup."""
    from attention.phonebook import DEFAULT_BOOK, EXAMPLE_BOOKS
    from ui.links import PHONEBOOK_QUERY
    from viz.steps import lesson_text

    assert name_ngrams("Jan") == ["#ja", "jan", "an#"]
    query, book = EXAMPLE_BOOKS.get(lang, (PHONEBOOK_QUERY, DEFAULT_BOOK))
    near, shared = NEAR_NAMES[lang]
    assert len(shared_ngrams(query, near)) == shared
    names, phones = [name for name, _ in book], [phone for _, phone in book]
    result = lookup(names, phones, query)
    assert not result.exact and result.best == (names.index(near),)
    text = " ".join(lesson_text(f"phonebook/{name}", lang) for name in ("00_intro", "01_hard_soft")).replace(
        "\u00a0", " ")
    assert query in text and near in text


def test_as_t_grows_the_answer_blends_more_numbers():
    """Temperature: "As T grows, the answer blends more and more numbers": the weights' entropy grows
    with T, over several queries."""
    names = ["Jindřich", "Jindra", "Heinrich", "Anna", "Jan"]
    phones = ["601 234 567", "777 888 999", "499 301 234", "212 121 212", "909 808 707"]
    for query in ("Jindrich", "Ann", "Hein", "zzz", "Jan"):
        entropy = []
        for temperature in (0.01, 0.1, 1.0, 10.0):
            w = lookup(names, phones, query, temperature=temperature).weights
            entropy.append(float(-(w * np.log(np.maximum(w, 1e-300))).sum()))
        assert entropy == sorted(entropy), (query, entropy)


# --- relevance -----------------------------------------------------------------------------------


def test_cosine_similarity_is_one_on_the_diagonal_and_at_most_one_elsewhere():
    """ "(The cosine similarity, which divides by both lengths, is exactly 1 on the diagonal and at most 1
    everywhere else.)", over the family's embeddings."""
    for t in traces():
        unit = t.x / np.linalg.norm(t.x, axis=1, keepdims=True)
        cosine = unit @ unit.T
        np.testing.assert_allclose(np.diag(cosine), 1, atol=1e-12)
        assert (cosine <= 1 + 1e-12).all()


def test_tokens_often_attend_mostly_to_themselves_with_raw_embeddings_and_the_page_counts_them():
    """ "That is why tokens here often attend mostly **to themselves**": over the family, more than half the
    rows do, not all; the count shown is the trace's."""
    own = rows = 0
    for t in traces(preset="identity"):
        if t.d_k != t.d_model:
            continue
        best = t.weights.argmax(axis=1)
        count = sum(t.tokens[j] == t.tokens[i] for i, j in enumerate(best))
        own, rows = own + count, rows + t.n
        assert f"In **{count} of {t.n}** rows" in similarity_summary(t)
    assert 0.5 < own / rows < 1


def test_a_dot_product_is_the_product_of_lengths_and_the_cosine():
    """Geometry: "q·k = ‖q‖‖k‖cos θ. It is large when the arrows are long and point the same way, zero
    when they are at right angles, and negative when they point apart"."""
    rng = np.random.default_rng(0)
    for d in (2, 3, 8):
        q, k = rng.standard_normal((2, 500, d))
        cos = np.sum(q * k, axis=1) / (np.linalg.norm(q, axis=1) * np.linalg.norm(k, axis=1))
        np.testing.assert_allclose(np.sum(q * k, axis=1), np.linalg.norm(q, axis=1) * np.linalg.norm(k, axis=1) * cos)
        assert ((np.sum(q * k, axis=1) < 0) == (cos < 0)).all()


@pytest.mark.parametrize(("d_model", "d_k"), [(4, 4), (8, 3), (4, 16), (16, 1), (6, 7)])
def test_the_identity_preset_keeps_the_first_d_k_coordinates_or_pads_x_with_zeros(d_model, d_k):
    """The preset's help: Q = K = V = X when d_k = d_model; the first d_k coordinates of X when d_k < d_model; X
    followed by zeros when d_k > d_model."""
    for sentence in SENTENCES[:4]:
        trace = trace_self_attention(sentence, d_model=d_model, d_k=d_k, preset="identity", seed=3)
        kept = min(d_k, d_model)
        for m in (trace.q, trace.k, trace.v):
            np.testing.assert_array_equal(m[:, :kept], trace.x[:, :kept])
            assert not m[:, kept:].any()
