"""Figure and table builders, tested as pure functions: they must show the engine's own numbers."""

from __future__ import annotations

import base64
import io
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

import attention as A
from attention.phonebook import lookup
from tests import svg_reading as R
from tests import table_reading as reading
from viz import figures as F
from viz import formulas as L
from viz import heads as H
from viz import phonebook as P
from viz import svg
from viz import tables as T
from viz.labels import MASKED_TEXT, format_number, markdown_text, token_labels

TRACE = A.trace_self_attention("the cat sat on the mat", d_model=6, d_k=3, seed=11)
LABELS = ["the (1)", "cat", "sat", "on", "the (5)", "mat"]


def rank(fills, scale: str) -> np.ndarray:
    """Where each cell's colour sits on its scale (0 … 1): the nearest of 2001 points along it."""
    def rgb(colours):
        return np.array([[int(c[k:k + 2], 16) for k in (1, 3, 5)] for c in colours], dtype=float)

    dense = rgb(svg.colours(scale, np.linspace(0, 1, 2001)))  # [2001, 3]
    distance = ((rgb(fills)[:, None, :] - dense[None]) ** 2).sum(axis=2)  # [cells, 2001]
    return distance.argmin(axis=1) / 2000


def test_token_labels_are_unique_short_and_plain():
    assert token_labels(TRACE.tokens) == LABELS  # repeats get their 1-based position
    assert token_labels(["x" * 30])[0] == "x" * 13 + "…"


@pytest.mark.parametrize(
    "m,name,weights",
    [(TRACE.scores, "scores", False), (TRACE.scaled_scores, "scaled", False), (TRACE.weights, "α weights", True)],
)
def test_query_key_heatmap_shows_the_engine_matrix_with_tokens_on_both_axes(m, name, weights):
    fig = F.query_key_figure(TRACE, m, name, weights=weights)
    # the numbers in the cells are the engine's, row i = query i (row 1 on top), column j = key j
    np.testing.assert_array_equal(R.cell_texts(fig, m.shape), np.vectorize(format_number)(m))
    assert R.ticks(fig, "y") == LABELS and R.ticks(fig, "x") == LABELS
    assert "query" in R.texts(fig, "ytitle")[0] and "key" in R.texts(fig, "xtitle")[0]
    # the colours follow the numbers: a larger value is never drawn lower on the scale
    order = np.argsort(m, axis=None, kind="stable")
    assert np.all(np.diff(rank(R.cell_fills(fig, m.shape).ravel(), "weights" if weights else "signed")[order]) >= 0)


def test_weights_use_viridis_from_zero_to_the_largest_weight_and_signed_numbers_rdbu_centred_on_0():
    fig = F.query_key_figure(TRACE, TRACE.weights, "α", weights=True)
    fills = R.cell_fills(fig, TRACE.weights.shape)
    assert fills.flat[np.argmax(TRACE.weights)] == svg.VIRIDIS[-1]  # the largest weight is the top colour
    cbar = R.texts(fig, "cbar")  # top, middle, bottom
    assert float(cbar[0]) == pytest.approx(TRACE.weights.max(), rel=1e-2) and cbar[-1] == "0"
    signed = F.token_by_dim_figure(TRACE, TRACE.q, "Q")
    q_fills = R.cell_fills(signed, TRACE.q.shape)
    top = np.abs(TRACE.q).max()
    assert q_fills.flat[np.argmax(np.abs(TRACE.q))] in (svg.RDBU[0], svg.RDBU[-1])  # ±max reaches an end
    assert (rank(q_fills.ravel(), "signed") > 0.5).tolist() == (TRACE.q.ravel() > 0).tolist()  # positive: blue half
    assert R.texts(signed, "cbar")[1] == "0" and R.texts(signed, "cbar")[0] == f"{top:.3g}"


