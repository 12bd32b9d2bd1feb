"""The multi-head and √d_k lessons and the causal mask, in Debian's Chromium against `streamlit run`."""

from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import expect

from attention import trace_multi_head
from tests.browser.conftest import TIMEOUT_MS, param, wait_for_full_size_charts, wait_for_whole_tables
from tests.browser.test_walkthrough_browser import (
    CHART_TEXTS,
    chart_texts,
    read_table,
    toggle_setting,
    type_sentence,
    wait_for_ticks,
)

pytestmark = pytest.mark.browser


def full_screenshot(page, path) -> None:
    height = page.evaluate("document.querySelector('[data-testid=stMain]').scrollHeight")
    page.set_viewport_size({"width": 1400, "height": height})
    page.wait_for_timeout(1000)
    page.screenshot(path=path, full_page=True)
    page.set_viewport_size({"width": 1400, "height": 1000})


SIX = "sentence=the+cat+sat+on+the+mat"


SCREENS = {"laptop": (1280, 800), "tablet": (1024, 768)}  # a 1024 × 768 iPad or classroom projector
# On a tablet beside the sidebar (564 px for the page) no table scrolls sideways either: a table wider than
# the page is drawn in blocks of columns (static/view.js); a 12 × 12 matrix's table used to scroll there
SCROLLS_ON_A_TABLET: tuple[str, ...] = ()


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize(("path", "tables", "charts"), [
    (f"/?step=3&{SIX}", ["w_q", "w_k", "w_v"], ["w_q", "w_k", "w_v"]),
    (f"/?step=4&{SIX}", ["q", "k", "v"], ["q", "k", "v"]),
    (f"/?step=7&{SIX}", ["weights"], ["weights"]),
    (f"/?step=8&{SIX}", ["alpha-row", "weighted-sum", "output-row"], ["alpha-row", "weighted-sum", "output"]),
    ("/multihead", ["head-w_q", "mh-output"], ["heads-0", "heads-1", "mh-lines-view-0", "mh-output"]),
    ("/multihead?heads=4", ["head-w_q", "mh-output"], [f"heads-{k}" for k in range(4)] + ["mh-lines-view-3"]),
    ("/scaling", ["saturation-stats", "temperature-weights"],
     ["dots", "saturation-max-weight", "saturation-jacobian", "saturation-no-gradient", "row-raw", "row-scaled"]),
    ("/phonebook", ["pb-lookup", "pb-answers"], ["pb-scores", "pb-weights", "pb-answers"]),
    ("/relevance", ["sim-weights", "arrow-scores"], ["sim-weights"]),
    ("/cross", ["ca-q", "ca-v"], ["ca-weights"]),
    ("/real_model", ["rm-head", "rm-scores"], ["rm-model-view"]),
    ("/learn?lt_run=true", ["lt-alpha", "lt-form"], ["lt-loss", "lt-accuracy", "lt-form"]),
])
def test_no_table_is_cut_off_and_no_chart_shrunk_on_a_laptop_or_tablet(open_page, screen, path, tables, charts):
    """With the sidebar open, on a laptop (1280 × 800) and on a tablet or projector (1024 × 768).
    At 1280 a table beside its heatmap, or three side by side, went past its fixed share of the page
    and hid its last columns; now it goes under when it doesn't fit. Charts wider than the page were
    shrunk with their labels (at 1280 the √d_k lesson's three panels to 0.67, the phonebook's bars to
    0.71, a real model's every-head view to 0.76, the training curves to 0.86; at 1024 also the q·k
    histogram, the example row's bars, and the √d_k and phonebook tables scrolled): now they fit, or
    charts that stood in one image are separate images in a row that wraps."""
    width, height = SCREENS[screen]
    page = open_page(path, f".st-key-table-{tables[0]}", width=width, height=height)  # this size from the start
    wait_for_whole_tables(page, tables, scrolling=SCROLLS_ON_A_TABLET if screen == "tablet" else ())
    wait_for_full_size_charts(page, charts)
    # and each chart says what it shows to a screen reader (its alt text)
    assert page.evaluate("""() => Array.from(document.querySelectorAll('[class*="st-key-fig-"] img'))
      .filter(i => !(i.getAttribute('alt') || '').includes(': '))
      .map(i => i.closest('[class*="st-key-fig-"]').className)""") == []


def test_switching_to_multihead_keeps_the_sentence(page, artifacts):
    type_sentence(page, "the cat sat on the mat")
    wait_for_ticks(page, "weights", ["the (1)", "cat", "sat", "on", "the (5)", "mat"])
    page.locator("[data-testid=stSidebarNav] a", has_text="Multi-head attention").click()
    page.wait_for_selector(".st-key-table-mh-output table")
    expect(page.locator(".st-key-sentence input")).to_have_value("the cat sat on the mat", timeout=TIMEOUT_MS)
    labels = ["the (1)", "cat", "sat", "on", "the (5)", "mat"]
    for head in ("heads-0", "heads-1"):  # the key axis of each of the two heads
        wait_for_ticks(page, head, labels)
    _, output = read_table(page, "mh-output")
    expected = trace_multi_head("the cat sat on the mat", d_model=8, n_heads=2, seed=42).output
    np.testing.assert_allclose(output, expected, atol=0.005 + 1e-9)
    page.wait_for_function("() => location.pathname.endsWith('/multihead')")
    page.screenshot(path=artifacts / "multihead-top.png")
    page.locator("h3:has-text('Split')").scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    page.screenshot(path=artifacts / "multihead-path.png")
    full_screenshot(page, artifacts / "multihead-full.png")


