"""Figure and table builders, tested as pure functions: they must show the engine's own numbers."""

from __future__ import annotations

import numpy as np
import pytest

import attention as A
from viz import figures as F
from viz import formulas as L
from viz import tables as T
from viz.labels import format_number, markdown_text, plotly_text, token_labels

TRACE = A.trace_self_attention("the cat sat on the mat", d_model=6, d_k=3, seed=11)
LABELS = ["the (1)", "cat", "sat", "on", "the (5)", "mat"]


def axis_text(fig, axis):
    return list(getattr(fig.layout, axis).ticktext)


def test_token_labels_are_unique_short_and_plain():
    assert token_labels(TRACE.tokens) == LABELS  # repeats get their 1-based position
    assert token_labels(["x" * 30])[0] == "x" * 13 + "…"


@pytest.mark.parametrize(
    "m,name,weights",
    [(TRACE.scores, "scores", False), (TRACE.scaled_scores, "scaled", False), (TRACE.weights, "α weights", True)],
)
def test_query_key_heatmap_z_is_the_engine_matrix_and_axes_carry_tokens(m, name, weights):
    fig = F.query_key_figure(TRACE, m, name, weights=weights)
    np.testing.assert_array_equal(np.array(fig.data[0].z, dtype=float), m)
    assert axis_text(fig, "yaxis") == LABELS and axis_text(fig, "xaxis") == LABELS
    assert "query" in fig.layout.yaxis.title.text and "key" in fig.layout.xaxis.title.text
    assert fig.layout.yaxis.autorange == "reversed"  # row 1 on top, as the matrix is written
    assert fig.data[0].text[0][1] == format_number(m[0, 1])  # the numbers in the cells
    # hover names the query and the key of each cell
    assert list(fig.data[0].customdata[0][1]) == ["the (1)", "cat"]
    assert "query" in fig.data[0].hovertemplate and "key" in fig.data[0].hovertemplate


def test_weights_use_a_colour_blind_safe_scale_from_zero_to_the_largest_weight():
    fig = F.query_key_figure(TRACE, TRACE.weights, "α", weights=True)
    assert (fig.data[0].zmin, fig.data[0].zmax) == (0.0, TRACE.weights.max())
    assert fig.data[0].colorscale[0][1] == "#440154"  # Viridis starts at dark purple
    signed = F.token_by_dim_figure(TRACE, TRACE.q, "Q")
    assert signed.data[0].zmid == 0.0 and signed.data[0].zmin == -signed.data[0].zmax


@pytest.mark.parametrize("name", ["x", "q", "k", "v", "output"])
def test_token_by_dim_heatmaps_show_the_trace(name):
    m = getattr(TRACE, name)
    fig = F.token_by_dim_figure(TRACE, m, name.upper())
    np.testing.assert_array_equal(np.array(fig.data[0].z, dtype=float), m)
    assert axis_text(fig, "yaxis") == LABELS
    assert axis_text(fig, "xaxis") == [str(c) for c in range(1, m.shape[1] + 1)]
    assert f"[{m.shape[0]} × {m.shape[1]}]" in fig.layout.title.text  # the shape is in the title


def test_projection_heatmap():
    fig = F.projection_figure(TRACE.w_k, "W_K")
    np.testing.assert_array_equal(np.array(fig.data[0].z, dtype=float), TRACE.w_k)
    assert "[6 × 3]" in fig.layout.title.text


def test_masked_cells_are_blank_and_labelled_minus_infinity():
    causal = A.trace_self_attention("a b c", causal=True)
    fig = F.query_key_figure(causal, causal.masked_scores, "scaled")
    z = np.array(fig.data[0].z, dtype=float)
    assert np.isnan(z[0, 1]) and fig.data[0].text[0][1] == "−∞"
    assert T.formatted(T.query_key_frame(causal, causal.masked_scores)).iloc[0, 2] == "−∞"