@pytest.mark.parametrize("name", ["x", "q", "k", "v", "output"])
def test_token_by_dim_heatmaps_show_the_trace(name):
    m = getattr(TRACE, name)
    fig = F.token_by_dim_figure(TRACE, m, name.upper())
    np.testing.assert_array_equal(R.cell_texts(fig, m.shape), np.vectorize(format_number)(m))
    assert R.ticks(fig, "y") == LABELS
    assert R.ticks(fig, "x") == [str(c) for c in range(1, m.shape[1] + 1)]
    assert f"[{m.shape[0]} × {m.shape[1]}]" in R.texts(fig, "title")[0]  # the shape is in the title


def test_projection_heatmap():
    fig = F.projection_figure(TRACE.w_k, "W_K")
    np.testing.assert_array_equal(R.cell_texts(fig, (6, 3)), np.vectorize(format_number)(TRACE.w_k))
    assert "[6 × 3]" in R.texts(fig, "title")[0]


def test_masked_cells_are_blank_and_labelled_minus_infinity():
    causal = A.trace_self_attention("a b c", causal=True)
    fig = F.query_key_figure(causal, causal.masked_scores, "scaled")
    assert R.cell_texts(fig, (3, 3))[0, 1] == "−∞" and R.cell_fills(fig, (3, 3))[0, 1] == svg.MASKED_FILL
    weights = F.query_key_figure(causal, causal.weights, "α", weights=True)
    assert R.cell_texts(weights, (3, 3))[0, 2] == MASKED_TEXT and R.cell_fills(weights, (3, 3))[0, 2] == svg.MASKED_FILL
    assert T.formatted(T.query_key_frame(causal, causal.masked_scores)).iloc[0, 2] == "−∞"


def test_tokens_figure_colours_repeats_alike():
    fig = F.tokens_figure(TRACE)
    fills = R.cell_fills(fig, (1, TRACE.n))[0]
    assert fills[0] == fills[4] != fills[1]  # "the" twice, one colour
    assert list(R.cell_texts(fig, (1, TRACE.n))[0]) == LABELS
    assert R.ticks(fig, "x") == ["1", "2", "3", "4", "5", "6"]  # positions i


def test_step_8_figures_read_the_trace():
    bars = F.alpha_bars(TRACE, 2)
    heights = R.bar_heights(bars)
    np.testing.assert_allclose(heights / heights.sum(), TRACE.weights[2], atol=0.01)  # bar heights ∝ α_3j
    assert R.texts(bars, "barlabel") == [format_number(a) for a in TRACE.weights[2]]
    assert R.ticks(bars, "x") == LABELS
    fig = F.weighted_sum_figure(TRACE, 2)
    shown = R.cell_texts(fig, (TRACE.n + 1, TRACE.d_k))
    places = np.abs(T.weighted_sum_decimals(TRACE, 2))  # a column's terms: the decimals its sum needs
    np.testing.assert_array_equal(shown[:-1], np.vectorize(format_number)(TRACE.weighted_values[2], places[:-1]))
    np.testing.assert_array_equal(shown[-1], np.vectorize(format_number)(TRACE.output[2]))
    frame = T.weighted_sum_frame(TRACE, 2)
    assert list(frame.index)[-1] == "Σ = output" and R.ticks(fig, "y")[-1] == "Σ = output"
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


PAYLOADS = ["<img src=x onerror=alert(1)>", "<script>alert(1)</script>", '"><svg onload=alert(1)>', "&amp; &lt;",
            "[a](http://x) $x$", "]]><!--"]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_user_text_in_a_figure_stays_text(payload):
    evil = A.trace_self_attention(f"{payload} ok", d_model=4, d_k=2)
    book = lookup([payload, "Jan"], ["123", "456"], payload)
    figures = [F.query_key_figure(evil, evil.weights, "α", weights=True), F.alpha_bars(evil, 0),
               F.tokens_figure(evil), F.weighted_sum_figure(evil, 0),
               *H.heads_heatmaps(evil.weights[None], evil.tokens), *H.lines_view(evil.weights, evil.tokens),
               P.key_bars(book, soft=True), P.answers_figure(book)]
    for fig in figures:
        root = R.parse(fig)  # well-formed: the payload did not break out of its text
        tags = {e.tag.removeprefix(R.NS) for e in root.iter()}
        # no script, no img (the style is our own dark palette, the same in every chart)
        assert tags <= {"svg", "style", "g", "rect", "path", "text", "line", "circle", "polyline", "polygon"}
        assert not any(a.startswith("on") for e in root.iter() for a in e.attrib)
    shown = "".join(R.texts(figures[0]))
    assert token_labels(evil.tokens)[0] in shown  # …and it is shown literally, as typed


