"""The engine against hand-worked cases and against the naive loops in tests/reference.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

import attention as A
from tests.reference import naive_attention, naive_multi_head

RNG = np.random.default_rng(1234)


# --- a 2-token case worked by hand -------------------------------------------------------------
# q_1 = [2,0,0,0], q_2 = 0;  k_1 = e_1, k_2 = e_2;  v_1 = [1,0], v_2 = [0,10];  d_k = 4, √d_k = 2.
# scores S = [[2, 0], [0, 0]];  S/2 = [[1, 0], [0, 0]].
# α_1 = [e/(e+1), 1/(e+1)],  α_2 = [1/2, 1/2].
# out_1 = α_11 v_1 + α_12 v_2 = [e/(e+1), 10/(e+1)],  out_2 = [1/2, 5].
Q2 = [[2.0, 0, 0, 0], [0, 0, 0, 0]]
K2 = [[1.0, 0, 0, 0], [0, 1.0, 0, 0]]
V2 = [[1.0, 0], [0, 10.0]]
E = math.e


def test_hand_worked_two_tokens():
    out, w = A.scaled_dot_product_attention(Q2, K2, V2)
    np.testing.assert_allclose(w, [[E / (E + 1), 1 / (E + 1)], [0.5, 0.5]])
    np.testing.assert_allclose(out, [[E / (E + 1), 10 / (E + 1)], [0.5, 5.0]])


def test_hand_worked_two_tokens_causal():
    # With the causal mask the first token sees only itself: α_1 = [1, 0], so out_1 = v_1.
    out, w = A.scaled_dot_product_attention(Q2, K2, V2, mask=A.causal_mask(2))
    np.testing.assert_array_equal(w[0], [1.0, 0.0])
    np.testing.assert_allclose(out, [[1.0, 0.0], [0.5, 5.0]])


def test_explicit_scale_replaces_one_over_sqrt_dk():
    # scale = 1 keeps the raw scores [2, 0]: α_1 = [e²/(e²+1), 1/(e²+1)].
    _, w = A.scaled_dot_product_attention(Q2, K2, V2, scale=1.0)
    np.testing.assert_allclose(w[0], [E**2 / (E**2 + 1), 1 / (E**2 + 1)])


# --- against naive loops -----------------------------------------------------------------------
@pytest.mark.parametrize("n_q,n_k,d_k,d_v", [(1, 1, 1, 1), (3, 5, 4, 2), (7, 7, 8, 8), (4, 9, 3, 6)])
def test_sdpa_matches_naive_loops(n_q, n_k, d_k, d_v):
    q, k, v = RNG.normal(size=(n_q, d_k)), RNG.normal(size=(n_k, d_k)), RNG.normal(size=(n_k, d_v))
    out, w = A.scaled_dot_product_attention(q, k, v)
    ref_out, ref_w = naive_attention(q.tolist(), k.tolist(), v.tolist())
    np.testing.assert_allclose(w, ref_w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(out, ref_out, rtol=1e-12, atol=1e-12)


def test_sdpa_with_mask_matches_naive_loops():
    n = 6
    q, k, v = RNG.normal(size=(n, 4)), RNG.normal(size=(n, 4)), RNG.normal(size=(n, 3))
    mask = RNG.random((n, n)) < 0.5
    mask[:, 0] = True  # every query may attend to at least one key
    out, w = A.scaled_dot_product_attention(q, k, v, mask=mask)
    ref_out, ref_w = naive_attention(q.tolist(), k.tolist(), v.tolist(), mask.tolist())
    np.testing.assert_allclose(w, ref_w, atol=1e-14)
    np.testing.assert_allclose(out, ref_out, atol=1e-12)
    assert np.all(w[~mask] == 0.0)  # masked weights are exactly zero, not merely small


@pytest.mark.parametrize("n,d_model,h,causal", [(1, 4, 1, False), (5, 8, 2, False), (5, 8, 4, True), (3, 6, 3, True)])
def test_multi_head_matches_naive_loops(n, d_model, h, causal):
    x = RNG.normal(size=(n, d_model))
    ws = [RNG.normal(size=(d_model, d_model)) / np.sqrt(d_model) for _ in range(4)]
    out, w = A.multi_head_attention(x, *ws, n_heads=h, causal=causal)
    ref_out, ref_w = naive_multi_head(x.tolist(), *(m.tolist() for m in ws), n_heads=h, causal=causal)
    assert out.shape == (n, d_model) and w.shape == (h, n, n)
    np.testing.assert_allclose(out, ref_out, atol=1e-12)
    np.testing.assert_allclose(w, ref_w, atol=1e-14)


def test_multi_head_equals_separate_heads_concatenated_then_projected():
    # Head h uses columns h·d_k … (h+1)·d_k of X·W; concat(heads)·W_O is the output.
    n, d_model, h = 4, 8, 2
    x = RNG.normal(size=(n, d_model))
    w_q, w_k, w_v, w_o = (RNG.normal(size=(d_model, d_model)) for _ in range(4))
    out, w = A.multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads=h)
    heads = []
    for i in range(h):
        cols = slice(i * 4, (i + 1) * 4)
        o_i, w_i = A.scaled_dot_product_attention(x @ w_q[:, cols], x @ w_k[:, cols], x @ w_v[:, cols])
        np.testing.assert_allclose(w[i], w_i)
        heads.append(o_i)
    np.testing.assert_allclose(out, np.concatenate(heads, axis=1) @ w_o)


# --- softmax -----------------------------------------------------------------------------------
def test_softmax_hand_values():
    np.testing.assert_allclose(A.softmax([0.0, math.log(3.0)]), [0.25, 0.75])
    np.testing.assert_allclose(A.softmax([[1.0, 1.0, 1.0]]), [[1 / 3, 1 / 3, 1 / 3]])


def test_softmax_huge_inputs_stay_finite():
    w = A.softmax([1e6, -1e6, 1e6 - 1])
    np.testing.assert_allclose(w, [E / (E + 1), 0.0, 1 / (E + 1)])


def test_softmax_minus_inf_entries_get_zero_weight():
    w = A.softmax([[0.0, -np.inf, 0.0], [-np.inf, -np.inf, -np.inf]])
    np.testing.assert_array_equal(w, [[0.5, 0.0, 0.5], [0.0, 0.0, 0.0]])  # an all-masked row is 0, not NaN


def test_softmax_along_other_axis():
    x = RNG.normal(size=(3, 4))
    np.testing.assert_allclose(A.softmax(x, axis=0), A.softmax(x.T).T)


@pytest.mark.parametrize("bad", [[0.0, np.nan], [np.inf, 0.0]])
def test_softmax_rejects_nan_and_plus_inf(bad):
    with pytest.raises(ValueError, match="NaN or \\+inf"):
        A.softmax(bad)


# --- errors a learner can act on ---------------------------------------------------------------
def test_sdpa_shape_errors_explain_themselves():
    with pytest.raises(ValueError, match="same length"):
        A.scaled_dot_product_attention(np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="every key needs exactly one value"):
        A.scaled_dot_product_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((3, 3)))
    with pytest.raises(ValueError, match=r"\[n_q, n_k\]"):
        A.scaled_dot_product_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), mask=np.ones((3, 3), bool))
    with pytest.raises(ValueError, match="matrix"):
        A.scaled_dot_product_attention(np.ones(3), np.ones((2, 3)), np.ones((2, 3)))


def test_multi_head_errors_explain_themselves():
    x, w = np.ones((3, 6)), np.eye(6)
    with pytest.raises(ValueError, match=r"not divisible by n_heads = 4.*1, 2, 3, 6"):
        A.multi_head_attention(x, w, w, w, w, n_heads=4)
    with pytest.raises(ValueError, match="w_k has shape \\(6, 5\\)"):
        A.multi_head_attention(x, w, np.ones((6, 5)), w, w, n_heads=2)
    with pytest.raises(ValueError, match="whole number"):
        A.multi_head_attention(x, w, w, w, w, n_heads=0)


# --- embeddings, positional encodings, presets -------------------------------------------------
def test_embeddings_depend_only_on_token_text_and_seed():
    x = A.embed(["the", "cat", "the"], d_model=6, seed=7)
    np.testing.assert_array_equal(x[0], x[2])  # the same word gets the same vector
    assert not np.allclose(x[0], x[1])
    np.testing.assert_array_equal(A.embed(["cat"], 6, 7)[0], x[1])  # context does not matter
    assert not np.allclose(A.embed(["cat"], 6, 8)[0], x[1])  # the seed does


def test_embeddings_are_the_same_after_a_caller_changes_what_it_got():
    """The vectors are cached: a caller that writes into its X or its e(t) changes no later lesson's."""
    first = A.embed(["the", "cat"], d_model=6, seed=3)
    vector = A.token_embedding("the", 6, 3)
    first[:] = 0.0
    vector[:] = 0.0
    again = A.embed(["the", "cat"], d_model=6, seed=3)
    assert np.all(again != 0.0)
    np.testing.assert_array_equal(A.token_embedding("the", 6, 3), again[0])
    assert A.token_embedding("the", 6, 3).flags.writeable


