"""viz/svg.py, the chart renderer, on its own: scales, ticks, escaping, layout."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import ImageFont

from attention import trace_self_attention
from tests import svg_reading as R
from viz import svg
from viz.figures import tokens_figure
from viz.heads import lines_view


def test_colour_scales_run_from_their_first_to_their_last_anchor_and_nan_is_the_masked_grey():
    assert svg.colours("weights", [0.0, 1.0, np.nan]) == ["#440154", "#fde725", svg.MASKED_FILL]  # Viridis
    assert svg.colours("signed", [0.0, 0.5, 1.0]) == ["#67001f", "#f7f7f7", "#053061"]  # red, white, blue
    assert svg.colours("weights", [-3.0, 7.0]) == ["#440154", "#fde725"]  # clipped to the scale


def test_text_on_a_cell_is_black_on_light_and_white_on_dark():
    # Viridis's yellow end, its purple end, and the masked grey
    assert svg.white_ink([[0xfd, 0xe7, 0x25], [0x44, 0x01, 0x54], [0xd9, 0xd9, 0xd9]]).tolist() == [False, True, False]


@given(st.floats(-1e6, 1e6), st.floats(1e-3, 1e6))
def test_ticks_are_round_evenly_spaced_and_inside_the_range(lo, span):
    hi = lo + span
    ticks = svg.nice_ticks(lo, hi)
    assert 1 <= len(ticks) <= 11
    assert all(lo - 1e-6 * span <= t <= hi + 1e-6 * span for t in ticks)
    steps = np.diff(ticks)
    if steps.size:
        assert np.allclose(steps, steps[0], rtol=1e-6)
        mantissa = steps[0] / 10 ** np.floor(np.log10(steps[0]))
        assert min(abs(mantissa - m) for m in (1, 2, 5, 10)) < 1e-6  # 1, 2 or 5 × 10^k apart


@pytest.mark.parametrize("payload", ["<script>alert(1)</script>", '" onload="alert(1)', "a & b", "]]>"])
def test_every_text_is_escaped_in_titles_ticks_and_cells(payload):
    fig = svg.heatmap(np.ones((1, 1)), cell_text=[[payload]], row_labels=[payload], col_labels=[payload],
                      title=payload, row_title=payload, col_title=payload, scale="weights", zmin=0, zmax=1)
    assert R.texts(fig, "title") == [payload] and R.ticks(fig, "x") == [payload] and R.numbers(fig) == [payload]
    assert not any(a.startswith("on") for e in R.parse(fig).iter() for a in e.attrib)


def test_short_numbers_for_axes():
    assert [svg._short(v) for v in (0, 0.5, -0.25, 1500, 123456.0)] == ["0", "0.5", "−0.25", "1,500", "123,456"]


def test_a_very_long_axis_is_kept_short_and_labels_every_few_cells():
    """A real model's W_Q [384 × 32]: 600 px tall, not 3,840; a row label only where one fits."""
    fig = svg.heatmap(np.zeros((384, 32)), cell_text=None, row_labels=[str(i) for i in range(1, 385)],
                      col_labels=[str(j) for j in range(1, 33)], title="W_Q", row_title="in", col_title="out",
                      scale="signed", zmin=-1, zmax=1)
    assert fig.height < 800
    rows = R.elements(fig, "text", "ytick")
    shown = [r.text for r in rows]
    assert 30 <= len(shown) <= 70 and shown[0] == "1" and all(shown)  # no empty label is drawn
    g = fig.grid
    for row in rows:  # each label beside its own row's middle
        assert float(row.get("y")) == pytest.approx(g.y + (int(row.text) - 0.5) * g.py, abs=0.06)
    assert R.ticks(fig, "x") == [str(j) for j in range(1, 33)]  # 18.75 px columns: every label fits