def test_markdown_text_escapes_links_maths_and_emphasis():
    assert markdown_text("[a](u) $x$ *b*") == r"\[a\]\(u\) \$x\$ \*b\*"


@pytest.mark.parametrize(("text", "broken"), [
    ("see https://evil.example/x", "https\\:\u2060\\/\\/"), ("HTTP://EVIL.EXAMPLE", "HTTP\\:\u2060\\/"),
    ("www.evil.example", "www\u2060\\."), ("mail a@evil.example", "a\\@\u2060evil"), ("a -- b", "\\-\u2060\\-"),
])
def test_markdown_text_breaks_bare_addresses_and_double_dashes(text, broken):
    """Streamlit's Markdown links a bare address and turns "--" into a dash even when escaped (checked in
    Chromium, tests/browser/test_red_team_browser.py); a word joiner inside each stops it."""
    assert broken in markdown_text(text)


@given(st.text(max_size=60))
def test_markdown_text_reads_back_as_the_text_itself(text):
    """Whatever the text, a learner reads exactly it: escapes and joiners add nothing visible."""
    assert reading.readable(markdown_text(text)) == text


NUMBER = r"\(?(-?\d+\.\d+)\)?"


def dot_block_numbers(block: str):
    """The factors, the relation, the shown score, and the fraction s / root = z of one written-out block."""
    pairs = [(float(a), float(b)) for a, b in re.findall(NUMBER + r"\\cdot" + NUMBER, block)]
    rel, score = re.search(r"&(=|\\approx) (-?\d+\.\d+) \\\\ z_", block).groups()
    num, den, z = re.search(r"\\frac\{(-?\d+\.\d+)\}\{(\d+\.\d+)\} = (-?\d+\.\d+)", block).groups()
    return pairs, rel, score, (float(num), float(den), z)


traces = st.builds(
    lambda words, seed, d_k, causal, pe: A.trace_self_attention(" ".join(words), d_model=8, d_k=d_k, seed=seed,
                                                                causal=causal, positional=pe),
    st.lists(st.sampled_from(["the", "cat", "sat", "on", "mat", "x"]), min_size=1, max_size=6),
    st.integers(0, 10_000), st.sampled_from([1, 2, 3, 4, 7, 16]), st.booleans(), st.booleans(),
)