def test_positional_encoding_hand_values():
    pe = A.sinusoidal_positional_encoding(3, 4)
    # pos 0: sin 0, cos 0, sin 0, cos 0.  pos 1: i=0 frequency 1, i=1 frequency 1/10000^(2/4) = 1/100.
    np.testing.assert_allclose(pe[0], [0, 1, 0, 1])
    np.testing.assert_allclose(pe[1], [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)])
    np.testing.assert_allclose(pe[2, :2], [math.sin(2), math.cos(2)])
    assert A.sinusoidal_positional_encoding(2, 5).shape == (2, 5)  # odd d_model works


def test_random_projections_are_seeded_and_scaled():
    a, b = A.random_projections(8, 4, seed=3), A.random_projections(8, 4, seed=3)
    for wa, wb in zip(a, b, strict=True):
        np.testing.assert_array_equal(wa, wb)
        assert wa.shape == (8, 4)
    assert not np.allclose(a.w_q, A.random_projections(8, 4, seed=4).w_q)
    assert not np.allclose(a.w_q, a.w_k)  # three independent matrices
    big = A.random_projections(256, 256, seed=0).w_q
    # entries ~ N(0, 1/d_model): with 65,536 draws the std is within 2% of 1/16
    assert abs(big.std() * 16 - 1) < 0.02
    assert abs(big.mean()) < 0.002