def test_tiles_put_each_matrix_in_its_place_on_one_scale():
    """Small multiples [2 layers, 3 heads, 4, 4] as one PNG: tile (i, j)'s pixels are that matrix's colours."""
    import base64
    import io

    from PIL import Image

    z = np.zeros((2, 3, 4, 4))
    z[1, 2] = np.eye(4)  # one tile with a bright diagonal
    fig = svg.tiles(z, row_labels=["layer 1", "layer 2"], col_labels=["1", "2", "3"], title="α", row_title="layer",
                    col_title="head", zmax=1.0, tile=40, gap=4)
    assert R.ticks(fig, "y") == ["layer 1", "layer 2"] and R.ticks(fig, "x") == ["1", "2", "3"]
    (image,) = R.elements(fig, "image", "cells")
    rgba = np.asarray(Image.open(io.BytesIO(base64.b64decode(image.get("href").split(",", 1)[1]))).convert("RGBA"))
    picture = rgba[..., :3]
    assert picture.shape == (2 * 44, 3 * 44, 3)
    bright, dark = R.rgb(svg.VIRIDIS[-1]), R.rgb(svg.VIRIDIS[0])
    y, x = 44 + 5, 2 * 44 + 5  # inside tile (layer 2, head 3), cell (0, 0): on the diagonal
    assert (picture[y, x] == bright).all() and (picture[y, x + 10] == dark).all()
    assert (picture[5, 5] == dark).all() and rgba[5, 5, 3] == 255  # a zero tile, opaque
    assert rgba[42, 5, 3] == 0  # then the gap: clear, the page's own background in either theme


def test_each_chart_says_what_it_shows_in_its_alt_text():
    """The text a screen reader gives for the image: the title, what the rows and columns (or bars,
    or lines) are, their labels, and how to read the colours."""
    z = np.array([[0.5, np.nan], [0.25, 0.75]])
    heat = svg.heatmap(z, cell_text=[["0.50", "—"], ["0.25", "0.75"]], row_labels=["a", "b"], col_labels=["a", "b"],
                       title="α", row_title="query", col_title="key", scale="weights", zmin=0, zmax=0.75)
    assert heat.alt == ("α: a heatmap, 2 rows (query: a, b) by 2 columns (key: a, b); cells run from dark purple "
                        "at 0 to yellow at 0.75; grey cells are masked; each cell shows its number.")
    signed = svg.heatmap(np.array([[-1.0, 2.0]]), cell_text=None, row_labels=["q"], col_labels=["1", "2"], title="Q",
                         row_title=None, col_title="dim", scale="signed", zmin=-2, zmax=2)
    assert signed.alt == ("Q: a heatmap, 1 row (q) by 2 columns (dim: 1, 2); red cells are negative, blue positive, "
                          "up to ±2.")
    bar = svg.bars(["x", "y"], [svg.Series("α", [0.1, 0.9], "#000", ["0.10", "0.90"])], title="t", x_title="key",
                   y_title="α", y_range=(0, 1))
    assert bar.alt == "t: a bar chart of α for each key (x, y). α: x 0.10, y 0.90."
    line = svg.plot(svg.Plot("loss", "step", "cross-entropy", lines=[svg.Line("train", [0, 1], [2, 1], "#000")]))
    assert line.alt == "loss: cross-entropy against step; lines: train."
    grid = svg.tiles(np.ones((2, 3, 2, 2)) / 2, row_labels=["1", "2"], col_labels=["1", "2", "3"], title="every head",
                     row_title="layer", col_title="head", zmax=1.0)
    assert grid.alt == ("every head: small pictures of α in a grid, 2 rows (layer 1, 2) by 3 columns (head: 1, 2, 3), "
                        "coloured from 0 to 1.")


def test_a_long_axis_is_listed_in_part_in_the_alt_text():
    labels = [f"t{i}" for i in range(1, 65)]
    assert svg.listing(labels) == "t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, … (64 in all)"
    assert svg.listing(labels[:12]) == ", ".join(labels[:12])


WIDE = ["THE", "MUMMY", "WOKE", "UP", "WWW"]  # capitals, m and w: wider than an average letter


def drawn_width(text: str, size: float) -> float:
    """How wide the browser draws ``text`` in DejaVu Sans (the charts' first font), from the font file."""
    return ImageFont.truetype("DejaVuSans.ttf", 100).getlength(text) * size / 100