@settings(max_examples=60, deadline=None)
@given(traces, st.data())
def test_written_out_sums_add_up_to_the_shown_results(t, data):
    i = data.draw(st.integers(0, t.n - 1))
    for j, block in enumerate(L.dot_products(t, i)):
        if not t.mask[i, j]:
            assert "masked" in block and rf"z_{{{i + 1},{j + 1}}} = -\infty" in block
            continue
        pairs, rel, score, (num, den, z) = dot_block_numbers(block)
        assert len(pairs) == t.d_k and score == L.plain(t.scores[i, j]) and z == L.plain(t.scaled_scores[i, j])
        if rel == "=":  # the shown products add up to the shown score, and the shown quotient is z
            assert L.plain(sum(a * b for a, b in pairs)) == score
        assert L.plain(num / den) == z
    soft = L.softmax_row(t, i)
    relation, total = re.search(r"(=|\\approx) (\d+\.\d{3}) \\\\", soft).group(1, 2)
    terms = re.search(r"m_\{\d+\}\} = (.*?) \\\\", soft).group(1).split(" = ")[0].split(" \\approx ")[0].split(" + ")
    assert total == L.plain(t.exp_scores[i].sum(), 3)
    # the written terms add up to the written total, or it says ≈ ("mat on the on on", d_k 1, seed 1: 3.731 ≈ 3.732)
    assert (L.plain(sum(float(x) for x in terms), 3) == total) == (relation == "=")
    assert len(terms) == t.mask[i].sum()  # one term e^(z - m) per key the query may see
    quotients = re.findall(r"\\frac\{(\d+\.\d+)\}\{(\d+\.\d+)\} (=|\\approx) (\d+\.\d+)", soft)
    for j, (e, tot, rel, a) in zip(np.flatnonzero(t.mask[i]), quotients, strict=True):
        assert a == L.plain(t.weights[i, j])
        assert rel != "=" or L.plain(float(e) / float(tot)) == a  # e / Σ = α, as shown
    out = L.weighted_sum(t, i)
    alphas = [float(a) for a in re.findall(r"(\d+\.\d+)\\,\\left\[", out)]
    vectors = [[float(x) for x in v.split(r",\ ")] for v in re.findall(r"\\left\[(.*?)\\right\]", out)]
    shown_out = vectors.pop()
    assert [L.plain(x) for x in shown_out] == [L.plain(x) for x in t.output[i]]
    if r"\approx" not in out:
        for c in range(t.d_k):
            assert L.plain(sum(a * v[c] for a, v in zip(alphas, vectors, strict=True))) == L.plain(shown_out[c])


def test_one_symbol_one_meaning_s_is_raw_and_z_is_scaled():
    t = A.trace_self_attention("This forum is awesome", d_model=8, d_k=4, seed=42, causal=True)
    block = L.dot_products(t, 1)[0]
    # s_{2,1} is the raw q·k (the step 5 table) and z_{2,1} the scaled score (the step 6 table)
    assert re.search(r"s_\{2,1\} = q_\{2\} \\cdot k_\{1\}", block)
    assert dot_block_numbers(block)[2] == L.plain(t.scores[1, 0])
    assert re.search(r"z_\{2,1\} = \\frac\{s_\{2,1\}\}\{\\sqrt\{d_k\}\}", block)
    assert "s_{2,3}" in L.dot_products(t, 1)[2] and r"z_{2,3} = -\infty" in L.dot_products(t, 1)[2]
    soft = L.softmax_row(t, 1)
    assert r"\max_j z_{2j}" in soft and "s_" not in soft  # the softmax sees z, never s


def test_positional_encoding_formula_counts_tokens_from_1_like_the_table():
    t = A.trace_self_attention("a b c", d_model=4, positional=True)
    formula = L.positional_encoding(t)
    assert r"\sin\frac{i-1}" in formula and "pos" not in formula
    # the worked example is the table's own entry: token 2, column 1 = sin(2 − 1)
    example = float(re.search(r"P_\{2,1\} = .*? = (-?\d+\.\d+)\{\}\}$", formula).group(1))
    assert example == float(L.plain(t.positional_encoding[1, 0])) == float(L.plain(np.sin(1)))
    assert t.positional_encoding[0, 0] == 0.0  # and the first token's sine is sin(0)


def test_a_formula_apart_breaks_only_between_its_parts():
    r"""Each part is one braced atom (KaTeX breaks a line only at its top level), ended by an empty {} (its last symbol
    keeps the space after it), and the parts are joined by the only break points: a group's parts a \quad apart, the
    groups a \qquad (or ``gap``) apart."""
    formula = L.apart([r"Q = X W_Q,", r"K = X W_K,"], r"[4 \times 8] = [4 \times 4]")
    assert formula == (r"{Q = X W_Q,{}}\quad\allowbreak {K = X W_K,{}}\qquad\allowbreak "
                       r"{[4 \times 8] = [4 \times 4]{}}")
    assert L.apart(r"a \to", "b", gap=r"\;") == r"{a \to{}}\;\allowbreak {b{}}"
    assert L.apart("x = 1") == "{x = 1{}}"  # one part: never broken
    assert L.apart(r"(a,\ \allowbreak b)") == r"{(a,\ {}}\allowbreak {b){}}"  # a part's own break, its own space


