"""The claims of the shared modules a learner reads through every page (ui/settings.py, ui/exports.py,
viz/figures.py, viz/svg.py, …): each over a family of inputs, with the truth computed apart from the
sentence that states it (the engine's trace, the file parsed back, the picture's own cells)."""

from __future__ import annotations

import dataclasses
import io
import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

import attention as A
from attention.projections import preset_projections
from classmode.store import Store
from tests import svg_reading as R
from tests.claims.families import D_MODELS, SEEDS, SENTENCES
from tests.table_reading import readable, shown_table, view_panels
from tests.test_classmode_pages import ANN, join, on, start_class, stay
from tests.test_pages import APP, TIMEOUT, run_app, set_widget, shown_tokens, step_headers, table
from ui.matrix_editor import paste_block
from viz import exports as X
from viz import figures as F
from viz import formulas as L
from viz import heads as H
from viz import i18n, svg
from viz.labels import token_labels

FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HARD = (*SENTENCES, "مرحبا بالعالم يا صديقي", "我爱你 我爱你", "w " * 40)  # right-to-left, CJK repeated, long


def usable(sentence: str) -> bool:
    try:
        A.tokenize(sentence)
    except A.SentenceError:
        return False
    return True


traces = st.builds(
    lambda sentence, seed, d_model, positional, causal: A.trace_self_attention(
        sentence, d_model=d_model, d_k=max(1, d_model // 2), seed=seed, positional=positional, causal=causal),
    st.sampled_from([s for s in HARD if usable(s)]), st.sampled_from(SEEDS), st.sampled_from(D_MODELS),
    st.booleans(), st.booleans())


# --- viz/figures.py ---------------------------------------------------------------------------------------------


@FAST
@given(traces, st.data())
def test_the_alpha_bars_of_a_query_sum_to_1(trace, data):
    """Step 8's title "α for query … (position p); the bars sum to 1": the bars are query p's weights (their
    heights in proportion), and they add up to 1, under a causal mask too; p is the query's place in the
    sentence."""
    i = data.draw(st.integers(0, trace.n - 1))
    fig = F.alpha_bars(trace, i)
    heights = R.bar_heights(fig)
    row = trace.weights[i]
    assert len(heights) == trace.n and math.isclose(row.sum(), 1.0, rel_tol=1e-9)
    # (a bar of 0 is drawn 0.5 px high, and the heights are rounded to the pixel's tenth)
    np.testing.assert_allclose(heights / heights.max(), row / row.max(), atol=1 / heights.max())
    title = R.texts(fig, "title")[0]
    assert f"(position {i + 1})" in title and "the bars sum to 1" in title


@FAST
@given(traces)
def test_the_tokens_figure_names_n_tokens_in_reading_order(trace):
    """Step 1's "{n} tokens in reading order: {tokens}.": n is the number of tokens the tokenizer made, and the
    list is their labels in the order of the sentence."""
    fig = F.tokens_figure(trace)
    n = len(A.tokenize(trace.sentence))
    labels = token_labels(trace.tokens)
    listed = labels if n <= 64 else labels[:64]
    expected = f"{n} token{'s' if n != 1 else ''} in reading order: "
    assert fig.alt.startswith(expected)
    assert fig.alt[len(expected):].startswith(", ".join(listed[:-1]))
    assert R.ticks(fig, "x") == [str(k) for k in range(1, n + 1)]


@FAST
@given(traces, st.data())
def test_the_weighted_sum_figure_has_n_terms_and_their_sum(trace, data):
    """Step 8's "Σⱼ αᵢⱼ·vⱼ for query …  [{n} terms + sum]": one row α_ij·v_j for each of the n keys (masked ones
    included, as zeros), then a row that is their sum, output row i."""
    i = data.draw(st.integers(0, trace.n - 1))
    fig = F.weighted_sum_figure(trace, i)
    assert f"[{trace.n} term{'s' if trace.n != 1 else ''} + sum]" in fig.alt
    assert len(R.ticks(fig, "y")) == trace.n + 1
    terms = trace.weights[i][:, None] * trace.v  # computed apart from the trace's own weighted values
    np.testing.assert_allclose(terms.sum(axis=0), trace.output[i], atol=1e-9)


@FAST
@given(st.sampled_from(["a b", "the the the", "😀 😀 🤗", "我爱你"]), st.sampled_from(SEEDS),
       st.sampled_from([48, 64, 96, 128, 160, 256, 320, 384]))
def test_a_folded_rows_alt_names_its_d_numbers_in_rows_of_fold(sentence, seed, d):
    """A one-row [1 × D] matrix drawn folded: "the {d} numbers of “token” in {rows} rows of {fold}, row 1 holding
    dimensions 1–{fold}": rows × fold is d, and the picture has that many cells."""
    fold = F.fold_width((1, d))
    if not fold:
        return
    labels = [str(c) for c in range(1, d + 1)]
    m = np.random.default_rng(seed).normal(size=(1, d))
    fig = F.heatmap(m, row_labels=[sentence], col_labels=labels, title="x", row_title="token", col_title="dimension",
                    fold=True)
    rows = int(re.search(r"in (\d+) rows of (\d+)", fig.alt).group(1))
    said_fold = int(re.search(r"in (\d+) rows of (\d+)", fig.alt).group(2))
    assert f"the {d} numbers of “{sentence}”" in fig.alt
    assert rows * said_fold == d and said_fold == fold
    assert f"row 1 holding dimensions 1–{fold}" in fig.alt
    assert len(R.group(fig, "cells")) == d
    # "dimension = the row's first + this": the cell in picture row r, column +k is dimension r·fold + k + 1
    assert R.ticks(fig, "x")[:2] == ["+0", "+1"] and R.ticks(fig, "y")[0] == f"1–{fold}"
    fills = R.cell_fills(fig, (rows, fold)).ravel()
    np.testing.assert_array_equal(fills, svg.colours("signed", m.ravel() / np.abs(m).max() / 2 + 0.5))


# --- viz/svg.py -------------------------------------------------------------------------------------------------


@FAST
@given(st.integers(1, 9), st.integers(1, 9), st.sampled_from(["signed", "weights"]), st.integers(0, 10_000),
       st.booleans())
def test_a_heatmaps_alt_text_names_its_shape_colours_masks_and_numbers(rows, cols, scale, seed, mask):
    """svg.heatmap's text alternative: "{rows} rows … by {columns} columns …; red cells are negative, blue positive,
    up to ±{top}" (or "cells run from dark purple at {low} to yellow at {high}"), "; grey cells are masked" exactly
    when a cell is, and "; each cell shows its number" exactly when the cells hold numbers."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(rows, cols)) if scale == "signed" else rng.random((rows, cols))
    if mask:
        z[rng.random((rows, cols)) < 0.3] = np.nan
    finite = z[np.isfinite(z)]
    top = float(np.abs(finite).max()) if finite.size else 1.0
    low = 0.0
    text = [[("—" if np.isnan(v) else f"{v:.2f}") for v in r] for r in z]
    fig = svg.heatmap(z, cell_text=text, row_labels=[f"r{k}" for k in range(rows)],
                      col_labels=[f"c{k}" for k in range(cols)], title="M", row_title="query", col_title="key",
                      scale=scale, zmin=-top if scale == "signed" else low, zmax=top)
    assert f"{rows} row{'s' if rows != 1 else ''} (query:" in fig.alt
    assert f"{cols} column{'s' if cols != 1 else ''} (key:" in fig.alt
    fills = R.cell_fills(fig, (rows, cols))
    if scale == "signed":
        shown = float(re.search(r"up to ±([0-9.]+)", fig.alt).group(1))
        assert math.isclose(shown, top, rel_tol=5e-3)  # three significant digits of the largest |cell|
        for value, fill in zip(z.ravel(), fills.ravel(), strict=True):
            if np.isfinite(value) and abs(value) > 0.05 * top:
                red, _, blue = R.rgb(fill)
                assert (red > blue) == (value < 0), (value, fill)  # red is negative, blue positive
    else:
        assert "cells run from dark purple at 0 to yellow at" in fig.alt
        if finite.size:
            assert fills.flat[int(np.nanargmax(z))] == svg.VIRIDIS[-1]  # the top is yellow
    assert ("; grey cells are masked" in fig.alt) == bool(np.isnan(z).any())
    assert ("; each cell shows its number" in fig.alt) == bool(R.numbers(fig))


@FAST
@given(st.lists(st.text(min_size=1, max_size=4), min_size=1, max_size=80))
def test_a_long_listing_names_how_many_there_are_in_all(labels):
    """"{shown}, … ({n} in all)": n is the number of labels, and the first twelve are shown."""
    said = svg.listing(labels)
    if len(labels) > 12:
        assert said.endswith(f", … ({len(labels)} in all)")
    else:
        assert "in all)" not in said or any("in all)" in label for label in labels)


# --- ui/exports.py ----------------------------------------------------------------------------------------------


@FAST
@given(traces)
def test_a_csv_carries_the_tables_labels_and_numbers_at_full_precision(trace):
    """"CSV rows and columns carry the tables' labels (tokens, dimensions); numbers keep full precision" (it said
    "the token labels": W_Q's CSV has none, and Q's columns are dimensions): every matrix's CSV, read back, has the
    token labels (a spreadsheet formula's first character guarded by an apostrophe) on the rows of a matrix of
    tokens and on the columns of a query × key one, the dimensions 1 … d elsewhere, and every number is the
    trace's float exactly (masked scores: -inf)."""
    labels = token_labels(trace.tokens)
    unguarded = [re.sub(r"^'(?=[=+\-@\t\r])", "", str(label)) for label in labels]

    def dims(d: int) -> list[str]:
        return [str(k) for k in range(1, d + 1)]

    arrays = {"X": trace.x, "Q": trace.q, "K": trace.k, "V": trace.v, "scores": trace.scores,
              "scaled scores": np.where(trace.mask, trace.scaled_scores, -np.inf), "weights": trace.weights,
              "output": trace.output, "W_Q": trace.w_q, "W_K": trace.w_k, "W_V": trace.w_v}
    for name, expected in arrays.items():
        frame = pd.read_csv(io.StringIO(X.to_csv(X.matrix(trace, name))), index_col=0, keep_default_na=False,
                            dtype=str)
        numbers = frame.map(float).to_numpy()
        np.testing.assert_array_equal(numbers, expected)  # %.17g: the float itself, not a rounding of it
        rows = [re.sub(r"^'(?=[=+\-@\t\r])", "", r) for r in frame.index]
        columns = [re.sub(r"^'(?=[=+\-@\t\r])", "", c) for c in frame.columns]
        if name.startswith("W_"):
            assert (rows, columns) == (dims(trace.d_model), dims(trace.d_k))
        elif name in ("scores", "scaled scores", "weights"):
            assert rows == columns == unguarded
        else:
            assert (rows, columns) == (unguarded, dims(expected.shape[1]))


@FAST
@given(traces)
def test_the_whole_trace_is_in_the_json(trace):
    """"The whole trace as JSON": every field of the trace is in the file, each array with the trace's numbers."""
    held = json.loads(X.trace_json(trace))
    assert {f.name for f in dataclasses.fields(trace)} <= set(held)
    for field in ("x", "q", "k", "v", "scores", "weights", "output", "w_q", "w_k", "w_v"):
        np.testing.assert_array_equal(np.array(held[field], dtype=float), getattr(trace, field))
    assert list(held["tokens"]) == list(trace.tokens)


# --- ui/settings.py ---------------------------------------------------------------------------------------------


@FAST
@given(st.sampled_from(HARD), st.sampled_from(SEEDS), st.sampled_from(D_MODELS), st.booleans())
def test_the_same_seed_always_gives_the_same_embeddings_and_random_matrices(sentence, seed, d_model, positional):
    """The seed box's help, "The same seed always gives the same embeddings and random matrices": the same seed
    twice gives the same E, W_Q, W_K, W_V; a token's embedding is its own whatever sentence it stands in; and
    another seed gives other numbers (else the claim would hold of a seed that did nothing)."""
    if not usable(sentence):
        return
    d_k = max(1, d_model // 2)
    one, two = (A.trace_self_attention(sentence, d_model=d_model, d_k=d_k, seed=seed, positional=positional)
                for _ in range(2))
    for name in ("embeddings", "w_q", "w_k", "w_v"):
        np.testing.assert_array_equal(getattr(one, name), getattr(two, name))
    alone = A.trace_self_attention(one.tokens[-1], d_model=d_model, d_k=d_k, seed=seed)
    np.testing.assert_array_equal(alone.embeddings[0], one.embeddings[-1])
    other = A.trace_self_attention(sentence, d_model=d_model, d_k=d_k, seed=seed + 1, positional=positional)
    assert not np.array_equal(other.w_q, one.w_q) and not np.array_equal(other.embeddings, one.embeddings)


def phone_line(at) -> str | None:
    found = [readable(c.value) for c in at.main.caption if c.value.startswith("Sentence: “")]
    return found[0] if found else None  # as the learner reads it (the Markdown rendered)


@pytest.mark.parametrize("typed", ["the the the the", "Jindřich says: naïve café 你好 🤗!", "مرحبا بالعالم يا صديقي",
                                   "😀 😀 🤗", "w " * 65, " ".join(["alpha"] * 30), "   "])
def test_a_phones_sentence_line_names_the_sentence_whose_tokens_the_lesson_shows(typed):
    """The phone's line "Sentence: “…” (change it in the sidebar: » at the top left)": after the learner types
    ``typed``, the sentence it names (up to its "…", where it is cut) is one whose tokens are those step 1 shows:
    the typed one when it can be shown, the last that worked when it cannot (65 tokens, blanks)."""
    at = set_widget(run_app(all_steps=False), "sentence", typed)
    line = phone_line(at)
    assert line and line.endswith("” (change it in the sidebar: » at the top left)")
    named = line[len("Sentence: “"):-len("” (change it in the sidebar: » at the top left)")]
    tokens = shown_tokens(at)
    if usable(typed):
        expected = typed if len(typed) <= 120 else typed[:120] + "…"
        assert named == expected and tokens == A.tokenize(typed)
    else:
        assert not named.endswith("…") and A.tokenize(named) == tokens


@pytest.mark.parametrize(("d_model", "positional", "causal"), [(2, False, False), (4, True, True), (16, False, True)])
def test_the_popovers_caption_names_the_settings_the_lesson_used(d_model, positional, causal):
    """The line under "Sizes, encodings and mask", "d_model 8 · positional encodings off · causal mask off": its
    values are those of the numbers on the page: X has d_model columns, E and P are shown exactly when the encodings
    are on (and X is their sum), and the later keys' weights are masked exactly when the mask is on."""
    at = run_app(d_model=d_model, positional=positional, causal=causal)
    said = f"d_model {d_model} · positional encodings {'on' if positional else 'off'} · causal mask " \
           f"{'on' if causal else 'off'}"
    assert said in [c.value for c in at.sidebar.caption]
    panels = view_panels(at)
    assert shown_table(at, "x").shape[1] == d_model
    assert ("e" in panels and "p" in panels) == positional
    if positional:
        np.testing.assert_allclose(table(at, "x"), table(at, "e") + table(at, "p"), atol=0.011)
    weights = table(at, "weights")
    assert bool(np.isnan(weights[np.triu_indices(len(weights), 1)]).all()) == causal
    assert not np.isnan(weights[np.tril_indices(len(weights))]).any()


@pytest.fixture
def class_store(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_DATA", str(tmp_path))
    return Store(f"sqlite:///{tmp_path / 'classes.sqlite3'}")


def test_a_follower_gets_the_teachers_sentence_seed_d_model_encodings_and_mask(class_store):
    """A following student's sidebar: "Your page follows your teacher's lesson: each change of it sets your
    sentence, seed, d_model, positional encodings and causal mask to your teacher's", then "Sentence: “…”". The
    teacher changes all five away from their defaults (a right-to-left sentence with a repeated word); the student's
    page then shows the teacher's numbers: the same X (d_model columns, E and P beside it), the same masked α, and
    the line names the teacher's sentence."""
    sentence = "مرحبا مرحبا يا صديقي"
    teacher, _secret, code = start_class()
    teacher = on(teacher, "lessons/walkthrough.py")
    for key, value in (("sentence", sentence), ("seed", 7), ("d_model", 4), ("positional", True), ("causal", True)):
        teacher.sidebar.get_by_key(key).set_value(value) if key in ("sentence", "seed") else \
            teacher.get_by_key(key).set_value(value)
        teacher = teacher.run()
    teacher = teacher.selectbox(key="step").set_value(2).run()
    ann = stay(join(ANN, code, "Ann"))
    assert not ann.exception
    said = [readable(c.value) for c in ann.sidebar.caption]
    assert any(c.startswith("Your page follows your teacher's lesson: each change of it sets your sentence, seed, "
                            "d_model, positional encodings and causal mask to your teacher's.") for c in said)
    assert f"Sentence: “{sentence}”" in said
    assert shown_table(ann, "x").shape[1] == 4 and {"e", "p"} <= set(view_panels(ann))
    assert shown_table(ann, "x").equals(shown_table(teacher, "x"))
    default_seed = run_app(all_steps=True, sentence=sentence, d_model=4, positional=True)
    assert not shown_table(default_seed, "x").equals(shown_table(ann, "x"))  # the teacher's seed, not the default
    teacher = teacher.selectbox(key="step").set_value(7).run()
    ann = stay(ann.run())
    weights = table(ann, "weights")
    assert np.isnan(weights[np.triu_indices(len(weights), 1)]).all()
    assert shown_table(ann, "weights").equals(shown_table(teacher, "weights"))
    assert list(shown_table(ann, "weights").columns) == token_labels(A.tokenize(sentence))


@FAST
@given(st.integers(1, 6), st.integers(1, 12), st.integers(1, 6), st.integers(0, 10_000))
def test_a_grid_of_heads_alt_names_its_rows_columns_and_colour_range(rows, cols, n, seed):
    """svg.tiles' text alternative: "small pictures of α in a grid, {rows} (…) by {columns} (…), coloured from 0 to
    {top}": as many rows and columns as tiles drawn, and {top} the largest weight (three significant digits)."""
    rng = np.random.default_rng(seed)
    z = rng.dirichlet(np.ones(n), size=(rows, cols, n))  # rows × cols heads of [n × n] weights
    top = float(z.max())
    fig = svg.tiles(z, row_labels=[str(k + 1) for k in range(rows)], col_labels=[str(k + 1) for k in range(cols)],
                    title="every head", row_title="layer", col_title="head", zmax=top)
    assert f"{rows} row{'s' if rows != 1 else ''} (layer " in fig.alt
    assert f"{cols} column{'s' if cols != 1 else ''} (head: " in fig.alt
    said = float(re.search(r"coloured from 0 to ([0-9.]+)\.", fig.alt).group(1))
    assert math.isclose(said, top, rel_tol=5e-3)
    assert fig.grid.rows == rows and fig.grid.cols == cols


@FAST
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30), st.sampled_from(["key", "token"]))
def test_a_bar_charts_alt_names_each_bar_and_the_number_it_shows(values, category):
    """svg.bars' text alternative: "a bar chart of {values} for each {category} ({categories})", then each bar's
    number as its label shows it (up to 20 bars)."""
    names = [f"k{j}" for j in range(len(values))]
    labels = [f"{v:.2f}" for v in values]
    fig = svg.bars(names, [svg.Series("α", values, "#000", labels)], title="t", x_title=category, y_title="α",
                   y_range=(0, 1))
    assert fig.alt.startswith(f"t: a bar chart of α for each {category} ({svg.listing(names)}).")
    if len(values) <= 20:
        assert fig.alt.endswith("α: " + ", ".join(f"{c} {lab}" for c, lab in zip(names, labels, strict=True)) + ".")
        assert R.texts(fig, "barlabel") == labels
    assert len(R.bar_heights(fig)) == len(values)


@FAST
@given(st.lists(st.sampled_from(["train", "held-out", "d_k", "1/√d_k"]), min_size=1, max_size=4, unique=True),
       st.booleans())
def test_a_plots_alt_names_its_axes_and_its_lines_or_histograms(names, histograms):
    """svg.plot's text alternative: "{values} against {axis}; lines: {names}" (or "; histograms: …"): every series
    drawn is named, and as what it is drawn."""
    if histograms:
        plot = svg.Plot("p", "score", "count", columns=[svg.Columns(n, [0, 1, 2], [3, 4], "#000") for n in names])
    else:
        plot = svg.Plot("p", "step", "loss", lines=[svg.Line(n, [0, 1], [2, 1], "#000") for n in names])
    fig = svg.plot(plot)
    axes = "count against score" if histograms else "loss against step"
    drawn = (f"; histograms: {', '.join(names)}" if histograms else f"; lines: {', '.join(names)}")
    assert fig.alt == f"p: {axes}{drawn}."


@FAST
@given(st.lists(st.integers(0, 40), min_size=1, max_size=8))
def test_the_answers_chart_names_each_answer_with_its_count(counts):
    """svg.rows_of_bars' text alternative (the projector's chart of a class's answers): "a bar chart of students for
    each answer. {answer}: {count}; …": every answer with the count its bar is drawn to (bars in proportion)."""
    names = [f"option {k + 1}" for k in range(len(counts))]
    fig = svg.rows_of_bars(names, counts, ["#000"] * len(counts), [str(c) for c in counts], title="answers",
                           value_title="students")
    assert fig.alt.startswith("answers: a bar chart of students for each answer.")
    for name, count in zip(names, counts, strict=True):
        assert f"{name}: {count}" in fig.alt
    widths = [float(e.get("width")) for e in R.elements(fig, "rect", "bar")]
    drawn = [c for c in counts if c > 0]
    assert len(widths) == len(drawn)
    if drawn:
        np.testing.assert_allclose(np.array(widths) / max(widths), np.array(drawn) / max(drawn), atol=0.01)


# --- ui/matrix_editor.py ----------------------------------------------------------------------------------------


@FAST
@given(st.integers(1, 12), st.integers(1, 12), st.integers(1, 10), st.integers(1, 10), st.integers(0, 10_000))
def test_a_pasted_block_says_which_rows_and_columns_it_used_and_cut(height, width, rows, cols, seed):
    """"{matrix}: used rows 1–{rows} and columns 1–{columns} of the {height} × {width} block." and "Cut: rows …
    and columns …, because {matrix} is {height} × {width} (d_model × d_k).": the matrix gets the block's top-left
    cells (its others stay), and the cut rows and columns are exactly those beyond the matrix."""
    rng = np.random.default_rng(seed)
    current = rng.normal(size=(rows, cols))
    block = np.round(rng.uniform(-99, 99, size=(height, width)), 3)
    text = "\n".join("\t".join(repr(float(x)) for x in row) for row in block)
    matrix, notes, errors = paste_block("W_Q", current, text)
    assert errors == []
    used_r, used_c = min(height, rows), min(width, cols)
    expected = current.copy()
    expected[:used_r, :used_c] = block[:used_r, :used_c]
    np.testing.assert_array_equal(matrix, expected)
    assert notes[0] == f"W_Q: used rows 1–{used_r} and columns 1–{used_c} of the {height} × {width} block."
    cut = [f"rows {rows + 1}–{height}"] * (height > rows) + [f"columns {cols + 1}–{width}"] * (width > cols)
    if cut:
        assert notes[1] == f"Cut: {' and '.join(cut)}, because W_Q is {rows} × {cols} (d_model × d_k)."
    else:
        assert len(notes) == 1


@pytest.mark.parametrize(("key", "value"), [("seed", 7), ("d_model", 6), ("d_k", 2), ("preset", "identity")])
def test_hand_edits_are_reset_and_said_so_when_the_matrices_shape_or_seed_changes(key, value):
    """"The hand-edited matrices were reset to the preset, because d_model, d_k, the preset or the seed changed (a
    matrix must be d_model × d_k)" and the editor's "An edit lasts while d_model, d_k, the preset and the seed stay
    the same" (it said "while d_model and d_k stay the same": a new seed reset the edit too): after the change the
    steps use the new preset's W_Q (the edit gone), and the page says so once."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["w"] = "Q1.1:5.0"
    at.query_params["step"] = "3"
    at = at.run()
    assert shown_table(at, "w_q").iloc[0, 0] == "5.00"
    at = set_widget(at, key, value)
    said = [i.value for i in at.info if "were reset to the preset" in i.value]
    assert len(said) == 1
    now = {"preset": "random", "seed": 42, "d_model": 8, "d_k": 4, key: value}
    fresh = preset_projections(now["preset"], now["d_model"], now["d_k"], now["seed"])
    np.testing.assert_allclose(table(at, "w_q"), fresh.w_q, atol=0.005 + 1e-9)
    assert not any("These are your hand-edited matrices" in i.value for i in at.info)
    assert not [i.value for i in at.run().info if "were reset to the preset" in i.value]  # once


# --- ui/presenter.py, ui/walkthrough_lesson.py ------------------------------------------------------------------


def test_the_step_menu_counts_the_steps_and_next_and_back_go_where_they_say():
    """"Go to step (of {steps})": the menu offers that many steps, and the walkthrough has that many (all steps on
    one page); "Next: step {step}" opens that step, and on the last "Back to step 1" opens the first."""
    at = run_app(all_steps=False)
    menu = at.selectbox(key="step")
    said = int(re.fullmatch(r"Go to step \(of (\d+)\)", menu.label).group(1))
    assert len(menu.options) == said == len(step_headers(run_app(all_steps=True)))
    for step in range(2, said + 1):
        label = at.button(key="next_step_end").label
        at = at.button(key="next_step_end").click().run()
        assert label.startswith(f"Next: step {step} · ") and step_headers(at)[0].startswith(f"Step {step} of {said}")
        assert label.split(" · ", 1)[1] == step_headers(at)[0].split(" · ", 1)[1]  # the step it names is the one
    assert at.button(key="first_step_end").label == "Back to step 1"
    at = at.button(key="first_step_end").click().run()
    assert step_headers(at)[0].startswith(f"Step 1 of {said}")


@pytest.mark.parametrize("link", ["Q1.1:5.0", "K2.3:-0.5;V8.4:99", "own"])
def test_the_reset_button_brings_back_the_preset(link):
    """"These are your hand-edited matrices; every step uses them. “Reset to the preset” in the editor brings back
    the preset": after the button, W_Q, W_K, W_V are the seed's random matrices again, and so are the scores."""
    preset = A.random_projections(8, 4, 42)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["w"] = f"Q1.1:{preset.w_q[0, 0]!r}" if link == "own" else link
    at.query_params["step"] = "3"
    at = at.run()
    edited = any("These are your hand-edited matrices; every step uses them" in i.value for i in at.info)
    assert edited == (link != "own")  # an "edit" to the preset's own value is none
    if edited:
        assert not np.allclose(table(at, "w_q"), preset.w_q, atol=0.005) or not np.allclose(
            table(at, "w_k"), preset.w_k, atol=0.005) or not np.allclose(table(at, "w_v"), preset.w_v, atol=0.005)
        at = at.button(key="edit-reset").click().run()
    for key, w in zip(("w_q", "w_k", "w_v"), preset, strict=True):
        np.testing.assert_allclose(table(at, key), w, atol=0.005 + 1e-9)
    assert not any("hand-edited" in i.value for i in at.info)


# --- viz/heads.py -----------------------------------------------------------------------------------------------


@FAST
@given(st.sampled_from([s for s in HARD if usable(s)]), st.sampled_from(SEEDS), st.sampled_from([1, 2, 4]),
       st.booleans())
def test_each_heads_panel_is_that_heads_alpha_with_queries_as_rows_and_keys_as_columns(sentence, seed, heads,
                                                                                        causal):
    """The multi-head page's panels "head {h}", rows "query i", columns "key j": panel h holds head h's α, row i the
    weights query i gives each key (a masked key "—"); the head view's line from query i on the left to key j on the
    right is thicker and darker where α is larger."""
    mh = A.trace_multi_head(sentence, d_model=8, n_heads=heads, seed=seed, causal=causal)
    panels = H.heads_heatmaps(mh.weights, mh.tokens, mask=mh.heads[0].mask if causal else None)
    assert len(panels) == heads
    n = len(mh.tokens)
    for h, panel in enumerate(panels):
        assert panel.alt.startswith(f"head {h + 1}: a heatmap, {n} row{'s' if n != 1 else ''} (query i: ")
        expected = mh.heads[h].weights
        if n * n <= 64:
            shown = R.cell_texts(panel, (n, n))
            for i in range(n):
                for j in range(n):
                    if causal and j > i:
                        assert shown[i, j] == "—"
                    else:
                        # (held at six decimals before it is rounded: viz.arithmetic's rule)
                        assert float(shown[i, j]) == pytest.approx(expected[i, j], abs=0.005 + 1e-6)
    lines = H.lines_view(mh.weights, mh.tokens)
    for h, view in enumerate(lines):
        drawn = R.elements(view, "line", "link")
        kept = [(i, j) for i in range(n) for j in range(n) if mh.weights[h, i, j] > H.MIN_WEIGHT_DRAWN]
        assert len(drawn) == len(kept)
        query_y = [float(e.get("y")) for e in R.elements(view, "text", "query")]  # the labels' rows, left
        key_y = [float(e.get("y")) for e in R.elements(view, "text", "key")]  # and right
        assert len(query_y) == len(key_y) == n
        for e, (i, j) in zip(drawn, kept, strict=True):
            assert float(e.get("x1")) < float(e.get("x2"))  # from the left column to the right one
            assert float(e.get("y1")) == query_y[i] and float(e.get("y2")) == key_y[j]  # query i to key j
            a = mh.weights[h, i, j]
            assert float(e.get("stroke-width")) == pytest.approx(1.5 + 4 * a, abs=0.006)  # thicker
            assert float(e.get("stroke-opacity")) == pytest.approx(0.15 + 0.85 * a, abs=0.0006)  # darker


# --- ui/models.py -----------------------------------------------------------------------------------------------


def test_a_model_is_loaded_once_per_server(monkeypatch):
    """"Loading the model (once per server)…": however many sessions (here threads) ask for a model, and however
    often, it is loaded once; another model is loaded once too."""
    from concurrent.futures import ThreadPoolExecutor

    import ui.models as M

    calls = []
    monkeypatch.setattr(M, "load", lambda name: calls.append(name) or object())
    M._loaded.clear()
    try:
        with ThreadPoolExecutor(4) as pool:
            got = list(pool.map(M._loaded, ["fake-a"] * 8 + ["fake-b"] * 8))
        assert sorted(calls) == ["fake-a", "fake-b"]
        assert len({id(g) for g in got[:8]}) == 1 and len({id(g) for g in got[8:]}) == 1
    finally:
        M._loaded.clear()


# --- viz/formulas.py, viz/labels.py -----------------------------------------------------------------------------


@FAST
@given(traces, st.data())
def test_the_written_out_sum_names_how_many_value_vectors_the_mask_leaves_out(trace, data):
    """Step 8's written-out sum ends "+ 0 · (the {n} masked value vectors)": n is the number of keys the query may
    not see (under a causal mask, the tokens after it), and without a mask there is no such term."""
    i = data.draw(st.integers(0, trace.n - 1))
    written = L.weighted_sum(trace, i)
    later = sum(1 for j in range(trace.n) if trace.causal and j > trace.query_positions[i])
    found = re.search(r"\(the (\d+) masked value vectors?\)", written)
    if later:
        assert found and int(found.group(1)) == later
        assert found.group(0).endswith("vector)" if later == 1 else "vectors)")
    else:
        assert found is None and "masked" not in written


@FAST
@given(st.lists(st.sampled_from(["the", "The", "a", "😀", "我", "مرحبا", "international", "internationally",
                                 "x (2)", "x", "("]), min_size=1, max_size=40))
def test_a_repeated_tokens_label_names_its_position(tokens):
    """A label "the (5)": a token that appears more than once (as its label is cut) is named with its position in
    the sentence, counted from 1; one that appears once is named as it is (cut with "…" when long); no two labels
    are alike."""
    labels = token_labels(tokens)
    assert len(set(labels)) == len(labels) == len(tokens)
    for i, (token, label) in enumerate(zip(tokens, labels, strict=True)):
        short = token if len(token) <= 14 else token[:13] + "…"
        assert label in (short, f"{short} ({i + 1})")
        if sum(1 for t in tokens if (t if len(t) <= 14 else t[:13] + "…") == short) > 1:
            assert label == f"{short} ({i + 1})"


# --- viz/i18n.py ------------------------------------------------------------------------------------------------


@FAST
@given(st.lists(st.floats(-1e4, 1e4, allow_nan=False), min_size=1, max_size=8), st.integers(0, 3),
       st.sampled_from(["en", "es", "fr", "zh"]))
def test_numbers_one_after_another_read_back_as_the_same_numbers_in_every_language(values, decimals, lang):
    """A list of numbers (a bar chart's text alternative, a tooltip) in a language whose decimal sign is a comma is
    written "0,12; 0,34", not "0,12, 0,34": read back, the list has as many numbers as were written, each the value
    at the decimals shown."""
    from viz.labels import format_number

    with i18n.speaking(lang):
        items = [format_number(v, decimals) for v in values]
        text = i18n.numbers(items)
    sign = "," if lang in ("es", "fr") else "."
    separator = "\u00a0; " if lang == "fr" else "; " if sign == "," else ", "
    back = text.split(separator)
    assert len(back) == len(values)
    for v, b in zip(values, back, strict=True):
        plain = b.replace("−", "-").replace("\u202f", "").replace("\u00a0", "")
        if sign == ",":
            plain = plain.replace(".", "").replace(",", ".")
        else:
            plain = plain.replace(",", "")
        assert abs(float(plain) - v) <= 0.5 * 10 ** -decimals + 1e-9  # v at the decimals shown


# --- ui/components.py -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("pasted", ["😀" * 1500, "我爱你" * 334, "مرحبا " * 200, "👩‍👩‍👧 " * 300, "x" * 1001])
def test_a_cut_box_says_how_many_characters_the_text_had_and_keeps_that_many(pasted):
    """"{box}: the text had {count} characters; the box keeps the first {limit}.": count is the pasted text's length
    and the box holds its first {limit} characters (emoji, CJK, right-to-left text, ZWJ sequences); text that fits
    is not cut and nothing is said."""
    at = set_widget(run_app(all_steps=False), "sentence", pasted)
    said = [readable(w.value) for w in at.warning if "the box keeps the first" in w.value]
    limit = A.MAX_CHARS
    assert len(said) == 1
    count, kept = (int(x.replace(",", "")) for x in re.search(r"had ([\d,]+) characters; the box keeps the first "
                                                              r"([\d,]+)\.", said[0]).groups())
    assert count == len(pasted) and kept == limit
    assert at.text_input(key="sentence").value == pasted[:limit]
    fits = set_widget(at, "sentence", pasted[:limit])
    assert not [w for w in fits.warning if "the box keeps the first" in w.value]


@pytest.mark.parametrize("lang", ["es", "fr", "zh"])
def test_a_cut_boxs_counts_are_the_same_numbers_in_every_language(lang):
    """The cut message's two counts, as Spanish, French and Chinese write them ("12.000", "12 000", "12,000"), are
    the pasted text's length and the box's limit."""
    pasted = "the cat sat " * 1000  # 12,000 characters
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["lang"] = lang
    at = set_widget(at.run(), "sentence", pasted)
    said = [readable(w.value) for w in at.warning if "✂" in str(w.icon) or "content_cut" in str(w.icon)]
    assert len(said) == 1
    numbers = [int(re.sub(r"[^\d]", "", n)) for n in re.findall(r"\d[\d\u202f\u00a0.,]*\d|\d", said[0])]
    assert numbers == [len(pasted), A.MAX_CHARS]


def test_the_phones_line_follows_a_learner_typing_bad_and_good_sentences_in_turn():
    """The phone's line after each of a row of edits, good and bad in turn: it names the sentence whose tokens step 1
    shows (a bad sentence's line is the last good one's, and a good sentence after it is named again)."""
    at = run_app(all_steps=False)
    good = "This forum is awesome"
    for typed in ["w " * 65, "a dog ran", "", "我爱你 我爱你", "   ", "the the the", "😀 " * 70, "x"]:
        at = set_widget(at, "sentence", typed)
        good = typed if usable(typed) else good
        line = phone_line(at)
        assert line == f"Sentence: “{good}” (change it in the sidebar: » at the top left)", typed
        assert shown_tokens(at) == A.tokenize(good), typed


@FAST
@given(st.sampled_from([s for s in HARD if usable(s)]), st.sampled_from(SEEDS), st.data())
def test_the_head_views_text_names_the_lines_it_draws_when_a_token_is_picked(sentence, seed, data):
    """The head view's text alternative with "Highlight the lines of" a token: the picture draws that query's lines
    only, and the text says so (it said "a line from each query", for a picture of one query's lines). Its lines go
    to the keys the query gives α above 0.005, none to a masked key (it said "to each key": the truth audit found a
    masked query with one line)."""
    causal = data.draw(st.booleans())
    trace = A.trace_self_attention(sentence, seed=seed, causal=causal)
    labels = token_labels(trace.tokens)
    pick = data.draw(st.none() | st.integers(0, trace.n - 1))
    view = H.lines_view(trace.weights[None], trace.tokens, highlight=pick)[0]
    query_y = [float(e.get("y")) for e in R.elements(view, "text", "query")]
    key_y = [float(e.get("y")) for e in R.elements(view, "text", "key")]
    lines = {(query_y.index(float(e.get("y1"))), key_y.index(float(e.get("y2"))))
             for e in R.elements(view, "line", "link")}
    assert f"on the left to the keys on the right it gives α above {H.MIN_WEIGHT_DRAWN:g} (none to a masked key)" \
        in view.alt and "each key" not in view.alt
    queries = range(trace.n) if pick is None else [pick]
    assert lines == {(i, j) for i in queries for j in range(trace.n) if trace.weights[i, j] > H.MIN_WEIGHT_DRAWN}
    assert not any(not trace.mask[i, j] for i, j in lines)  # none to a masked key
    if pick is None:
        assert view.alt.startswith("α as lines: lines from each query on the left")
        assert {i for i, _ in lines} == set(range(trace.n))  # a line from each query (its largest α ≥ 1/n)
    else:
        assert "from each query" not in view.alt and f"the lines from query “{labels[pick]}”" in view.alt
