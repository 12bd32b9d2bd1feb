"""Issue 3's engine pieces: the multi-head trace, the temperature, and the √d_k experiments."""

from __future__ import annotations

import numpy as np
import pytest

import attention as A
from tests.reference import naive_multi_head

SENTENCE = "This forum is awesome"


@pytest.mark.parametrize("h,causal", [(1, False), (2, False), (4, True), (8, False)])
def test_multi_head_trace_matches_multi_head_attention_and_naive_loops(h, causal):
    m = A.trace_multi_head(SENTENCE, d_model=8, n_heads=h, seed=3, causal=causal)
    out, w = A.multi_head_attention(m.x, m.w_q, m.w_k, m.w_v, m.w_o, n_heads=h, causal=causal)
    np.testing.assert_allclose(m.output, out, atol=1e-12)
    np.testing.assert_allclose(m.weights, w, atol=1e-14)
    ref_out, _ = naive_multi_head(m.x.tolist(), m.w_q.tolist(), m.w_k.tolist(), m.w_v.tolist(), m.w_o.tolist(), h, causal)
    np.testing.assert_allclose(m.output, ref_out, atol=1e-12)
    assert m.d_k == 8 // h and all(head.d_k == m.d_k for head in m.heads)
    # head i's projections are columns i·d_k … (i+1)·d_k of the full matrices
    np.testing.assert_array_equal(m.heads[-1].w_q, m.w_q[:, (h - 1) * m.d_k :])
    np.testing.assert_allclose(m.concat[:, : m.d_k], m.heads[0].output)


def test_one_head_equals_the_walkthrough_with_d_k_equal_to_d_model():
    single = A.trace_self_attention(SENTENCE, d_model=8, d_k=8, seed=42)
    multi = A.trace_multi_head(SENTENCE, d_model=8, n_heads=1, seed=42)
    np.testing.assert_array_equal(multi.heads[0].weights, single.weights)
    np.testing.assert_array_equal(multi.concat, single.output)


def test_multi_head_bad_head_count_explains_itself():
    with pytest.raises(ValueError, match="not divisible by n_heads = 3.*1, 2, 4, 8"):
        A.trace_multi_head(SENTENCE, d_model=8, n_heads=3)


def test_w_o_is_seeded_and_scaled():
    a, b = A.random_output_projection(8, 1), A.random_output_projection(8, 1)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, A.random_projections(8, 8, 1).w_q)  # its own stream
    assert abs(A.random_output_projection(256, 0).std() * 16 - 1) < 0.02


def test_temperature_divides_the_scaled_scores():
    base = A.trace_self_attention(SENTENCE, seed=1)
    hot = A.trace_self_attention(SENTENCE, seed=1, temperature=2.0)
    np.testing.assert_allclose(hot.scaled_scores, base.scaled_scores / 2)
    assert hot.scale == pytest.approx(1 / (2 * 2.0))
    # T → 0 approaches argmax (one-hot rows); T → ∞ approaches uniform rows
    cold = A.trace_self_attention(SENTENCE, seed=1, temperature=1e-4)
    np.testing.assert_allclose(cold.weights, np.eye(4)[base.scores.argmax(axis=1)], atol=1e-6)
    warm = A.trace_self_attention(SENTENCE, seed=1, temperature=1e4)
    np.testing.assert_allclose(warm.weights, 0.25, atol=1e-3)
    with pytest.raises(ValueError, match="positive"):
        A.trace_self_attention(SENTENCE, temperature=0)


@pytest.mark.parametrize("d_k", [1, 4, 64, 512])
def test_dot_product_variance_grows_like_d_k(d_k):
    dots = A.dot_product_samples(d_k, 20_000, seed=0)
    # Var(q·k) = d_k; with 20,000 samples the relative error of the variance is about 1–2%.
    assert abs(dots.var() / d_k - 1) < 0.06
    assert abs((dots / np.sqrt(d_k)).var() - 1) < 0.06


def test_unscaled_softmax_saturates_at_large_d_k_and_the_gradient_vanishes():
    scores = A.random_score_row(512, 8, seed=0)
    raw, scaled = A.softmax(scores), A.softmax(scores / np.sqrt(512))
    assert raw.max() > 0.99 and scaled.max() < 0.9
    assert A.gradient_size(raw) < 0.02 < 0.1 < A.gradient_size(scaled)


def test_softmax_jacobian_hand_case():
    # α = [1/2, 1/2]: J = [[1/4, -1/4], [-1/4, 1/4]], ‖J‖_F = 1/2
    np.testing.assert_allclose(A.softmax_jacobian([0.5, 0.5]), [[0.25, -0.25], [-0.25, 0.25]])
    assert A.gradient_size([0.5, 0.5]) == pytest.approx(0.5)
    assert A.gradient_size([1.0, 0.0]) == 0.0  # a saturated softmax passes no gradient
