"""The walkthrough in a real browser: Playwright drives Debian's Chromium against `streamlit run`."""

from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import expect

from attention import trace_self_attention
from tests.browser.conftest import PHONE, TIMEOUT_MS, param
from tests.test_pages import shown_number

pytestmark = pytest.mark.browser


# JS: a table's rows as the learner reads them, [row label, cell, cell, …] (a row label is the row's
# header cell; invisible word joiners left out)
TABLE_ROWS = """sel => Array.from(typeof sel === 'string' ? document.querySelectorAll(sel) : sel).map(
  r => Array.from(r.querySelectorAll('th, td')).map(c => c.innerText.replaceAll('\u2060', '').trim()))"""


# JS: the rows of the table ``key`` (its label, then its cells), however many blocks of columns it is drawn in
# (static/table.js draws a table wider than its room as blocks of columns, one under another)
TABLE_BLOCKS = f"""key => {{ const blocks = Array.from(document.querySelectorAll(`.st-key-table-${{key}} table`))
  .map(t => ({TABLE_ROWS})(t.querySelectorAll('tbody tr:not(.alv-spacer)')));
  return (blocks[0] || []).map((row, r) => [...row, ...blocks.slice(1).flatMap(b => (b[r] || []).slice(1))]) }}"""


def read_table(page, key: str) -> tuple[list[str], np.ndarray]:
    """Row labels and numbers of the table ``key`` as the learner sees them on screen, read in one
    go: row by row, a rerun could repaint the table between two reads (a row with no cells yet)."""
    rows = page.evaluate(TABLE_BLOCKS, key)
    return [r[0] for r in rows], np.array([[shown_number(c) for c in r[1:]] for r in rows])


def wait_for_table(page, key: str, cells: list[list[str]]) -> None:
    """Wait until the table ``key`` shows exactly these cell texts (row labels, the first column, left out)."""
    page.wait_for_function(
        f"([key, want]) => JSON.stringify(({TABLE_BLOCKS})(key).map(r => r.slice(1))) === JSON.stringify(want)",
        arg=[key, cells],
    )


# A chart is an <img> whose src is the SVG as a data: URI (base64 from st.image, percent-encoded text
# from the view). Decode it in the page and read its texts by class, as svg_reading does for the
# builders. Returns null until the image has loaded, so a wait can never read a half-drawn page.
CHART_TEXTS = """([key, cls]) => {
  const img = document.querySelector(`.st-key-fig-${key} img`);
  if (!img || !img.complete || !img.naturalWidth || !img.src.startsWith('data:image/svg+xml')) return null;
  const [head, body] = img.src.split(',');
  const text = head.endsWith(';base64') ?
    new TextDecoder().decode(Uint8Array.from(atob(body), c => c.charCodeAt(0))) : decodeURIComponent(body);
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  const sel = cls === 'num' ? 'g.nums > text' : cls ? `text.${cls}` : 'text';  // 'num': the cells' numbers
  return Array.from(doc.querySelectorAll(sel)).map(t => t.textContent);
}"""


def chart_texts(page, fig: str, cls: str | None = None) -> list[str] | None:
    """The texts (of one class: "xtick", "ytick", "num", "title", …) of the chart ``fig`` on screen."""
    return page.evaluate(CHART_TEXTS, [fig, cls])


def wait_for_chart(page, fig: str, cls: str | None, expected: list[str]) -> None:
    """Wait until the chart ``fig`` shows exactly these texts of class ``cls`` (it redraws on a rerun)."""
    page.wait_for_function(
        f"([key, cls, want]) => JSON.stringify(({CHART_TEXTS})([key, cls])) === JSON.stringify(want)",
        arg=[fig, cls, expected],
    )


def tick_labels(page, fig: str, axis: str = "x") -> list[str] | None:
    return chart_texts(page, fig, f"{axis}tick")


def wait_for_ticks(page, fig: str, expected: list[str], axis: str = "x") -> None:
    """Wait until the figure's tick labels are ``expected``."""
    wait_for_chart(page, fig, f"{axis}tick", expected)