def test_wide_labels_keep_clear_of_the_axis_title_and_the_edge():
    """Row labels are right-aligned before the cells; the rotated axis title sits at x = 10. With
    an average width a letter, "MUMMY" was given 40 px, took 52, and ran into the title."""
    fig = svg.heatmap(np.ones((5, 5)), cell_text=None, row_labels=WIDE, col_labels=WIDE, title="α", row_title="query",
                      col_title="key", scale="weights", zmin=0, zmax=1)
    for tick in R.elements(fig, "text", "ytick"):
        assert float(tick.get("x")) - drawn_width(tick.text, 13) > 10 + 13 / 2  # right of the title's glyphs
    (lines,) = lines_view(np.full((1, 5, 5), 0.2), tuple(WIDE))
    for query in R.elements(lines, "text", "query"):
        assert float(query.get("x")) - drawn_width(query.text, 13) >= 0  # inside the image
    for key in R.elements(lines, "text", "key"):
        assert float(key.get("x")) + drawn_width(key.text, 13) <= lines.width


def test_a_token_fits_its_cell_in_the_tokens_figure():
    trace = trace_self_attention("THE MUMMY WOKE")
    fig = tokens_figure(trace)
    cells = R.group(fig, "cells")
    for cell, word in zip(cells, ["THE", "MUMMY", "WOKE"], strict=True):
        cell_width = float(cell.get("d").split("h")[1].split("v")[0]) + 1  # "M x y h w v h h -w z", 1 px apart
        assert drawn_width(word, 13) < cell_width


LONG_TOKENS = ["␣awesome", "Jindřich", "forum", "x", "Ċ", "␣tokenization", "🤗", "the"]


@given(rows=st.sampled_from([1, 2, 4, 6, 12, 20, 64, 128, 384, 576]),
       cols=st.sampled_from([1, 4, 8, 16, 32, 64, 384, 576]),
       compact=st.booleans(), numbered=st.booleans(), seed=st.integers(0, 2**16))
def test_a_heatmap_fits_the_page_at_1024_px_and_keeps_its_numbers_where_they_fit(rows, cols, compact, numbered, seed):
    """No heatmap is wider than MAX_CHART_WIDTH (shrunk to 0.85 at worst beside the sidebar on a 1024 px
    screen, issue 34): one whose numbers would make it wider is drawn without them, and says so."""
    from viz.figures import heatmap
    m = np.random.default_rng(seed).normal(size=(rows, cols))
    # a token's rows, or a weight matrix's input dimensions ("1" … "576": short labels leave the most room)
    labels = [str(k + 1) if numbered else LONG_TOKENS[k % len(LONG_TOKENS)] + f" ({k + 1})" for k in range(rows)]
    fig = heatmap(m, row_labels=labels, col_labels=[f"d{k + 1}" for k in range(cols)], title=f"Q  [{rows} × {cols}]",
                  row_title="token", col_title="dimension", compact=compact)
    assert fig.width <= svg.MAX_CHART_WIDTH
    written = R.numbers(fig)
    assert ("each cell shows its number" in fig.alt) == bool(written)
    if written:
        assert len(written) == rows * cols
    if rows * cols <= 400 and cols <= 8:  # the walkthrough's matrices (d_model 8): numbers always in the cells
        assert written


@pytest.mark.parametrize(("d", "fold"), [(8, 0), (16, 0), (17, 0), (24, 8), (32, 8), (64, 8), (128, 8), (384, 32),
                                         (576, 32), (100, 0)])
