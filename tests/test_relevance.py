"""Similarity vs relevance: the rank-1 "attend to" change measurably raises the target weight."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import attention as A
from attention.relevance import attend_to, plane_coordinates, self_attention_share

SENTENCE = "the cat sat on the mat"


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 5), st.integers(0, 5), st.integers(0, 1000), st.floats(0.5, 5))
def test_attend_to_raises_the_target_weight(i, t, seed, strength):
    before = A.trace_self_attention(SENTENCE, d_model=6, d_k=3, seed=seed)
    nudge = attend_to(before.w_q, before.x, before.k, before.weights, i, t, strength)
    after = A.trace_self_attention(SENTENCE, d_model=6, d_k=3, seed=seed,
                                   projections=A.Projections(nudge.w_q, before.w_k, before.w_v))
    # the target weight never falls, and rises whenever there was room and a direction to move in
    assert after.weights[i, t] >= before.weights[i, t] - 1e-12
    if nudge.step > 0:
        assert after.weights[i, t] > before.weights[i, t]
        assert np.linalg.matrix_rank(nudge.delta) == 1  # a rank-1 change
        np.testing.assert_allclose(after.q[i], before.q[i] + nudge.step * nudge.direction)  # q_i moved by η ĝ
    np.testing.assert_array_equal(after.k, before.k)  # keys untouched


def test_attend_to_measured_on_the_default_sentence():
    before = A.trace_self_attention("This forum is awesome", d_model=8, d_k=2, seed=42)
    nudge = attend_to(before.w_q, before.x, before.k, before.weights, 0, 2, 2.0)  # make "This" attend to "is"
    after = A.trace_self_attention("This forum is awesome", d_model=8, d_k=2, seed=42,
                                   projections=A.Projections(nudge.w_q, before.w_k, before.w_v))
    # measured: α("This" → "is") rises by more than 0.2 and "is" becomes its largest weight
    assert after.weights[0, 2] > before.weights[0, 2] + 0.2
    assert after.weights[0].argmax() == 2


def test_identity_projections_make_tokens_attend_to_themselves():
    t = A.trace_self_attention(SENTENCE, d_model=16, d_k=16, preset="identity", seed=1)
    assert self_attention_share(t.weights, t.tokens) == t.n  # ‖x_i‖² beats x_i·x_j for random x


def test_plane_coordinates():
    q, k = np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]])
    q2, k2, kept = plane_coordinates(q, k)
    np.testing.assert_array_equal(q2, q) and np.testing.assert_array_equal(k2, k)
    assert kept == 1.0
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=(5, 4)), rng.normal(size=(5, 4))
    q2, k2, kept = plane_coordinates(q, k)
    assert q2.shape == (5, 2) and 0 < kept < 1
    # a projection onto orthonormal axes never lengthens a vector
    assert np.all(np.linalg.norm(q2, axis=1) <= np.linalg.norm(q, axis=1) + 1e-12)


# --- the page ------------------------------------------------------------------------------------
from tests.test_pages import assert_no_exception, run_app, set_widget, table  # noqa: E402

PAGE = "lessons/relevance.py"


def test_page_points_out_the_diagonal_and_the_change_raises_the_target():
    at = run_app().switch_page(PAGE).run()
    assert_no_exception(at)
    sim = table(at, "sim-weights")
    assert np.all(sim.argmax(axis=1) == np.arange(4))  # the diagonal
    assert any("4 of 4" in m.value for m in at.markdown)
    at = set_widget(at, "rel_query", 0)
    at = set_widget(at, "rel_target", 2)
    before, after = table(at, "rel-before"), table(at, "rel-after")
    assert after[0, 2] > before[0, 2] + 0.2  # "This" now attends much more to "is"
    assert any("What changed" in m.value for m in at.markdown)
    at = set_widget(at, "rel_strength", 0.0)
    np.testing.assert_array_equal(table(at, "rel-after"), table(at, "rel-before"))
    assert "Nothing to change" in at.info[0].value


def test_page_geometry_for_larger_d_k_says_it_is_a_projection():
    at = run_app().switch_page(PAGE).run()
    at = set_widget(at, "rel_dk", 5)
    assert_no_exception(at)
    assert any("projection onto the 2 directions" in c.value for c in at.caption)
    assert table(at, "arrow-scores").shape == (1, 4)


def test_page_with_the_causal_mask_explains_a_look_ahead_target():
    at = run_app(causal=True).switch_page(PAGE).run()
    at = set_widget(at, "rel_query", 0)
    at = set_widget(at, "rel_target", 3)
    assert_no_exception(at)
    assert "may not look ahead" in at.warning[0].value
    assert table(at, "rel-after")[0, 3] == 0.0