def test_tokens_figure_colours_repeats_alike():
    fig = F.tokens_figure(TRACE)
    ids = np.array(fig.data[0].z)[0]
    assert ids[0] == ids[4] != ids[1]  # "the" twice, one colour
    assert list(fig.data[0].text[0]) == LABELS


def test_step_8_figures_read_the_trace():
    bars = F.alpha_bars(TRACE, 2)
    np.testing.assert_array_equal(bars.data[0].y, TRACE.weights[2])
    assert axis_text(bars, "xaxis") == LABELS
    fig = F.weighted_sum_figure(TRACE, 2)
    z = np.array(fig.data[0].z, dtype=float)
    np.testing.assert_array_equal(z[:-1], TRACE.weighted_values[2])
    np.testing.assert_array_equal(z[-1], TRACE.output[2])
    frame = T.weighted_sum_frame(TRACE, 2)
    assert list(frame.index)[-1] == "Σ = output"
    np.testing.assert_allclose(frame.to_numpy()[:-1].sum(axis=0), frame.to_numpy()[-1])


def test_tables_carry_labels_and_the_engine_numbers():
    frame = T.query_key_frame(TRACE, TRACE.weights)
    assert list(frame.index) == LABELS and list(frame.columns) == LABELS
    np.testing.assert_array_equal(frame.to_numpy(), TRACE.weights)
    tokens = T.token_frame(TRACE)
    assert list(tokens["token"]) == list(TRACE.tokens) and list(tokens["id"]) == [0, 1, 2, 3, 0, 4]


def test_number_format():
    assert format_number(-0.5) == "−0.50"
    assert format_number(-0.001) == "0.00"  # never "−0.00"
    assert format_number(1.005, 3) == "1.005"
    assert format_number(float("-inf")) == "−∞"


def test_user_text_is_escaped_for_plotly_and_markdown():
    evil = A.trace_self_attention("<img src=x onerror=alert(1)> [a](http://x) $x$")
    fig = F.query_key_figure(evil, evil.weights, "α", weights=True)
    assert "<" not in "".join(axis_text(fig, "xaxis"))
    assert "&lt;" in axis_text(fig, "xaxis")[0]
    assert plotly_text("<b>") == "&lt;b&gt;"
    assert markdown_text("[a](u) $x$ *b*") == r"\[a\]\(u\) \$x\$ \*b\*"
    bars = F.alpha_bars(evil, 0)
    assert "<img" not in bars.layout.title.text


def test_formulas_substitute_the_trace_numbers():
    t = A.trace_self_attention("This forum is awesome", d_model=8, d_k=4, seed=42)
    block = L.dot_products(t, 1)[2]
    for qc, kc in zip(t.q[1], t.k[2]):
        assert L.num(qc) in block and L.num(kc) in block
    assert f"= {L.plain(t.scores[1, 2])}" in block and L.plain(t.scaled_scores[1, 2]) in block
    soft = L.softmax_row(t, 1)
    assert L.plain(t.exp_scores[1].sum(), 3) in soft and all(L.plain(a) in soft for a in t.weights[1])
    out = L.weighted_sum(t, 1)
    assert L.vec(t.output[1]) in out and all(L.vec(v) in out for v in t.v)


def test_formulas_wrap_long_dot_products():
    t = A.trace_self_attention("a b", d_model=16, d_k=16)
    assert L.dot_products(t, 0)[0].count(r"&\quad +") == 3  # 16 products, 4 a line


def test_tables_escape_markdown_in_text_but_not_numbers():
    t = A.trace_self_attention("> [a](b) $x$")
    shown = T.formatted(T.token_frame(t), None)
    assert list(shown["token"]) == ["\\>", "\\[", "a", "\\]", "\\(", "b", "\\)", "\\$", "x", "\\$"]
    assert list(shown["id"]) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 7]  # numbers untouched
    weights = T.formatted(T.query_key_frame(t, t.weights))
    assert weights.index[0] == "\\>" and weights.columns[7] == "\\$ \\(8\\)"
    assert weights.iloc[0, 0] == format_number(t.weights[0, 0])
