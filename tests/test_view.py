"""The view (ui/view.py, static/view.js): the data a page sends the browser, the provenance its tooltips
write (every number the trace's own, and the sums add up), and the charts' two palettes."""

from __future__ import annotations

import itertools
import json
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attention import SentenceError, trace_self_attention
from tests.claims.families import SEEDS, SENTENCES
from tests.table_reading import values_of
from ui import view
from viz import figures as F
from viz import provenance as P
from viz import svg
from viz import tables as T
from viz.arithmetic import number, numbers
from viz.arithmetic import text as shown_text
from viz.labels import format_number
from viz.tables import MASKED


def traces():
    for sentence, causal, d_k in itertools.product(SENTENCES, (False, True), (2, 4, 16)):
        try:
            yield trace_self_attention(sentence, d_model=8, d_k=d_k, seed=SEEDS[1], causal=causal)
        except SentenceError:
            continue


def test_a_panel_carries_the_engine_numbers_the_labels_and_the_mask():
    t = trace_self_attention("the cat sat", causal=True, seed=3)
    panel = view.panel("weights", T.query_key_frame(t, t.weights, weights=True),
                       F.query_key_figure(t, t.weights, "α", weights=True), names=("query", "key"))
    json.dumps(panel)  # it is JSON
    assert panel["rows"] == ["the", "cat", "sat"] and panel["cols"] == ["the", "cat", "sat"]
    for i, j in itertools.product(range(3), range(3)):
        if j > i:
            assert panel["values"][i][j] is None  # masked: "—", never a dark 0
        else:
            assert panel["values"][i][j] == pytest.approx(t.weights[i, j], abs=1e-6)
    grid = panel["figure"]["grid"]
    assert (grid["rows"], grid["cols"]) == (3, 3) and panel["figure"]["svg"].startswith("<svg")
    assert "Its numbers are in the table with it." in panel["figure"]["alt"]


def test_whole_numbers_and_text_keep_their_form():
    frame = pd.DataFrame({"id": np.array([3, 14]), "score": [0.5, -1.25], "token": ["a", "**b**"]},
                         index=pd.Index(["x", "y"], name="row"))
    panel = view.panel("t", frame)
    assert panel["values"] == [["3", 0.5, "a"], ["14", -1.25, "**b**"]]  # an id stays "3", never "3.00"
    assert panel["corner"] == "row" and panel["rows"] == ["x", "y"] and panel.get("table") is not False


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, min_side=0, max_side=6),
                  elements=st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                                     st.floats(-1e12, 1e12), st.floats(-2, 2))),
       st.data())
def test_a_frame_of_numbers_is_sent_cell_for_cell_as_one_number_at_a_time_would(grid, data):
    """A frame of floats is sent in one pass (``numbers``: a real model's W_Q took 0.6 s one cell at a time): every
    cell the same float, or None, as ``number`` gives it, masked cells included, |k| ≥ 2⁵³ and ±0 too."""
    mask = data.draw(hnp.arrays(np.bool_, grid.shape))
    frame = pd.DataFrame(grid, index=pd.Index([f"r{k}" for k in range(grid.shape[0])], name="row"))
    frame.attrs[MASKED] = pd.DataFrame(mask, index=frame.index, columns=frame.columns)
    expected = [[None if m else number(x) for x, m in zip(row, mrow, strict=True)]
                for row, mrow in zip(grid.tolist(), mask.tolist(), strict=True)]
    got = view.panel("t", frame)["values"]
    assert json.dumps(got) == json.dumps(expected)
    assert json.dumps(numbers(grid)) == json.dumps([[number(x) for x in row] for row in grid.tolist()])


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, st.tuples(st.integers(21, 40), st.integers(20, 30)),
                  elements=st.one_of(st.floats(-3, 3), st.floats(allow_nan=True, allow_infinity=True),
                                     st.sampled_from([0.005, -0.005, 0.015, 1e-7, -1e-7]))),
       st.sampled_from([0, 1, 2, 3]))
def test_a_long_tables_cells_are_sent_as_their_shown_digits_and_read_back_as_written(grid, decimals):
    """A table of more than 400 numbers that no tooltip computes with is sent as integer counts of 10^−decimals
    (a real model's W_Q, W_K and W_V were 1.15 MB of a rerun): divided back as the browser does, every cell writes
    exactly the digits the server writes for the number itself, halves and signs included; a non-finite one is —."""
    frame = pd.DataFrame(grid)
    panel = view.panel("t", frame, decimals=decimals)
    assert panel["scale"] == decimals and all(k is None or isinstance(k, int) for row in panel["values"] for k in row)
    read = values_of(panel)
    for r, c in itertools.product(range(grid.shape[0]), range(grid.shape[1])):
        x = grid[r, c]
        assert (read[r][c] is None) == (not np.isfinite(x))
        if np.isfinite(x) and abs(x) < 1e9:
            assert format_number(read[r][c], decimals) == shown_text(x, decimals), (x, read[r][c])
    assert "scale" not in view.panel("t", frame.iloc[:20, :20], decimals=decimals)  # 400 cells: as they are