def test_a_long_single_row_is_drawn_folded_and_its_grid_maps_each_cell_back(d, fold):
    """A cached step's q [1 × 64] or x [1 × 576] was a strip of cells 1–8 px wide with ticks over each other
    (issue 34): a one-row matrix wider than 16 columns is drawn in rows of `fold` (8 or 32, a divisor of its
    width), its numbers in reading order, and its grid says how to map a drawn cell to its column."""
    from viz.figures import fold_width, heatmap
    m = np.arange(d, dtype=float)[None, :] / 10  # [1, d]
    fig = heatmap(m, row_labels=["␣awesome"], col_labels=[str(k + 1) for k in range(d)], title=f"q  [1 × {d}]",
                  row_title="token", col_title="dimension", compact=True, fold=True)
    assert fold_width(m.shape) == fold and fig.grid.fold == fold
    assert fig.width <= svg.MAX_CHART_WIDTH
    if not fold:
        assert (fig.grid.rows, fig.grid.cols) == (1, d)
        return
    assert (fig.grid.rows, fig.grid.cols) == (d // fold, fold)
    assert R.ticks(fig, "y")[:2] == [f"1–{fold}", f"{fold + 1}–{2 * fold}"]
    assert fig.alt.startswith(f"q  [1 × {d}], folded: the {d} numbers of “␣awesome” in {d // fold} rows of {fold}, "
                              f"row 1 holding dimensions 1–{fold}; a heatmap, {d // fold} rows")
    written = R.numbers(fig)
    if written:  # in reading order: drawn cell (r, c) is column r·fold + c
        assert [float(t) for t in written] == pytest.approx(m[0].round(2).tolist())
    assert fold_width((2, d)) == 0  # a matrix of several rows is drawn as it is
    keys = heatmap(m, row_labels=["q"], col_labels=[f"k{k}" for k in range(d)], title="α", row_title="query",
                   col_title="key", weights=True)
    assert keys.grid.fold == 0  # keys are never folded: "the row's first key + 3" means nothing


@settings(max_examples=80, deadline=None)
@given(rows=st.integers(1, 12), cols=st.integers(1, 20), title=st.sampled_from(["query i (row)", "token", "q"]),
       numbers=st.booleans())
def test_a_heatmaps_row_title_never_runs_over_its_title(rows, cols, title, numbers):
    """Turned along a one-row heatmap, "query i (row)" ran over the chart's title (issue 34): a title longer than the
    rows stands level above the cells."""
    import re
    z = np.linspace(-1, 1, rows * cols).reshape(rows, cols)
    fig = svg.heatmap(z, cell_text=[["0.00"] * cols for _ in range(rows)] if numbers else None,
                      row_labels=[f"t{i}" for i in range(rows)], col_labels=[f"c{j}" for j in range(cols)],
                      title="scores S = Q·Kᵀ [1 × 7]", row_title=title, col_title="key j (column)", scale="signed",
                      zmin=-1, zmax=1)
    found = re.search(r'<text x="([0-9.]+)" y="([0-9.]+)"[^>]*class="ytitle"[^>]*>', fig.markup)
    y = float(found[2])
    half = svg.text_width(title, 13) / 2 if "rotate(" in found[0] else 13 / 2
    assert y - half >= 16 + 15 / 2, (y, half)  # below the title's line


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(1, 4), cols=st.integers(1, 4), numbers=st.booleans(),
       row_title=st.sampled_from(["token", "Concat dim (h·d_k = d_model)", "input dim (d_model)"]),
       col_title=st.sampled_from(["key", "output dim (d_model)", "output dim (d_k)", "dimension = the row's first"]))
def test_a_small_heatmaps_axis_titles_stay_inside_the_image(rows, cols, numbers, row_title, col_title):
    """Issue 43: W_O's axis titles, "output dim (d_model)" centred under two columns and "Concat dim (h·d_k =
    d_model)" standing level above them, ran off the image's edges at d_model 2. Measured in the real font."""
    z = np.linspace(-1, 1, rows * cols).reshape(rows, cols)
    fig = svg.heatmap(z, cell_text=[["0.00"] * cols for _ in range(rows)] if numbers else None,
                      row_labels=[str(i + 1) for i in range(rows)], col_labels=[str(j + 1) for j in range(cols)],
                      title=f"W_O  [{rows} × {cols}]", row_title=row_title, col_title=col_title, scale="signed",
                      zmin=-1, zmax=1)
    (x_title,) = R.elements(fig, "text", "xtitle")
    half = drawn_width(x_title.text, 13) / 2
    assert 0 <= float(x_title.get("x")) - half and float(x_title.get("x")) + half <= fig.width
    (y_title,) = R.elements(fig, "text", "ytitle")
    if y_title.get("transform") is None:  # standing level: it runs along the top, from x
        assert float(y_title.get("x")) >= 0 and float(y_title.get("x")) + drawn_width(y_title.text, 13) <= fig.width


