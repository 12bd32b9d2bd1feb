"""Breaking inputs found by the truth audit of fix/misc and fix/layout (issue 47). Each fails on main at 1707620."""

from __future__ import annotations

import html
import itertools
import re

import pytest

from attention import Projections, trace_self_attention
from attention.relevance import attend_to, plane_coordinates
from ui.background import share_text
from ui.settings import DEFAULT_D_MODEL
from viz import svg
from viz.relevance import arrows_figure


def _plane(sentence: str, *, seed: int, i: int = 0, t: int = 2, d_k: int = 2, strength: float = 2.0):
    before = trace_self_attention(sentence, d_model=DEFAULT_D_MODEL, d_k=d_k, seed=seed)
    t = min(t, before.n - 1)
    nudge = attend_to(before.w_q, before.x, before.k, before.weights, i, t, strength, allowed=before.mask[i])
    after = trace_self_attention(sentence, d_model=DEFAULT_D_MODEL, d_k=d_k, seed=seed,
                                 projections=Projections(nudge.w_q, before.w_k, before.w_v))
    q2, k2, _ = plane_coordinates(after.q, after.k)
    return arrows_figure(q2, k2, after.tokens, selected=i, target=t, exact=d_k == 2)


def _arrow_labels(fig: svg.Svg) -> list[tuple[float, float, float, float]]:
    boxes = []
    for attrs, words in re.findall(r"<text([^>]*)>([^<]*)</text>", fig.markup):
        if "arrowlabel" in attrs:
            x = float(re.search(r' x="([-\d.]+)"', attrs).group(1))
            y = float(re.search(r' y="([-\d.]+)"', attrs).group(1))
            boxes.append(svg.arrow_label_box(x, y, html.unescape(words)))
    return boxes


@pytest.mark.parametrize("seed", [0, 2, 3, 5])
def test_a_repeated_word_s_key_labels_do_not_print_over_each_other(seed):
    """docs/decisions.md (issue 47): labels are placed 'off every label'. A word said four times has four equal keys
    (no positional encodings): their labels were all put on one spot (the 'no free spot' fallback)."""
    fig = _plane("wonderful wonderful wonderful wonderful", seed=seed)
    boxes = _arrow_labels(fig)
    touching = [(a, b) for a, b in itertools.combinations(boxes, 2)
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]]
    assert not touching
    assert all(0 <= b[0] and b[2] <= fig.width for b in boxes)


def test_a_one_token_sentence_s_legend_names_no_other_queries():
    """'queries (“A” bold, the others faded)' on a sentence of one token: there are no others."""
    fig = _plane("A", seed=0, t=0)
    assert "the others faded" not in fig.markup and "the others faded" not in (fig.alt or "")


@pytest.mark.parametrize("done", [0.0995, 0.0999, 463 / 465, 0.999])
def test_a_running_share_never_reads_finished_nor_10_0(done):
    """share_text: 'whole percents from 10 %, a tenth below'; work still running should not read 100 %."""
    text = share_text(done)
    assert text != "100%" and text != "10.0%"


def test_a_new_run_after_a_setting_change_opens_at_step_0():
    """docs/decisions.md: 'Every run opens at its first saved state, step 0'. A learner at step 300 who changes η gets a
    new run, shown at step 300: the new head is never watched learning."""
    from tests.test_learn import open_learn
    at = open_learn(lt_run="true")
    at.select_slider(key="lt_step").set_value(300).run()
    at.select_slider(key="lt_lr").set_value(0.03).run()  # a value (its label is the reader's: "0,03" in French)
    assert at.select_slider(key="lt_step").value == 0