def setting(page, popover: str, key: str):
    """The control ``key`` in a sidebar settings popover, which is opened first if it is closed
    (the browser draws a popover's widgets only while it is open)."""
    control = page.locator(f".st-key-{key}")
    if not control.is_visible():
        page.locator(f".st-key-{popover} button").first.click()
    control.wait_for(state="visible")
    return control


def toggle_setting(page, key: str) -> None:
    """Flip a shared on/off setting (the causal mask, positional encodings), then close its popover."""
    setting(page, "shared_settings", key).locator("label").click()
    page.keyboard.press("Escape")


def nudge_d_k(page) -> None:
    """d_k one up with the keyboard: the slider thumb takes arrow keys. Then close the popover."""
    setting(page, "walkthrough_settings", "d_k").locator("input").focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Escape")


def type_sentence(page, text: str) -> None:
    box = page.locator(".st-key-sentence input")
    box.fill(text)
    box.press("Enter")


def test_typing_a_sentence_updates_the_heatmap_labels(open_page):
    # one step at a time (the default): the open step redraws with the new tokens, and so does the next
    page = open_page("/?step=5", ".st-key-table-scores table")
    wait_for_ticks(page, "scores", ["This", "forum", "is", "awesome"])  # the image has loaded: never read before
    type_sentence(page, "the cat sat on the mat")
    expected = ["the (1)", "cat", "sat", "on", "the (5)", "mat"]
    wait_for_ticks(page, "scores", expected, "x")  # keys
    wait_for_ticks(page, "scores", expected, "y")  # queries
    for step, fig in ((6, "scaled"), (7, "weights")):
        page.locator(".st-key-next_step button").click()
        page.wait_for_selector(f"h3:has-text('Step {step} of 8')")
        wait_for_ticks(page, fig, expected, "x")
        wait_for_ticks(page, fig, expected, "y")
    # the sentence is in the link, and so is the open step (the address is written by a message of its own, which a
    # busy browser may apply after the step is drawn: seen once beside a second test run, "step=6")
    param(page, "sentence", "the cat sat on the mat")
    param(page, "step", "7")


def test_one_step_at_a_time_by_buttons_keyboard_menu_and_link(open_page, artifacts):
    page = open_page("", ".st-key-table-tokens table")
    expect(page.locator("h3:has-text(' of 8 · ')")).to_have_count(1)  # only the open step is drawn
    expect(page.locator("[class*=st-key-fig-] img")).to_have_count(1)  # step 1's one chart
    expect(page.locator(".st-key-prev_step button")).to_be_disabled()
    page.locator("h1#self-attention-step-by-step").click()  # focus the page, not a text box
    for step in range(2, 9):  # PageDown, as a presentation clicker sends it, walks every step in order
        page.keyboard.press("PageDown")
        page.wait_for_selector(f"h3:has-text('Step {step} of 8')")
        page.wait_for_function("n => location.search.includes('step=' + n)", arg=step)
    page.wait_for_selector(".st-key-table-output table")  # step 8 drew its tables
    expect(page.locator(".st-key-next_step button")).to_be_disabled()
    page.keyboard.press("PageUp")
    page.wait_for_selector("h3:has-text('Step 7 of 8')")
    page.get_by_role("button", name="Next: step 8").click()  # the button at the end of the step
    page.wait_for_selector("h3:has-text('Step 8 of 8')")
    # the menu: keyboard only (focus, type, Enter)
    box = page.locator(".st-key-step input")
    box.click()
    box.fill("3 · Proj")  # the menu names each step
    page.get_by_role("option", name="3 · Projection matrices W_Q, W_K, W_V", exact=True).wait_for()
    page.keyboard.press("Enter")
    page.wait_for_selector(".st-key-table-w_q table")  # step 3: the projections and the editor
    assert page.locator(".st-key-table-tokens").count() == 0  # step 1 is gone
    page.reload()  # the open step is in the link
    page.wait_for_selector("h3:has-text('Step 3 of 8')")
    page.wait_for_selector(".st-key-table-w_q table")
    page.screenshot(path=artifacts / "walkthrough-step-3.png")
    page.locator(".st-key-all_steps label").click()  # every step at once, and that too is in the link
    expect(page.locator("h3:has-text(' of 8 · ')")).to_have_count(8)
    page.wait_for_function("() => location.search.includes('all_steps=true')")