def test_formulas_wrap_long_dot_products():
    t = A.trace_self_attention("a b", d_model=16, d_k=16)
    assert L.dot_products(t, 0)[0].count(r"&\quad +") == 3  # 16 products, 4 a line


@pytest.mark.parametrize("causal", [False, True])
def test_step_8s_scores_are_one_alignment_with_every_keys_lines(causal):
    """Step 8 draws the keys' blocks as one formula: one aligned environment (KaTeX nests none of them),
    every key's s and z in it, in key order, masked keys too."""
    t = A.trace_self_attention("the cat sat on the mat", d_model=6, d_k=3, seed=5, causal=causal)
    blocks = L.dot_products(t, 1)
    one = L.one_alignment(blocks)
    assert one.startswith(r"\begin{aligned}") and one.endswith(r"\end{aligned}")
    assert one.count(r"\begin{aligned}") == 1 and one.count(r"\end{aligned}") == 1
    assert one.count(r" \\[12pt] ") == t.n - 1
    starts = [one.index(rf"s_{{2,{j + 1}}} = q_{{2}} \cdot k_{{{j + 1}}}") for j in range(t.n)]
    assert starts == sorted(starts)
    assert one.count("is masked") == int((~t.mask[1]).sum())
    assert all(b.startswith(r"\begin{aligned}") and b.endswith(r"\end{aligned}") for b in blocks)


def test_tables_escape_markdown_in_text_but_not_numbers():
    t = A.trace_self_attention("> [a](b) $x$")
    shown = T.formatted(T.token_frame(t), None)
    assert list(shown["token"]) == ["\\>", "\\[", "a", "\\]", "\\(", "b", "\\)", "\\$", "x", "\\$"]
    assert list(shown["id"]) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 7]  # numbers untouched
    weights = T.formatted(T.query_key_frame(t, t.weights))
    assert weights.index[0] == "\\>" and weights.columns[7] == "\\$ \\(8\\)"
    assert weights.iloc[0, 0] == format_number(t.weights[0, 0])


def test_markdown_tables_show_the_engine_numbers_under_their_labels():
    t = A.trace_self_attention("the cat sat on the mat", d_model=6, d_k=3, seed=11, causal=True)
    shown = reading.frame(T.markdown_table(T.query_key_frame(t, t.weights, weights=True)))
    assert shown.index.name == "query ↓ · key →"
    assert list(shown.index) == list(shown.columns) == LABELS
    for i in range(t.n):
        for j in range(t.n):  # hand-written: masked keys (j > i) show "—", the rest the engine's weight
            assert shown.iloc[i, j] == (MASKED_TEXT if j > i else f"{t.weights[i, j]:.2f}")
    tokens = reading.frame(T.markdown_table(T.token_frame(t), None), index=False)  # no index column
    assert list(tokens.columns) == ["position i", "token", "id"]
    assert tokens.values.tolist() == [["1", "the", "0"], ["2", "cat", "1"], ["3", "sat", "2"], ["4", "on", "3"],
                                      ["5", "the", "0"], ["6", "mat", "4"]]


def test_markdown_tables_align_numbers_right_and_name_a_named_index():
    frame = pd.DataFrame({"next token": ["a", "b"], "probability": [0.5, 0.25]},
                         index=pd.RangeIndex(1, 3, name="rank"))
    lines = T.markdown_table(frame, decimals=3).splitlines()
    assert lines[:2] == ["| rank | next token | probability |", "| --- | :-- | --: |"]
    assert lines[2:] == ["| **1** | a | 0.500 |", "| **2** | b | 0.250 |"]


@pytest.mark.parametrize("text", ["a|b", "a\\|b", "line\nbreak", "x\r\ny", "[a](b)", "$x$", "<b>hi</b>", "**bold**",
                                  "`code`", "| --- |", "\\", ":red[x]", "![i](http://x/i.png)", "&amp;", " ", "  x  "])
