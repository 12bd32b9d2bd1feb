"""The multi-head and √d_k lessons and the causal mask, through AppTest and the pure builders."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import attention as A
from attention.cross import trace_cross_attention
from tests import svg_reading as R
from tests.table_reading import shown_table, view_panels
from tests.test_pages import assert_no_exception, run_app, set_widget, shown_number, table
from ui.settings import DEFAULT_SEED, DEFAULT_SENTENCE
from viz import heads as H
from viz import scaling as S
from viz import svg
from viz.figures import MASKED_TEXT, query_key_figure
from viz.labels import format_number
from viz.steps import lesson_markdown

MULTIHEAD, SCALING = "lessons/multihead.py", "lessons/scaling.py"
ROUNDING = 0.005 + 1e-9


def open_page(path: str, **widgets):
    at = run_app(**{k: v for k, v in widgets.items() if k in {"sentence", "seed", "d_model", "positional", "causal"}})
    at = at.switch_page(path).run()
    for key, value in widgets.items():
        if key not in {"sentence", "seed", "d_model", "positional", "causal"}:
            at = set_widget(at, key, value)
    assert_no_exception(at)
    return at


# --- multi-head page ----------------------------------------------------------------------------
def test_multihead_default_shows_two_heads_and_the_engine_numbers():
    at = open_page(MULTIHEAD)
    m = A.trace_multi_head(DEFAULT_SENTENCE, d_model=8, n_heads=2, seed=DEFAULT_SEED)
    assert at.selectbox(key="heads").value == 2
    assert at.selectbox(key="heads").options == ["1", "2", "4", "8"]  # the divisors of d_model
    for k in range(2):
        np.testing.assert_allclose(table(at, f"heads-{k}"), m.weights[k], atol=ROUNDING)
    np.testing.assert_allclose(table(at, "concat"), m.concat, atol=ROUNDING)
    np.testing.assert_allclose(table(at, "w_o"), m.w_o, atol=ROUNDING)
    np.testing.assert_allclose(table(at, "mh-output"), m.output, atol=ROUNDING)
    assert any(r"2 \times [4 \times 4]" in latex.value for latex in at.latex)  # the split → concat path


@pytest.mark.parametrize(("d_model", "heads"), [(8, 2), (8, 8), (6, 3), (2, 1), (16, 4)])
def test_w_os_heatmap_and_table_name_its_rows_and_columns_d_model(d_model, heads):
    """Issue 43: W_O's heatmap labelled its columns "output dim (d_k)", W_Q's label; W_O is [d_model × d_model]:
    its rows are Concat's h·d_k = d_model columns, its columns the output's d_model dimensions. Read back from the
    page's chart, its table and its tooltips' names, over head counts and d_model."""
    at = open_page(MULTIHEAD, d_model=d_model, heads=heads)
    panel = view_panels(at)["w_o"]
    fig = type("Fig", (), {"markup": panel["figure"]["svg"], "width": panel["figure"]["width"],
                           "height": panel["figure"]["height"]})
    d_k = d_model // heads
    rows, cols = R.texts(fig, "ytitle"), R.texts(fig, "xtitle")
    assert len(rows) == len(cols) == 1 and "d_model" in rows[0] and "d_model" in cols[0]
    assert "Concat" in rows[0] and cols[0].startswith("output")
    if d_k != d_model:
        assert "(d_k)" not in rows[0] + cols[0]  # W_Q's axis name
    assert R.texts(fig, "title") == [f"W_O  [{d_model} × {d_model}]"]
    assert panel["corner"] == "Concat dim ↓ · output dim →"
    assert (panel["rowName"], panel["colName"]) == ("Concat dimension", "output dimension")
    assert len(panel["rows"]) == len(panel["cols"]) == d_model  # the table: d_model rows and columns
    concat = view_panels(at)["concat"]
    assert len(concat["cols"]) == d_model == heads * d_k  # W_O's rows are Concat's columns, one for one


def test_multihead_with_one_head_equals_the_walkthrough_numbers():
    walk = run_app(d_k=8)  # the walkthrough at d_k = d_model, same seed and sentence
    multi = open_page(MULTIHEAD, heads=1)
    np.testing.assert_array_equal(table(multi, "heads-0"), table(walk, "weights"))
    np.testing.assert_array_equal(table(multi, "concat"), table(walk, "output"))


def test_multihead_controls_change_what_is_shown():
    at = open_page(MULTIHEAD, heads=4)
    assert table(at, "concat").shape == (4, 8) and table(at, "heads-3").shape == (4, 4)
    at = set_widget(at, "open_head", 3)  # open head 4 in the full step-by-step view
    m = A.trace_multi_head(DEFAULT_SENTENCE, d_model=8, n_heads=4, seed=DEFAULT_SEED)
    np.testing.assert_allclose(table(at, "head-w_q"), m.w_q[:, 6:8], atol=ROUNDING)  # step 3: columns 7–8
    assert [h.value for h in at.subheader if h.value.startswith("Step ")] == ["Step 3 of 8 · Projection matrices W_Q, "
                                                                             "W_K, W_V"]  # one step at a time
    at = set_widget(at, "head_step", 7)
    np.testing.assert_allclose(table(at, "head-weights"), m.heads[3].weights, atol=ROUNDING)
    at = set_widget(at, "d_model", 6)  # 4 no longer divides d_model: the choice falls back
    assert_no_exception(at)
    assert at.selectbox(key="heads").options == ["1", "2", "3", "6"]
    assert at.selectbox(key="heads").value in (1, 2, 3, 6)


def test_switching_pages_keeps_the_shared_settings():
    at = run_app(sentence="the cat sat", seed=5, d_model=6, positional=True)
    at = at.switch_page(MULTIHEAD).run()
    assert_no_exception(at)
    assert at.text_input(key="sentence").value == "the cat sat" and at.number_input(key="seed").value == 5
    m = A.trace_multi_head("the cat sat", d_model=6, n_heads=2, seed=5, positional=True)
    np.testing.assert_allclose(table(at, "mh-output"), m.output, atol=ROUNDING)


def test_multihead_bad_sentence_keeps_working():
    at = open_page(MULTIHEAD, sentence="   ")
    assert "empty" in at.warning[0].value
    assert table(at, "heads-0").shape == (4, 4)


# --- causal mask --------------------------------------------------------------------------------
def test_causal_toggle_on_the_walkthrough_masks_the_upper_triangle():
    at = run_app(causal=True)
    assert_no_exception(at)
    shown = shown_table(at, "scaled").to_numpy()
    upper = np.triu(np.ones((4, 4), bool), 1)
    assert all(cell == "−∞" for cell in shown[upper])  # the scores step shows −∞ where masked
    weights = table(at, "weights")
    assert np.all(np.isnan(weights[upper])) and weights[0, 0] == 1.0  # masked weights show "—", as in the heatmap
    np.testing.assert_allclose(np.nansum(weights, axis=1), 1, atol=0.02)
    assert any("Causal mask on" in c.value for c in at.caption)


def test_causal_toggle_on_the_multihead_page():
    at = open_page(MULTIHEAD, causal=True)
    for k in range(2):
        shown = table(at, f"heads-{k}")
        upper = np.triu(np.ones(shown.shape, bool), 1)
        assert np.all(np.isnan(shown[upper])) and not np.isnan(shown[~upper]).any()  # "—" exactly where masked


def test_masked_weights_look_different_from_small_weights():
    t = A.trace_self_attention("a b c", causal=True)
    fig = query_key_figure(t, t.weights, "α", weights=True)
    text, fills = R.cell_texts(fig, (3, 3)), R.cell_fills(fig, (3, 3))
    assert text[0, 1] == MASKED_TEXT and fills[0, 1] == svg.MASKED_FILL  # grey and "—", not a dark 0.00
    assert text[1, 0] != MASKED_TEXT and fills[1, 0] != svg.MASKED_FILL


# --- √d_k page ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("d_k", "seed"), [(64, None), (1, 7), (2, 0), (64, 5), (512, 42)])
def test_the_scaling_pages_example_is_the_median_row_the_table_shows(d_k, seed):
    """Issue 43: at the defaults (d_k 64, seed 42) "One more random row, as an example" had an unscaled largest
    weight of 0.596, far from the table's median (0.968 then), and a caption calling it untypical. The example is
    the experiment's median row by that weight: the page says so in one sentence, its number is the table's
    median at the slider's d_k, and the metrics and the caption under the bars are its own numbers."""
    at = open_page(SCALING, dk_demo=d_k, **({} if seed is None else {"seed": seed}))
    [heading] = [m.value for m in at.markdown if "the median row" in m.value]
    said = re.search(r"ranked by their largest weight without scaling \((\d\.\d{3}), the median in the table above\)",
                     heading)
    assert said, heading
    stats = shown_table(at, "saturation-stats")
    assert said[1] == stats.loc["median max α, no scaling", str(d_k)]  # the table's own median
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["largest weight, no scaling"] == said[1]
    [caption] = [c.value for c in at.caption if "The raw scores s = q·k are" in c.value]
    assert "untypical" not in caption and "One more random row" not in "".join(m.value for m in at.markdown)
    if d_k == 1:
        assert caption.startswith("At d_k = 1, √d_k = 1: scaling divides by 1 and changes nothing.")
        assert metrics["largest weight, no scaling"] == metrics["largest weight, ÷ √1"]
        return
    assert f"its largest weight is {said[1]}, against {metrics[f'largest weight, ÷ √{d_k}']} with scaling" in caption
    j0, j1 = (metrics[f"‖∂α/∂z‖ (z: softmax input), {side}"] for side in ("no scaling", f"÷ √{d_k}"))
    assert f"without scaling, {j0} against {j1}, " in caption
    assert ("smaller without scaling" in caption) == (float(j0) < float(j1))


