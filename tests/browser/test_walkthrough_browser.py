"""The walkthrough in a real browser: Playwright drives Debian's Chromium against `streamlit run`."""

from __future__ import annotations

import re

import numpy as np
import pytest

from attention import trace_self_attention
from tests.test_pages import shown_number

pytestmark = pytest.mark.browser


def read_table(page, key: str) -> tuple[list[str], np.ndarray]:
    """Row labels and numbers of the table ``key`` as the learner sees them on screen."""
    rows = page.locator(f".st-key-table-{key} table tbody tr")
    labels, values = [], []
    for r in range(rows.count()):
        cells = rows.nth(r).locator("th, td").all_inner_texts()
        labels.append(cells[0].strip())
        values.append([shown_number(c.strip()) for c in cells[1:]])
    return labels, np.array(values)


def wait_for_table(page, key: str, cells: list[list[str]]) -> None:
    """Wait until the table ``key`` shows exactly these cell texts (row labels left out)."""
    page.wait_for_function(
        "([sel, want]) => JSON.stringify(Array.from(document.querySelectorAll(sel)).map("
        "r => Array.from(r.querySelectorAll('td')).map(c => c.innerText.trim()))) === JSON.stringify(want)",
        arg=[f".st-key-table-{key} table tbody tr", cells],
    )


def tick_labels(page, fig: str, axis: str = "x") -> list[str]:
    return page.locator(f".st-key-fig-{fig} .{axis}tick text").all_text_contents()


def wait_for_ticks(page, fig: str, expected: list[str], axis: str = "x") -> None:
    """Wait until the figure's tick labels are ``expected`` (a rerun repaints figures one by one)."""
    page.wait_for_function(
        "([sel, want]) => JSON.stringify(Array.from(document.querySelectorAll(sel)).map(e => e.textContent))"
        " === JSON.stringify(want)",
        arg=[f".st-key-fig-{fig} .{axis}tick text", expected],
    )


def type_sentence(page, text: str) -> None:
    box = page.locator(".st-key-sentence input")
    box.fill(text)
    box.press("Enter")


def test_typing_a_sentence_updates_the_heatmap_labels(page):
    # the figure draws its ticks after its table exists: wait for them, never read them at once
    wait_for_ticks(page, "scores", ["This", "forum", "is", "awesome"])
    type_sentence(page, "the cat sat on the mat")
    expected = ["the (1)", "cat", "sat", "on", "the (5)", "mat"]
    for fig in ("scores", "scaled", "weights"):
        wait_for_ticks(page, fig, expected, "x")  # keys
        wait_for_ticks(page, fig, expected, "y")  # queries
    assert re.search(r"sentence=the\+cat", page.url) or "the%20cat" in page.url  # the sentence is in the link


def test_output_on_screen_is_the_weighted_sum_of_values_on_screen(page):
    # The keyboard path: focus the query box, type to filter, Enter to choose.
    box = page.locator(".st-key-query input")
    box.click()
    box.fill("3 · is")
    page.get_by_role("option", name="3 · is").wait_for()
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('.st-key-table-output-row tbody th')?.innerText.trim() === 'is'"
    )
    _, v = read_table(page, "v")  # [n, d_k]
    labels, alpha = read_table(page, "weights")  # [n, n]
    out_labels, out = read_table(page, "output-row")
    assert out_labels == ["is"] and labels[2] == "is"
    expected = alpha[2] @ v  # Σ_j α_3j v_j from the rounded numbers on screen
    # Each shown number is rounded to ±0.005: the bound below covers that rounding.
    tolerance = 0.005 * (np.abs(v).sum(axis=0) + alpha[2].sum()) + 0.005
    assert np.all(np.abs(out[0] - expected) <= tolerance), (out[0], expected)
    assert abs(alpha[2].sum() - 1) <= 0.005 * len(alpha[2])


def test_html_in_the_sentence_is_shown_as_text(page, artifacts):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    evil = "<img src=x onerror=alert(1)>"
    type_sentence(page, evil)
    wait_for_ticks(page, "weights", ["<", "img", "src", "= (4)", "x", "onerror", "= (7)", "alert", "(", "1", ")", ">"])
    page.wait_for_function("() => document.querySelector('.st-key-table-tokens tbody')?.innerText.includes('onerror')")
    # with the page drawn, no element was injected, so no handler can fire later either
    assert page.locator("img[src='x']").count() == 0
    assert dialogs == []
    tokens = page.locator(".st-key-table-tokens table tbody tr td").all_inner_texts()
    assert [t.strip() for t in tokens][1::3][:2] == ["<", "img"]
    assert [t.strip() for t in tokens][-2] == ">"  # a Markdown quote marker in a table cell stays text
    assert page.locator(".st-key-sentence input").input_value() == evil  # the learner's text is intact
    page.screenshot(path=artifacts / "walkthrough-html-sentence.png")


def test_walkthrough_screenshot(page, artifacts):
    # The whole lesson, as a learner scrolls through it: every step is on the page.
    for n in range(1, 9):
        assert page.locator(f"h3:has-text('Step {n} of 8')").count() == 1
    page.locator("h3:has-text('Step 7 of 8')").scroll_into_view_if_needed()
    page.evaluate("document.querySelector('[data-testid=stMain]').scrollBy(0, -20)")
    page.wait_for_timeout(500)
    page.screenshot(path=artifacts / "walkthrough-softmax.png")  # the README's screenshot
    height = page.evaluate("document.querySelector('[data-testid=stMain]').scrollHeight")
    page.set_viewport_size({"width": 1400, "height": height})
    page.wait_for_timeout(1000)
    page.screenshot(path=artifacts / "walkthrough-full.png", full_page=True)
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.screenshot(path=artifacts / "walkthrough-top.png")
    assert (artifacts / "walkthrough-full.png").stat().st_size > 50_000


def test_a_shared_link_reproduces_the_lesson(open_page):
    # A link with settings, opened by a new learner in a fresh browser context.
    page = open_page("/?sentence=the+cat+sat&seed=7&d_k=3", ".st-key-table-output table")
    wait_for_ticks(page, "weights", ["the", "cat", "sat"])
    assert page.locator(".st-key-seed input").input_value() == "7"
    labels, q = read_table(page, "q")
    assert labels == ["the", "cat", "sat"] and q.shape == (3, 3)  # d_k = 3 from the link
    _, alpha = read_table(page, "weights")
    engine = trace_self_attention("the cat sat", seed=7, d_k=3)
    np.testing.assert_allclose(alpha, engine.weights, atol=0.005 + 1e-9)  # the same numbers


def test_markdown_in_the_sentence_stays_literal(page):
    type_sentence(page, "*bold* [a](http://x) $x$")
    wait_for_ticks(page, "weights", ["* (1)", "bold", "* (3)", "[", "a", "]", "(", "http", ":", "/ (10)",
                                     "/ (11)", "x (12)", ")", "$ (14)", "x (15)", "$ (16)"])
    assert page.locator("a[href='http://x']").count() == 0  # no link was made of it
    caption = page.locator("[data-testid=stCaptionContainer]", has_text="Row sums").first.inner_text()
    assert caption.startswith("Row sums: * (1) 1.00, bold 1.00") and "$ (14)" in caption  # no italics, no maths
    tokens = [t.strip() for t in page.locator(".st-key-table-tokens table tbody tr td").all_inner_texts()][1::3]
    assert tokens[:4] == ["*", "bold", "*", "["]