def test_identity_projections():
    p = A.identity_projections(4, 4)
    for w in p:
        np.testing.assert_array_equal(w, np.eye(4))
    np.testing.assert_array_equal(A.identity_projections(4, 2).w_q, [[1, 0], [0, 1], [0, 0], [0, 0]])
    with pytest.raises(ValueError, match="Unknown preset"):
        A.preset_projections("magic", 4, 4, 0)


# --- the trace --------------------------------------------------------------------------------
def test_trace_identity_preset_scores_are_raw_embedding_dot_products():
    t = A.trace_self_attention("the cat sat", d_model=5, d_k=5, preset="identity")
    np.testing.assert_array_equal(t.q, t.x)
    np.testing.assert_allclose(t.scores, t.x @ t.x.T)


def test_trace_steps_agree_with_each_other_and_with_sdpa():
    t = A.trace_self_attention("This forum is awesome", d_model=8, d_k=4, seed=42, positional=True)
    assert t.tokens == ("This", "forum", "is", "awesome")
    np.testing.assert_allclose(t.x, t.embeddings + A.sinusoidal_positional_encoding(4, 8))
    np.testing.assert_allclose(t.q, t.x @ t.w_q)
    np.testing.assert_allclose(t.score_terms.sum(axis=2), t.scores)  # q_i·k_j as a sum of products
    np.testing.assert_allclose(t.scaled_scores, t.scores / 2.0)  # √4 = 2
    np.testing.assert_allclose(t.exp_scores / t.exp_scores.sum(axis=1, keepdims=True), t.weights)
    out, w = A.scaled_dot_product_attention(t.q, t.k, t.v)
    np.testing.assert_allclose(t.weights, w)
    np.testing.assert_allclose(t.output, out)
    np.testing.assert_allclose(t.weighted_values.sum(axis=1), t.output)


def test_trace_causal_zeros_the_upper_triangle():
    t = A.trace_self_attention("a b c d e", d_model=4, d_k=2, causal=True)
    upper = np.triu(np.ones((5, 5), bool), k=1)
    assert np.all(t.weights[upper] == 0.0)
    assert np.all(np.isneginf(t.masked_scores[upper]))
    np.testing.assert_allclose(t.weights.sum(axis=1), 1.0)
    np.testing.assert_array_equal(t.weights[0], [1, 0, 0, 0, 0])  # the first token sees only itself


def test_trace_custom_projections_are_used_and_checked():
    p = A.Projections(np.eye(4, 2), 2 * np.eye(4, 2), 3 * np.eye(4, 2))
    t = A.trace_self_attention("a b", d_model=4, d_k=2, projections=p)
    assert t.preset == "custom"
    np.testing.assert_allclose(t.v, 3 * t.x[:, :2])
    with pytest.raises(ValueError, match=r"W_K has shape \(4, 3\)"):
        A.trace_self_attention("a b", d_model=4, d_k=2, projections=p._replace(w_k=np.ones((4, 3))))
    with pytest.raises(ValueError, match="NaN or infinity"):
        A.trace_self_attention("a b", d_model=4, d_k=2, projections=p._replace(w_q=np.full((4, 2), np.nan)))


def test_trace_is_deterministic():
    a = A.trace_self_attention("x y z", seed=5)
    b = A.trace_self_attention("x y z", seed=5)
    np.testing.assert_array_equal(a.output, b.output)
    assert not np.allclose(a.output, A.trace_self_attention("x y z", seed=6).output)


def test_softmax_leaves_its_input_alone():
    x = np.array([[1.0, 2.0, -np.inf]])
    A.softmax(x)
    np.testing.assert_array_equal(x, [[1.0, 2.0, -np.inf]])