def test_scaling_page_default_and_controls():
    at = open_page(SCALING)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["d_k"] == "64"
    dots = A.dot_product_samples(64, 4000, seed=DEFAULT_SEED)
    assert metrics["measured Var(q·k)"] == f"{dots.var():.1f}"
    assert not any("untypical" in c.value for c in at.caption)  # the example is the median row (issue 43)
    stats = shown_table(at, "saturation-stats").map(shown_number)  # a row per measure, a column per d_k
    assert list(stats.columns) == [str(d) for d in (1, 4, 16, 64, 256, 512)]
    sharpest = stats.loc["median max α, no scaling"]
    assert sharpest.is_monotonic_increasing  # the unscaled softmax gets sharper as d_k grows…
    assert sharpest["64"] > stats.loc["median max α, ÷ √d_k", "64"]  # …than the scaled one
    at = set_widget(at, "dk_demo", 512)
    metrics = {m.label: m.value for m in at.metric}
    assert float(metrics["largest weight, no scaling"]) > 0.99  # saturated
    assert float(metrics["largest weight, ÷ √512"]) < 0.9
    for grad in ("‖∂α/∂z‖ (z: softmax input)", "‖∂α/∂q‖ (reaches W_Q)"):
        assert float(metrics[f"{grad}, no scaling"]) < float(metrics[f"{grad}, ÷ √512"])
    assert any("Without scaling its softmax is sharper" in c.value and re.search("(?<!un)like the medians", c.value)
               for c in at.caption)


