"""The multi-head and √d_k lessons and the causal mask, in Debian's Chromium against `streamlit run`."""

from __future__ import annotations

import numpy as np
import pytest

from attention import trace_multi_head
from tests.browser.test_walkthrough_browser import read_table, type_sentence, wait_for_ticks

pytestmark = pytest.mark.browser


def svg_texts(page, fig: str) -> list[str]:
    return page.evaluate(
        "sel => Array.from(document.querySelectorAll(sel)).map(e => e.textContent)", f".st-key-fig-{fig} svg text"
    )


def full_screenshot(page, path) -> None:
    height = page.evaluate("document.querySelector('[data-testid=stMain]').scrollHeight")
    page.set_viewport_size({"width": 1400, "height": height})
    page.wait_for_timeout(1000)
    page.screenshot(path=path, full_page=True)
    page.set_viewport_size({"width": 1400, "height": 1000})


def test_switching_to_multihead_keeps_the_sentence(page, artifacts):
    type_sentence(page, "the cat sat on the mat")
    wait_for_ticks(page, "weights", ["the (1)", "cat", "sat", "on", "the (5)", "mat"])
    page.locator("[data-testid=stSidebarNav] a", has_text="Multi-head attention").click()
    page.wait_for_selector(".st-key-table-mh-output table")
    assert page.locator(".st-key-sentence input").input_value() == "the cat sat on the mat"
    labels = ["the (1)", "cat", "sat", "on", "the (5)", "mat"]
    wait_for_ticks(page, "heads", labels)  # the first head panel (the others are .x2tick, ...)
    _, output = read_table(page, "mh-output")
    expected = trace_multi_head("the cat sat on the mat", d_model=8, n_heads=2, seed=42).output
    np.testing.assert_allclose(output, expected, atol=0.005 + 1e-9)
    assert "/multihead" in page.url
    page.screenshot(path=artifacts / "multihead-top.png")
    page.locator("h3:has-text('Split')").scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    page.screenshot(path=artifacts / "multihead-path.png")
    full_screenshot(page, artifacts / "multihead-full.png")


def test_causal_toggle_changes_the_heatmap(page, artifacts):
    before = svg_texts(page, "weights")
    assert "—" not in before
    page.locator(".st-key-causal label").click()
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('.st-key-fig-weights svg text'))"
        ".filter(e => e.textContent === '—').length === 6"
    )
    after = svg_texts(page, "weights")
    assert after[:4] == ["1.00", "—", "—", "—"]  # the first token attends only to itself
    assert after != before
    # the tables repaint apart from the figures: wait for each one's masked cells
    page.wait_for_function(  # the scores step shows −∞ where masked
        "() => (document.querySelector('.st-key-table-scaled tbody tr')?.innerText.match(/−∞/g) || []).length === 3")
    page.wait_for_function(  # and the α table shows — where the heatmap does
        "() => (document.querySelector('.st-key-table-weights tbody')?.innerText.match(/—/g) || []).length === 6")
    assert "causal=true" in page.url
    page.locator("h3:has-text('Step 7 of 8')").scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    page.screenshot(path=artifacts / "walkthrough-causal.png")


def test_scaling_page_softmax_plots_differ_at_512(open_page, artifacts):
    page = open_page("/scaling?dk_demo=512", ".st-key-fig-saturation .trace.bars text")
    panels = page.evaluate(
        "() => Array.from(document.querySelectorAll('.st-key-fig-saturation .trace.bars'))"
        ".map(t => Array.from(t.querySelectorAll('text')).map(e => parseFloat(e.textContent)))"
    )
    raw, scaled = np.array(panels[0]), np.array(panels[1])
    assert raw.max() == 1.0 and np.sort(raw)[-2] == 0.0  # saturated: one weight takes it all
    assert scaled.max() < 0.9 and (scaled > 0.01).sum() >= 3  # spread over several keys
    assert page.locator("[data-testid=stException]").count() == 0
    full_screenshot(page, artifacts / "scaling-full.png")
    page.locator("h3:has-text('spread of q')").scroll_into_view_if_needed()
    page.evaluate("document.querySelector('[data-testid=stMain]').scrollBy(0, 420)")
    page.wait_for_timeout(500)
    page.screenshot(path=artifacts / "scaling-saturation.png")