def test_markdown_tables_keep_every_cell_in_its_place_whatever_the_text(text):
    frame = pd.DataFrame({"name": [text, "b"], "x": [1.0, 2.0]}, index=[text, "row 2"])
    shown = reading.frame(T.markdown_table(frame))
    plain = " ".join(text.splitlines()).strip()  # a line break becomes a space; the parser trims a cell
    assert shown.shape == (2, 2) and list(shown.columns) == ["name", "x"]
    assert list(shown.index) == [plain, "row 2"] and list(shown["name"]) == [plain, "b"]
    assert list(shown["x"]) == ["1.00", "2.00"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=20), min_size=1, max_size=12))
def test_labels_stay_unique_whatever_the_tokens(tokens):
    labels = token_labels(tokens)
    assert len(set(labels)) == len(labels)
    assert all(len(label) <= 13 + 1 + 4 + 2 * len(str(len(tokens))) for label in labels)


def test_long_tokens_that_share_a_prefix_keep_distinct_labels():
    assert token_labels(["internationalization", "internationalizations"]) == [
        "international… (1)", "international… (2)"]
    assert token_labels(["x (2)", "x", "x"]) == ["x (2) (1)", "x (2)", "x (3)"]


@settings(max_examples=40, deadline=None)
@given(traces)
def test_alpha_tables_show_masked_weights_as_the_heatmap_does(t):
    fig = F.query_key_figure(t, t.weights, "α", weights=True)
    shown = T.formatted(T.query_key_frame(t, t.weights, weights=True)).to_numpy()
    np.testing.assert_array_equal(shown == MASKED_TEXT, R.cell_texts(fig, (t.n, t.n)) == MASKED_TEXT)
    np.testing.assert_array_equal(shown == MASKED_TEXT, ~t.mask if t.causal else np.zeros_like(t.mask))
    row = T.formatted(T.query_key_frame(t, t.weights, weights=True).iloc[[t.n - 1]]).to_numpy()
    assert not (row == MASKED_TEXT).any()  # the last query sees every key; a selected row keeps its own mask
    first = T.formatted(T.query_key_frame(t, t.weights, weights=True).iloc[[0]]).to_numpy()
    assert (first == MASKED_TEXT).sum() == (t.n - 1 if t.causal else 0)
    bars = F.alpha_bars(t, 0)
    assert R.texts(bars, "barlabel").count(MASKED_TEXT) == (t.n - 1 if t.causal else 0)


def test_a_large_heatmap_is_one_picture_with_each_cell_in_its_place():
    # 64 tokens: 4,096 cells, too many to number (the table has them), drawn as one PNG inside the SVG
    big = A.trace_self_attention(" ".join(f"w{k}" for k in range(64)), causal=True)
    fig = F.query_key_figure(big, big.weights, "α", weights=True)
    (image,) = R.elements(fig, "image", "cells")
    href = image.get("href")
    assert href.startswith("data:image/png;base64,") and R.numbers(fig) == []  # nothing is fetched
    picture = np.asarray(Image.open(io.BytesIO(base64.b64decode(href.split(",", 1)[1]))).convert("RGB"))
    ch, cw = picture.shape[0] / 64, picture.shape[1] / 64
    centres = picture[(np.arange(64) * ch + ch / 2).astype(int)][:, (np.arange(64) * cw + cw / 2).astype(int)]
    masked = np.all(centres == R.rgb(svg.MASKED_FILL), axis=2)  # [64, 64]
    np.testing.assert_array_equal(masked, ~big.mask)  # the grey cells are exactly the masked ones
    shade = rank([f"#{r:02x}{g:02x}{b:02x}" for r, g, b in centres[big.mask].tolist()], "weights")
    np.testing.assert_allclose(shade, big.weights[big.mask] / big.weights.max(), atol=0.01)  # row i, column j
    assert R.ticks(fig, "y")[63] == "w63" and len(fig.markup) < 60_000