@pytest.mark.parametrize("temperature", [0.05, 10.0])
def test_temperature_on_the_sentence(temperature):
    at = open_page(SCALING, temperature=temperature)
    shown = table(at, "temperature-weights")
    t = A.trace_self_attention(DEFAULT_SENTENCE, seed=DEFAULT_SEED, temperature=temperature)
    np.testing.assert_allclose(shown, t.weights, atol=ROUNDING)
    standard = A.trace_self_attention(DEFAULT_SENTENCE, seed=DEFAULT_SEED).weights
    if temperature < 1:  # sharper than standard attention, peaked on each row's best key
        assert np.all(shown.max(axis=1) >= standard.max(axis=1))
        np.testing.assert_array_equal(shown.argmax(axis=1), t.scores.argmax(axis=1))
    else:  # flatter: closer to the uniform 1/4 than standard attention
        assert np.abs(shown - 0.25).max() < 0.05 < np.abs(standard - 0.25).max()


# --- builders ------------------------------------------------------------------------------------
def test_heads_heatmaps_show_every_head_on_one_scale():
    m = A.trace_multi_head("the cat sat on", d_model=8, n_heads=4, causal=True)
    figs = H.heads_heatmaps(m.weights, m.tokens, mask=m.heads[0].mask)
    shown = np.array([R.numbers(fig) for fig in figs], dtype=object).reshape(4, 4, 4)  # [head, query, key]
    assert shown[0, 0, 3] == MASKED_TEXT
    np.testing.assert_array_equal(shown[2][m.heads[0].mask], [format_number(a) for a in m.weights[2][m.heads[0].mask]])
    assert [R.texts(fig, "title") for fig in figs] == [["head 1"], ["head 2"], ["head 3"], ["head 4"]]
    for fig in figs:  # each head a chart of its own, whole wherever it wraps: its labels, its colour bar
        assert R.ticks(fig, "y") == R.ticks(fig, "x") == ["the", "cat", "sat", "on"]
        assert R.texts(fig, "ytitle") == ["query i"] and R.texts(fig, "xtitle") == ["key j"]
    # one colour scale: the same weight has the same colour in every head, and the same colour bar
    fills = np.array([[e.get("fill") for e in R.group(fig, "cells")] for fig in figs]).reshape(4, 4, 4)
    top = np.unravel_index(np.argmax(m.weights), m.weights.shape)
    assert fills[top] == svg.VIRIDIS[-1]
    assert len({tuple(R.texts(fig, "cbar")) for fig in figs}) == 1 and len(R.texts(figs[0], "cbar")) == 3
    # on a tablet's page (564 px) a head is drawn whole, at its own size
    assert max(fig.width for fig in figs) <= 564