def test_causal_toggle_changes_the_heatmap(page, artifacts):
    wait_for_ticks(page, "weights", ["This", "forum", "is", "awesome"])  # drawn: never read before
    before = chart_texts(page, "weights", "num")
    assert "—" not in before
    toggle_setting(page, "causal")
    page.wait_for_function(  # the redrawn heatmap masks the six cells above the diagonal
        f"() => (({CHART_TEXTS})(['weights', 'num']) || []).filter(t => t === '—').length === 6")
    after = chart_texts(page, "weights", "num")
    assert after[:4] == ["1.00", "—", "—", "—"]  # the first token attends only to itself
    assert after != before
    # the tables repaint apart from the figures: wait for each one's masked cells
    page.wait_for_function(  # the scores step shows −∞ where masked
        "() => (document.querySelector('.st-key-table-scaled tbody tr')?.innerText.match(/−∞/g) || []).length === 3")
    page.wait_for_function(  # and the α table shows — where the heatmap does
        "() => (document.querySelector('.st-key-table-weights tbody')?.innerText.match(/—/g) || []).length === 6")
    param(page, "causal", "true")
    page.locator("h3:has-text('Step 7 of 8')").scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    page.screenshot(path=artifacts / "walkthrough-causal.png")


def test_scaling_page_softmax_plots_differ_at_512(open_page, artifacts):
    page = open_page("/scaling?dk_demo=512", ".st-key-fig-row-raw img")
    page.wait_for_function(f"() => (({CHART_TEXTS})(['row-scaled', 'title']) || []).some(t => t.includes('√512'))")
    raw, scaled = (np.array([float(t) for t in chart_texts(page, key, "barlabel")])  # each chart's α labels
                   for key in ("row-raw", "row-scaled"))
    assert raw.size == scaled.size == 8  # one query, 8 keys
    assert raw.max() == 1.0 and np.sort(raw)[-2] == 0.0  # saturated: one weight takes it all
    assert scaled.max() < 0.9 and (scaled > 0.01).sum() >= 3  # spread over several keys
    assert page.locator("[data-testid=stException]").count() == 0
    full_screenshot(page, artifacts / "scaling-full.png")
    page.locator("h3:has-text('spread of q')").scroll_into_view_if_needed()
    page.evaluate("document.querySelector('[data-testid=stMain]').scrollBy(0, 420)")
    page.wait_for_timeout(500)
    page.screenshot(path=artifacts / "scaling-saturation.png")


def test_attention_from_its_parts_compares_each_stage_with_the_one_before(open_page, artifacts):
    page = open_page("/parts?stage=2", ".st-key-table-parts-weights-2 table")
    page.wait_for_selector(".st-key-table-parts-weights-1 table")  # the stage before, drawn too
    _, before = read_table(page, "parts-weights-1")
    _, now = read_table(page, "parts-weights-2")
    np.testing.assert_array_equal(before, now)  # W_V changes what is summed, not the weights
    page.locator(".st-key-stage").get_by_role("radio", name="3").click(force=True)  # stage 3 (its input is hidden)
    page.wait_for_selector(".st-key-table-parts-weights-3 table")
    page.wait_for_selector(".st-key-table-parts-weights-2 table")
    page.wait_for_function("() => location.search.includes('stage=3')")  # the stage is in the link
    wait_for_ticks(page, "parts-weights-3", ["This", "forum", "is", "awesome"])  # drawn before the screenshot
    wait_for_ticks(page, "parts-weights-2", ["This", "forum", "is", "awesome"])
    _, after = read_table(page, "parts-weights-3")
    assert not np.allclose(after, now, atol=0.01)  # W_Q and W_K change α
    page.locator("h3:has-text('Attention weights')").evaluate("h => h.scrollIntoView({block: 'start'})")
    page.evaluate("document.querySelector('[data-testid=stMain]').scrollBy(0, -120)")
    page.wait_for_timeout(300)
    page.screenshot(path=artifacts / "parts-stage-3.png")


def test_cross_attention_reads_another_sentence(open_page, artifacts):
    aligned = "Aligned+by+a+bilingual+table+%28constructed%29"  # the radio writes its option as shown
    page = open_page(f"/cross?ca_preset={aligned}", ".st-key-table-ca-weights table")
    labels, alpha = read_table(page, "ca-weights")
    assert labels == ["le", "chat", "noir", "dort"]  # rows: the target's tokens (queries)
    assert list(alpha.argmax(axis=1)) == [0, 2, 1, 3]  # each word attends to its translation: chat noir ↔ black cat
    wait_for_ticks(page, "ca-weights", ["the", "black", "cat", "sleeps"])  # columns: the source's tokens
    box = page.locator(".st-key-ca_source input")
    box.fill("génial awesome forum")
    box.press("Enter")
    wait_for_ticks(page, "ca-weights", ["génial", "awesome", "forum"])  # i × i′ = 4 × 3, not square
    page.wait_for_function("() => location.search.includes('ca_source=')")
    page.locator("h3:has-text('target tokens ask')").evaluate("h => h.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(300)
    page.screenshot(path=artifacts / "cross-attention.png")