def test_the_chart_grid_lies_over_the_heatmaps_cells():
    """The view lays its cells at (x + c·px, y + r·py): those are where the SVG draws them."""
    t = trace_self_attention("the cat sat on", seed=1)
    fig = F.query_key_figure(t, t.scores, "S")
    g = fig.grid
    paths = re.findall(r'<path d="M([\d.]+) ([\d.]+)h', fig.markup)
    assert len(paths) == 16
    for k, (x, y) in enumerate(paths):
        r, c = divmod(k, 4)
        assert float(x) == pytest.approx(g.x + c * g.px, abs=0.06) and float(y) == pytest.approx(g.y + r * g.py,
                                                                                                 abs=0.06)


def test_a_scores_provenance_is_the_traces_q_and_k_and_adds_up():
    for t in traces():
        tip = P.scores(t)
        q, k = np.array(tip["a"]), np.array(tip["b"])
        np.testing.assert_allclose(q @ k.T, t.scores, atol=1e-4)


def test_a_scaled_scores_divisor_is_root_d_k_times_t():
    for t in traces():
        tip = P.scaled(t)
        assert tip["div"] == pytest.approx(np.sqrt(t.d_k) * t.temperature, abs=1e-6)
        assert tip["divText"] == f"√{t.d_k}"
        s = np.array(tip["s"])
        np.testing.assert_allclose(s / tip["div"], t.scaled_scores, atol=1e-4)


def test_a_weights_provenance_divides_the_traces_own_exponentials():
    """α_ij = e^(z − m) / Σ e^(z − m), "m = …, the row's largest scaled score", "row … adds up to 1"."""
    for t in traces():
        tip = P.weights(t)
        e, sums = np.array(tip["e"], dtype=float), np.array(tip["sums"])
        np.testing.assert_allclose(e / sums[:, None], t.weights, atol=1e-5)
        np.testing.assert_allclose(tip["m"], np.max(np.where(t.mask, t.scaled_scores, -np.inf), axis=1), atol=1e-6)
        np.testing.assert_allclose(t.weights.sum(axis=1), 1, atol=1e-12)


def test_an_outputs_provenance_is_alpha_times_v():
    for t in traces():
        tip = P.output(t)
        np.testing.assert_allclose(np.array(tip["w"]) @ np.array(tip["v"]), t.output, atol=1e-4)


@pytest.mark.parametrize("name", ["q", "k", "v"])
def test_a_projections_provenance_is_x_times_w(name):
    for t in traces():
        tip = P.projection(t, name)
        np.testing.assert_allclose(np.array(tip["x"]) @ np.array(tip["w"]), getattr(t, name), atol=1e-4)


def contrast(a: str, b: tuple[int, int, int]) -> float:
    """WCAG's contrast ratio of colour ``a`` ("#rrggbb") on ``b``."""
    def lum(rgb):
        c = [v / 255 for v in rgb]
        c = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
    rgb = tuple(int(a.lstrip("#")[k:k + 2], 16) for k in (0, 2, 4)) if len(a) == 7 else \
        tuple(int(ch * 2, 16) for ch in a.lstrip("#"))
    x, y = sorted((lum(rgb), lum(b)), reverse=True)
    return (x + 0.05) / (y + 0.05)


STREAMLIT_DARK = ((23, 22, 20), (14, 17, 23))  # the dark theme's background measured in Chromium, and the classic one


def test_every_chart_text_reads_at_4_5_to_1_in_both_themes():
    """Light: the texts' fills on white. Dark (viz.svg.DARK_STYLE): each text rule's fill on the dark
    backgrounds the chart sits on (its own is transparent there)."""
    light = {"#000000", svg.AXIS_COLOUR, "#555555", "#767676"}
    for colour in light:
        assert contrast(colour, (255, 255, 255)) >= 4.5, colour
    dark = set(re.findall(r"text(?:\[[^\]]*\])?(?:,text\[[^\]]*\])*\{fill:(#[0-9a-f]{3,6})\}", svg.DARK_STYLE))
    dark -= {"#000", "#fff"}  # a cell's number keeps its cell's ink, chosen for the cell's own colour
    assert {svg.DARK_TEXT, "#c9cbd3", "#a6a8b1"} <= dark
    for colour, background in itertools.product(dark, STREAMLIT_DARK):
        assert contrast(colour, background) >= 4.5, (colour, background)


def test_a_tiles_number_is_its_mean_weight_on_the_first_token():
    """The every-head view's tooltip: "The number: this head's mean weight on the first token"."""
    from viz.pretrained import first_token_share

    w = np.random.default_rng(0).dirichlet(np.ones(5), size=(6, 12, 5))  # [layers, heads, n, n], rows sum to 1
    shares = np.array(first_token_share(w, range(2, 6)))
    np.testing.assert_allclose(shares, w[2:6, :, 1:, 0].mean(axis=-1), atol=1e-6)