def test_output_on_screen_is_the_weighted_sum_of_values_on_screen(page):
    # The keyboard path: focus the query box, type to filter, Enter to choose.
    box = page.locator(".st-key-query input")
    box.click()
    box.fill("3 · is")
    page.get_by_role("option", name="3 · is").wait_for()
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('.st-key-table-output-row tbody tr > :first-child')?.innerText.trim() === 'is'"
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
    # the learner's text is intact
    expect(page.locator(".st-key-sentence input")).to_have_value(evil, timeout=TIMEOUT_MS)
    page.screenshot(path=artifacts / "walkthrough-html-sentence.png")


def test_walkthrough_screenshot(page, open_page, artifacts):
    # All steps on one page, as a learner scrolls through it: every step is there.
    for n in range(1, 9):
        assert page.locator(f"h3:has-text('Step {n} of 8')").count() == 1
    height = page.evaluate("document.querySelector('[data-testid=stMain]').scrollHeight")
    page.set_viewport_size({"width": 1400, "height": height})
    page.wait_for_timeout(1000)
    page.screenshot(path=artifacts / "walkthrough-full.png", full_page=True)
    assert (artifacts / "walkthrough-full.png").stat().st_size > 50_000
    # The README's screenshot: the default view, one step (7, the softmax) with its heatmap and table.
    step = open_page("/?step=7", ".st-key-table-weights table")
    wait_for_ticks(step, "weights", ["This", "forum", "is", "awesome"])  # the image has loaded
    step.locator("h3:has-text('Step 7 of 8')").evaluate("h => h.scrollIntoView({block: 'start'})")  # step on top
    step.evaluate("document.querySelector('[data-testid=stMain]').scrollBy(0, -20)")
    step.wait_for_timeout(500)
    step.screenshot(path=artifacts / "walkthrough-softmax.png")


def test_a_shared_link_reproduces_the_lesson(open_page):
    # A link with settings, opened by a new learner in a fresh browser context.
    page = open_page("/?sentence=the+cat+sat&seed=7&d_k=3&all_steps=true", ".st-key-table-output table")
    wait_for_ticks(page, "weights", ["the", "cat", "sat"])
    expect(page.locator(".st-key-seed input")).to_have_value("7", timeout=TIMEOUT_MS)
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
    caption = page.locator("[data-testid=stCaptionContainer]", has_text="Every row of α sums to 1").first
    # the rows whose two-decimal cells add up to something else are named by their tokens, as typed
    assert caption.inner_text().startswith("Every row of α sums to 1. The two-decimal cells don't always show it: "
                                           "those of “* (1)” to 1.01, “* (3)” to 1.01, “]” to 0.99, “(” to 1.01")
    assert caption.locator("em, strong, a, .katex").count() == 0  # no italics, no link, no maths
    tokens = [t.strip() for t in page.locator(".st-key-table-tokens table tbody tr td").all_inner_texts()][1::3]
    assert tokens[:4] == ["*", "bold", "*", "["]


def test_on_a_phone_the_sentence_is_named_on_the_page_and_no_key_hints_show(browser, base_url, artifacts):
    """A phone's sidebar starts closed, and the sentence every number comes from was behind it; its Previous and
    Next buttons said "PageUp" / "PageDown", keys a touch screen has not (issue 34). On a laptop neither changes."""
    phone = browser.new_context(**PHONE)
    laptop = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = phone.new_page()
        page.goto(base_url + "/?sentence=%3Cb%3Ebold%3C%2Fb%3E+cat")
        note = page.locator(".st-key-phone-sentence")
        expect(note).to_be_visible(timeout=TIMEOUT_MS)
        expect(note).to_contain_text("Sentence: “<b>bold</b> cat”")  # as text, never markup
        expect(page.locator(".st-key-next_step kbd")).to_be_hidden()
        expect(page.locator(".st-key-next_step button")).to_be_visible()
        page.screenshot(path=artifacts / "walkthrough-phone.png")
        page = laptop.new_page()
        page.goto(base_url + "/")
        expect(page.locator(".st-key-next_step kbd")).to_be_visible(timeout=TIMEOUT_MS)
        expect(page.locator(".st-key-phone-sentence")).to_be_hidden()
    finally:
        phone.close()
        laptop.close()