def test_lines_view_opacity_follows_the_weights_and_highlight_filters():
    weights = np.array([[[0.9, 0.1], [0.0, 1.0]]])
    (fig,) = H.lines_view(weights, ("a", "b"))
    links = [(float(e.get("y1")), float(e.get("y2")), float(e.get("stroke-opacity")))
             for e in R.elements(fig, "line", "link")]
    assert [a for *_, a in links] == pytest.approx([0.915, 0.235, 1.0], abs=1e-3)  # darker as α grows; α 0: no line
    assert R.texts(fig, "title") == ["α as lines"]  # one head: not "head 1" of nothing
    (a_top, _, _), (_, b_below, _) = links[0], links[1]
    assert a_top < b_below  # query a (top) to key b (below)
    assert R.texts(fig, "query") == ["a", "b"] and R.texts(fig, "key") == ["a", "b"]
    (only_b,) = H.lines_view(weights, ("a", "b"), highlight=1)
    drawn = R.elements(only_b, "line", "link")
    assert len(drawn) == 1 and drawn[0].get("y1") == drawn[0].get("y2")  # only b's line to itself


def test_scaling_figures():
    dots = A.dot_product_samples(16, 500, seed=0)
    fig = S.dot_histogram(dots, 16)
    bins = R.elements(fig, "rect", "bin")
    raw, scaled = bins[:60], bins[60:]

    def spread(rects):  # the x-extent of the bins that hold samples
        xs = [float(r.get("x")) for r in rects if float(r.get("height")) > 0]
        return max(xs) - min(xs)

    heights = [sum(float(r.get("height")) for r in side) for side in (raw, scaled)]
    assert heights[0] == pytest.approx(heights[1], rel=0.01)  # the same 500 samples, twice
    assert 0.15 < spread(scaled) / spread(raw) < 0.35  # ÷ √16 = ÷ 4 narrows the spread about 4×
    assert f"variance {dots.var():.1f}" in " ".join(R.texts(fig, "legend"))
    even, sharp = S.softmax_bars("even", [0.5, 0.5]), S.softmax_bars("sharp", [0.9, 0.1])
    assert R.texts(even, "barlabel") == ["0.50", "0.50"] and R.texts(sharp, "barlabel") == ["0.90", "0.10"]
    assert R.texts(sharp, "title") == ["sharp"] and R.texts(sharp, "xtick") == ["k1", "k2"]
    h = np.concatenate([R.bar_heights(even), R.bar_heights(sharp)])
    assert h[0] == pytest.approx(h[1]) and h[2] == pytest.approx(9 * h[3], rel=0.01)  # one 0–1 axis for both


def test_lines_view_on_the_walkthrough_and_its_highlight():
    at = run_app()
    at = set_widget(at, "lines", True)
    assert_no_exception(at)
    picker = at.selectbox(key="lines-highlight")
    assert picker.options[0] == "every token" and picker.options[2] == "2 · forum"
    at = set_widget(at, "lines-highlight", 1)
    assert_no_exception(at)
    assert at.selectbox(key="lines-highlight").value == 1