def styles_by_colour(fig, tag: str, cls: str | None = None) -> dict[str, set[tuple]]:
    """Each colour's drawn style in ``fig``, of its elements ``tag`` (of class ``cls``): its dash, and whether it is
    filled, apart from its colour"""
    out: dict[str, set[tuple]] = {}
    for e in R.parse(fig).iter(f"{R.NS}{tag}"):
        if cls is not None and e.get("class") != cls:
            continue
        colour = e.get("stroke") if e.get("fill") in (None, "none") else e.get("fill")
        out.setdefault(colour, set()).add((e.get("stroke-dasharray"), e.get("fill") not in (None, "none")))
    return out


def test_the_series_of_a_plot_and_their_legend_differ_by_more_than_colour():
    """WCAG 1.4.1: the two sides of the √d_k lesson's curves (solid, dashed) and histogram (filled, outlined), the
    relevance plot's queries and keys (solid, dashed arrows), a plot's lines with and without markers (as the
    training curves') and two series of bars (the phonebook's answers, a real model's p before and after: filled,
    outlined) are told apart without their colours, in the chart and in its legend, whose swatches draw each
    series' style."""
    from attention import scaling as A
    from attention.scaling import saturation_stats
    from viz import relevance as V
    from viz import scaling as S

    frame = S.saturation_frame([saturation_stats(d, 20, 8, seed=1) for d in (1, 4, 64)])
    for fig in S.saturation_figures(frame, chosen=4):
        lines = styles_by_colour(fig, "polyline", "line")
        assert lines == {S.RAW_COLOUR: {(None, False)}, S.SCALED_COLOUR: {(svg.DASH, False)}}  # solid, dashed
        legend = styles_by_colour(fig, "line")  # the legend's two swatches (the axes are lines too)
        assert legend[S.SCALED_COLOUR] == {(svg.DASH, False)} and legend[S.RAW_COLOUR] == {(None, False)}
    bins = styles_by_colour(S.dot_histogram(A.dot_product_samples(4, 200, seed=0), 4), "rect")
    assert bins[S.RAW_COLOUR] == {(None, True)} and bins[S.SCALED_COLOUR] == {(None, False)}  # filled, outlined
    q2 = np.array([[1.0, 0.5], [-0.3, 0.8], [0.2, -0.9]])
    fig = V.arrows_figure(q2, q2[::-1], ("a", "b", "c"), selected=0, target=1, exact=True)
    arrows = styles_by_colour(fig, "line")  # shafts and the legend's swatches
    assert arrows[S.SCALED_COLOUR] == {(svg.DASH, False)} and arrows[S.RAW_COLOUR] == {(None, False)}
    two = svg.bars(["a", "b"], [svg.Series("hard", [1, 2], "#111"), svg.Series("soft", [2, 1], "#222", outline=True)],
                   title="t", x_title="x", y_title="y", y_range=(0.0, 3.0), show_legend=True)  # the phonebook's kind
    bars = styles_by_colour(two, "rect")  # the bars and their swatches (the chart's background is a rect too)
    assert bars["#111"] == {(None, True)} and bars["#222"] == {(None, False)}
    one = svg.plot(svg.Plot("t", "x", "y", lines=[svg.Line("a", [0, 1], [0, 1], "#111"),
                                                  svg.Line("b", [0, 1], [1, 0], "#222", markers=False)]))
    assert R.parse(one).find(f".//{R.NS}circle[@fill='#111']") is not None  # the legend's marked swatch
    assert R.parse(one).find(f".//{R.NS}circle[@fill='#222']") is None
