"""Hypothesis properties of the engine that must hold for every input, not just the examples."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import attention as A

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
dims = st.integers(min_value=1, max_value=6)


def matrix(rows, cols, elements=None):
    return arrays(np.float64, (rows, cols), elements=st.floats(-10, 10) if elements is None else elements)


@given(st.data(), dims, dims)
def test_softmax_rows_sum_to_one_even_for_huge_scores(data, n, m):
    x = data.draw(matrix(n, m, finite))
    w = A.softmax(x)
    assert np.all(np.isfinite(w)) and np.all(w >= 0)
    np.testing.assert_allclose(w.sum(axis=1), 1.0, rtol=1e-12)


@given(st.data(), dims, dims, dims)
def test_output_finite_for_scores_up_to_1e6(data, n, m, d):
    # q·k of up to ±1e6: one coordinate of size 1e3 in q and in k.
    q = data.draw(matrix(n, 1, st.floats(-1e3, 1e3)))
    k = data.draw(matrix(m, 1, st.floats(-1e3, 1e3)))
    v = data.draw(matrix(m, d))
    out, w = A.scaled_dot_product_attention(q, k, v, scale=1.0)
    assert np.all(np.isfinite(out)) and np.all(np.isfinite(w))
    np.testing.assert_allclose(w.sum(axis=1), 1.0, rtol=1e-12)
    # each output row is a convex combination of the values, so it stays inside their range
    assert np.all(out <= v.max(axis=0) + 1e-9) and np.all(out >= v.min(axis=0) - 1e-9)


@given(st.data(), dims, dims, dims)
def test_masked_weights_are_exactly_zero(data, n, m, d):
    q, k, v = data.draw(matrix(n, d)), data.draw(matrix(m, d)), data.draw(matrix(m, d))
    mask = data.draw(arrays(np.bool_, (n, m)))
    mask[np.arange(n), data.draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))] = True
    _, w = A.scaled_dot_product_attention(q, k, v, mask=mask)
    assert np.all(w[~mask] == 0.0)
    np.testing.assert_allclose(w.sum(axis=1), 1.0, rtol=1e-12)


@given(st.integers(1, 12), st.data())
def test_causal_mask_zeros_exactly_the_upper_triangle(n, data):
    x = data.draw(matrix(n, 4))
    w_q, w_k, w_v = (data.draw(matrix(4, 4)) for _ in range(3))
    _, w = A.scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask=A.causal_mask(n))
    upper = np.triu(np.ones((n, n), dtype=bool), k=1)
    assert np.all(w[upper] == 0.0)
    np.testing.assert_allclose(w.sum(axis=1), 1.0, rtol=1e-12)
    assert w[0, 0] == 1.0


WORDS = ["the", "cat", "sat", "on", "mat", "a", "dog", "!", "ran", "the"]


@settings(max_examples=50)
@given(st.permutations(range(len(WORDS))), st.integers(0, 2**31), st.sampled_from(["random", "identity"]))
def test_permuting_tokens_permutes_the_output(perm, seed, preset):
    # Without positional encodings attention sees a set of tokens: reorder the sentence and the
    # output rows reorder the same way, and α reorders along both axes. ("the" appears twice.)
    base = A.trace_self_attention(" ".join(WORDS), d_model=6, d_k=3, seed=seed, preset=preset)
    moved = A.trace_self_attention(" ".join(WORDS[i] for i in perm), d_model=6, d_k=3, seed=seed, preset=preset)
    np.testing.assert_allclose(moved.output, base.output[perm], atol=1e-12)
    np.testing.assert_allclose(moved.weights, base.weights[np.ix_(perm, perm)], atol=1e-12)


def test_positional_encodings_break_permutation_symmetry():
    # The contrast that makes the property above meaningful: with positions, order matters.
    a = A.trace_self_attention("cat dog", positional=True)
    b = A.trace_self_attention("dog cat", positional=True)
    assert not np.allclose(b.output, a.output[[1, 0]])


@given(st.data(), st.integers(1, 6), st.integers(1, 6), st.booleans())
def test_multi_head_with_one_head_equals_single_head(data, n, d_model, causal):
    x = data.draw(matrix(n, d_model))
    w_q, w_k, w_v, w_o = (data.draw(matrix(d_model, d_model)) for _ in range(4))
    out, w = A.multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads=1, causal=causal)
    mask = A.causal_mask(n) if causal else None
    single_out, single_w = A.scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask=mask)
    np.testing.assert_allclose(w[0], single_w, atol=1e-12)
    np.testing.assert_allclose(out, single_out @ w_o, atol=1e-9)


@given(st.integers(1, 6), st.integers(1, 4), st.data())
def test_multi_head_splits_and_concatenates_losslessly(n, h, data):
    d_k = data.draw(st.integers(1, 4))
    m = data.draw(matrix(n, h * d_k))
    heads = A.split_heads(m, h)
    assert heads.shape == (h, n, d_k)
    np.testing.assert_array_equal(heads[-1], m[:, (h - 1) * d_k :])  # the last head takes the last columns
    np.testing.assert_array_equal(A.concat_heads(heads), m)


@given(st.text(alphabet=st.characters(codec=None), max_size=40))
def test_visible_shows_exactly_the_control_characters_as_symbols(text):
    """``visible`` (a regular expression) against Unicode's own definition, character by character: a
    control character (category Cc) becomes a symbol (␀…␟, ␡, or �), everything else stays."""
    import unicodedata

    from attention.tokens import visible

    def by_definition(ch: str) -> str:
        if unicodedata.category(ch) != "Cc":
            return ch
        return chr(0x2400 + ord(ch)) if ord(ch) < 0x20 else "␡" if ord(ch) == 0x7F else "�"

    assert visible(text) == "".join(by_definition(ch) for ch in text)


@given(arrays(np.uint8, st.tuples(st.integers(1, 20), st.just(3))))
def test_white_ink_reads_at_4_5_to_1_and_is_the_better_ink_for_every_colour(rgb):
    """Text on a heatmap cell reads at WCAG's 4.5:1 or better, in the better of white and black (the
    luminance threshold 0.179 rounds the exact crossing, 0.1791, where both read at 4.58:1)."""
    from viz.svg import white_ink

    def luminance(colour) -> float:
        c = [v / 255 for v in colour]
        lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    for colour, white in zip(rgb.tolist(), white_ink(rgb), strict=True):
        lum = luminance(colour)
        on_white, on_black = 1.05 / (lum + 0.05), (lum + 0.05) / 0.05
        chosen = on_white if white else on_black
        assert chosen >= 4.5 and chosen >= max(on_white, on_black) - 0.01