def test_the_texts_say_what_the_mask_really_does():
    # masked weights are exactly 0, so "every weight is positive" holds only without a mask
    text = lesson_markdown("walkthrough/07_softmax")  # as every telling prints it (the lead and the rest)
    claims = [c for c in re.split(r"(?<=[.;:])\s", " ".join(text.split())) if "every weight is positive" in c]
    assert all(c.startswith("Without a mask") for c in claims) and "weight exactly 0" in text
    t = A.trace_self_attention("a b c", causal=True)
    assert t.weights[0, 1] == 0.0 and np.all(t.weights[~t.mask] == 0)
    # True = may attend is torch.nn.functional.scaled_dot_product_attention's convention, not MultiheadAttention's
    decisions = (Path(A.__file__).resolve().parent.parent / "docs/decisions.md").read_text()
    for doc in (A.apply_mask.__doc__, decisions):
        assert "scaled_dot_product_attention" in doc and "MultiheadAttention" in doc and "opposite" in doc
    assert "PyTorch's boolean\n  convention" not in decisions


# --- attention from its parts (issue 10, part 3) -------------------------------------------------
PARTS = "lessons/parts.py"


def test_each_stage_adds_one_ingredient_and_shows_the_engine_numbers():
    x = A.embed_sentence(DEFAULT_SENTENCE, d_model=8, seed=DEFAULT_SEED).x  # [4, 8]
    alpha_1 = A.softmax(x @ x.T / np.sqrt(8))  # stage 1 by hand: similarity of the raw embeddings
    w_v = A.random_projections(8, 8, DEFAULT_SEED).w_v
    at = open_page(PARTS, stage=1)
    np.testing.assert_allclose(table(at, "parts-weights-1"), alpha_1, atol=ROUNDING)
    np.testing.assert_allclose(table(at, "parts-output-1"), alpha_1 @ x, atol=ROUNDING)  # the inputs themselves
    at = set_widget(at, "stage", 2)  # + W_V: the same α, another output; the stage before is beside it
    np.testing.assert_allclose(table(at, "parts-weights-2"), alpha_1, atol=ROUNDING)
    np.testing.assert_allclose(table(at, "parts-weights-1"), alpha_1, atol=ROUNDING)
    np.testing.assert_allclose(table(at, "parts-output-2"), alpha_1 @ x @ w_v, atol=ROUNDING)
    assert any("exactly the same" in i.value for i in at.info)
    at = set_widget(at, "stage", 3)  # + W_Q, W_K: the walkthrough at d_k = d_model
    walk = A.trace_self_attention(DEFAULT_SENTENCE, d_model=8, d_k=8, seed=DEFAULT_SEED)
    np.testing.assert_allclose(table(at, "parts-weights-3"), walk.weights, atol=ROUNDING)
    np.testing.assert_allclose(table(at, "parts-output-3"), walk.output, atol=ROUNDING)
    assert any("α changed" in i.value for i in at.info)
    at = set_widget(at, "parts_compare", False)
    assert_no_exception(at)
    assert "parts-weights-2" not in view_panels(at)  # only the chosen stage
    at = set_widget(at, "stage", 1)  # stage 1 has no stage before it: no switch is drawn that could do nothing
    assert not [t for t in at.toggle if t.key == "parts_compare"]
    at = set_widget(at, "stage", 2)  # and the learner's choice is kept for the stages that have one
    assert at.toggle(key="parts_compare").value is False and "parts-weights-1" not in view_panels(at)


def test_side_by_side_stages_share_one_colour_scale():
    t1 = A.trace_self_attention("a b c", d_k=8, projections=A.stage_projections(1, 8, 0))
    t3 = A.trace_self_attention("a b c", d_k=8, projections=A.stage_projections(3, 8, 0))
    top = max(t1.weights.max(), t3.weights.max())
    for t in (t1, t3):
        cbar = R.texts(query_key_figure(t, t.weights, "α", weights=True, top=top), "cbar")
        assert float(cbar[0]) == pytest.approx(top, rel=1e-2)  # both bars end at the larger of the two maxima
    with pytest.raises(ValueError):
        A.stage_projections(4, 8, 0)


# --- cross-attention (issue 10, part 2) ----------------------------------------------------------
CROSS = "lessons/cross.py"


def test_cross_attention_is_softmax_of_target_queries_against_source_keys():
    t = trace_cross_attention("Ce forum est génial !", "This forum is awesome", d_model=6, d_k=3, seed=5)
    x_t = A.embed_sentence("Ce forum est génial !", d_model=6, seed=5).x  # [5, 6]
    x_s = A.embed_sentence("This forum is awesome", d_model=6, seed=5).x  # [4, 6]
    w = A.random_projections(6, 3, 5)
    q, k, v = x_t @ w.w_q, x_s @ w.w_k, x_s @ w.w_v
    for i in range(5):  # a naive loop, one query at a time
        z = np.array([q[i] @ k[j] for j in range(4)]) / np.sqrt(3)
        a = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
        np.testing.assert_allclose(t.weights[i], a, atol=1e-12)
        np.testing.assert_allclose(t.output[i], sum(a[j] * v[j] for j in range(4)), atol=1e-12)
    assert t.weights.shape == (5, 4) and np.allclose(t.weights.sum(axis=1), 1)  # i × i′, rows sum to 1
    same = trace_cross_attention("the cat sat", "the cat sat", seed=3)  # self-attention is target = source
    np.testing.assert_allclose(same.weights, A.trace_self_attention("the cat sat", seed=3).weights, atol=1e-12)


def test_the_aligned_preset_makes_each_target_word_attend_to_its_translation():
    t = trace_cross_attention("Ce forum est génial", "This forum is awesome", d_k=8, seed=42, preset="aligned")
    assert t.aligned_pairs == ((0, 0), (1, 1), (2, 2), (3, 3))
    assert list(t.weights.argmax(axis=1)) == [0, 1, 2, 3] and t.weights.max(axis=1).min() > 0.9
    swapped = trace_cross_attention("génial forum", "This forum is awesome", d_k=8, seed=42, preset="aligned")
    assert list(swapped.weights.argmax(axis=1)) == [3, 1]  # a permuted pattern follows the word order


def test_the_cross_attention_page_shows_the_engine_numbers_and_survives_a_bad_sentence():
    at = open_page(CROSS)
    engine = trace_cross_attention("le chat noir dort", "the black cat sleeps", d_k=8, seed=DEFAULT_SEED)
    np.testing.assert_allclose(table(at, "ca-weights"), engine.weights, atol=ROUNDING)
    np.testing.assert_allclose(table(at, "ca-output"), engine.output, atol=ROUNDING)
    # the α table's corner says which side holds the queries and which the keys, as the heatmap's axes do
    assert shown_table(at, "ca-weights").index.name == "target query ↓ · source key →"
    at = set_widget(at, "ca_target", "")  # an empty target: a message, and the page keeps working
    assert_no_exception(at)
    assert any("Target" in w.value for w in at.warning)
    np.testing.assert_allclose(table(at, "ca-weights"), engine.weights, atol=ROUNDING)
    at = set_widget(at, "ca_source", "the cat")  # the source still changes the numbers
    other = trace_cross_attention("le chat noir dort", "the cat", d_k=8, seed=DEFAULT_SEED)
    np.testing.assert_allclose(table(at, "ca-weights"), other.weights, atol=ROUNDING)
    at = set_widget(at, "ca_preset", "aligned")
    assert any("constructed, not learned" in i.value for i in at.info)


def test_a_stages_words_are_its_options_label_so_that_clicking_them_selects_it():
    """Issue 47: the parts page's stage choice had its ingredients as radio captions, drawn outside the clickable
    label: clicking "+ values: W_V" did nothing. Each option's own label now names its stage and its ingredient (a
    click, a tap or a screen reader meets them in the option), with no separate caption."""
    at = open_page(PARTS, stage=1)
    radio = at.radio(key="stage")
    assert list(radio.proto.captions) == []
    labels = list(radio.options)
    for k, words in enumerate(["similarity: softmax(X·Xᵀ/√d)·X", "values: W_V", "queries and keys: W_Q, W_K"], 1):
        assert labels[k - 1].startswith(f"{k} · ") and words in labels[k - 1], labels
