"""Point and see (issue 23) in Chromium: every heatmap's cells answer the pointer, the keyboard and a tap
in the browser, with the numbers of the trace and where they come from; a choice is one rerun with the
link updated; the dark theme is legible; the learner's text reaches the tooltips as text."""

from __future__ import annotations

import json
import re
from urllib.parse import urlencode

import numpy as np
import pytest
from playwright.sync_api import expect

from attention import trace_self_attention
from tests.browser.conftest import TIMEOUT_MS, reruns
from ui.settings import DEFAULT_SEED, DEFAULT_SENTENCE
from viz.labels import format_number

pytestmark = pytest.mark.browser
TRACE = trace_self_attention(DEFAULT_SENTENCE, d_model=8, d_k=4, seed=DEFAULT_SEED)


def cell(page, panel: str):
    """The chart's active cell: the one element of its grid that takes the keyboard's focus."""
    return page.locator(f"[data-panel='{panel}'] .alv-cell")


def point_at(page, panel: str, r: int, c: int) -> tuple[float, float]:
    """Where cell (r, c) of the panel's chart is on the screen (scrolled into view): its centre, from
    the grid's geometry (in the chart's units) and where the chart is drawn."""
    grid = page.locator(f"[data-panel='{panel}'] .alv-grid")
    grid.scroll_into_view_if_needed()
    g = json.loads(grid.get_attribute("data-cells"))
    box = grid.bounding_box()
    sx, sy = box["width"] / g["width"], box["height"] / g["height"]
    return box["x"] + (g["x"] + c * g["px"] + g["w"] / 2) * sx, box["y"] + (g["y"] + r * g["py"] + g["h"] / 2) * sy


def hover(page, panel: str, r: int, c: int) -> None:
    page.mouse.move(*point_at(page, panel, r, c))


def tooltip(page) -> str:
    """The text of the tooltip on screen, once there is one."""
    tip = page.locator(".alv-tip:not([hidden])")
    expect(tip).to_have_count(1, timeout=TIMEOUT_MS)
    return tip.inner_text().replace("\n", " ")


def numbers(text: str) -> list[float]:
    return [float(x.replace("−", "-")) for x in re.findall(r"[−-]?\d+\.\d+", text)]


def test_hovering_a_score_shows_its_dot_product_term_by_term_and_lights_q_and_k(open_page, artifacts):
    """All steps on one page: hovering s_2,3 writes q_2·k_3 as a sum of products of the trace's own
    entries, and lights up row 2 of Q and row 3 of K (in their table and over their chart)."""
    page = open_page("/?all_steps=true", ".st-key-table-output table")
    hover(page, "scores", 1, 2)
    text = tooltip(page)
    assert "query “forum” (2) · key “is” (3)" in text
    shown = numbers(text)
    products = [TRACE.q[1, c] * TRACE.k[2, c] for c in range(4)]
    assert shown[-1] == pytest.approx(round(TRACE.scores[1, 2], 2), abs=1e-9)  # "= s_23" at the end
    factors = np.array(shown[:8]).reshape(4, 2)
    np.testing.assert_allclose(factors[:, 0], np.round(TRACE.q[1], 2), atol=1e-9)
    np.testing.assert_allclose(factors[:, 1], np.round(TRACE.k[2], 2), atol=1e-9)
    assert sum(products) == pytest.approx(TRACE.scores[1, 2])
    lit = page.evaluate("""() => ({
        q: Array.from(document.querySelectorAll('.st-key-table-q .alv-lit')).map(td => td.dataset.r),
        k: Array.from(document.querySelectorAll('.st-key-table-k .alv-lit')).map(td => td.dataset.r),
        qGrid: Array.from(document.querySelectorAll("[data-panel='q'] .alv-band")).map(b => b.dataset.r)})""")
    assert set(lit["q"]) == {"1"} and len(lit["q"]) == 4  # row 2 of Q, all its d_k cells
    assert set(lit["k"]) == {"2"} and len(lit["k"]) == 4  # row 3 of K
    assert set(lit["qGrid"]) == {"1"}
    panel = page.locator("[data-panel='scores']").bounding_box()
    tip = page.locator(".alv-tip:not([hidden])").bounding_box()
    left, top = max(min(panel["x"], tip["x"]) - 20, 0), max(min(panel["y"], tip["y"]) - 20, 0)
    right = max(panel["x"] + panel["width"], tip["x"] + tip["width"]) + 20
    bottom = max(panel["y"] + panel["height"], tip["y"] + tip["height"]) + 20
    page.screenshot(path=artifacts / "view-tooltip.png",  # the README's picture: the chart, its table, the tip
                    clip={"x": left, "y": top, "width": right - left, "height": bottom - top})


def test_hovering_a_weight_shows_its_softmax_and_sends_nothing(open_page):
    page = open_page("/?step=7", ".st-key-table-weights table")
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda data: sent.append(data)))
    page.reload()
    page.wait_for_selector("[data-panel='weights'] .alv-cell", state="attached")
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]")
    before = len(sent)
    for r, c in ((0, 0), (2, 1), (3, 3)):
        hover(page, "weights", r, c)
        text = tooltip(page)
        e, total, alpha = numbers(text)[:3]
        places = len(re.search(r"= (\d+\.\d+) /", text).group(1).split(".")[1])  # 3, or more where 3 don't add up
        assert places >= 3
        assert e == pytest.approx(round(TRACE.exp_scores[r, c], places), abs=1e-9)
        assert total == pytest.approx(round(TRACE.exp_scores[r].sum(), places), abs=1e-9)
        assert alpha == pytest.approx(round(TRACE.weights[r, c], 2), abs=1e-9)
        # e^(z−m) twice, its exponent written as a superscript (it was a subscript)
        assert page.locator(".alv-tip:visible sup", has_text="z−m").count() == 2
    page.wait_for_timeout(500)  # a message would have left by now; nothing to wait for if none does
    assert len(sent) == before  # hovering sent the server nothing


def test_escape_hides_a_tooltip_the_mouse_showed_wherever_the_focus_is(open_page):
    """WCAG 1.4.13 (dismissible): a tooltip shown by hovering, with the keyboard's focus outside the chart (here
    in the sentence box), goes away on Escape without the pointer moving; the lit panels go dark with it; the next
    hover shows it again."""
    page = open_page("/?step=5", ".st-key-table-scores table")
    page.locator(".st-key-sentence input").focus()
    hover(page, "scores", 1, 2)
    tooltip(page)
    assert page.locator("[data-panel='scores'] .alv-here").count() == 1  # its own cell in the table, lit
    page.keyboard.press("Escape")
    expect(page.locator(".alv-tip:not([hidden])")).to_have_count(0)
    expect(page.locator("[data-panel='scores'] .alv-here")).to_have_count(0)
    assert page.evaluate("() => document.activeElement.closest('.st-key-sentence') !== null")  # the focus stayed
    hover(page, "scores", 2, 1)
    assert "s" in tooltip(page)


def test_clicking_a_row_chooses_the_query_and_the_link_follows(open_page):
    page = open_page("/?step=7", ".st-key-table-weights table")
    page.locator(".st-key-table-weights tbody th", has_text="forum").click()
    page.wait_for_selector("h3:has-text('Step 8 of 8')")
    expect(page.locator(".st-key-query input")).to_have_value("2 · forum", timeout=TIMEOUT_MS)
    page.wait_for_function("() => location.search.includes('query=2')")
    page.wait_for_function("() => document.querySelector('.st-key-table-alpha-row tbody th')?.innerText === 'forum'")


def test_the_keyboard_moves_through_a_heatmap_and_enter_chooses(open_page):
    page = open_page("/?step=5", ".st-key-table-scores table")
    cell(page, "scores").focus()  # it starts at (1, 1)
    for key in ("ArrowDown", "ArrowDown", "ArrowRight", "ArrowLeft", "ArrowRight"):
        page.keyboard.press(key)
    focused = page.evaluate("() => { const e = document.activeElement; return [e.dataset.r, e.dataset.c,"
                            " e.getAttribute('role'), e.getAttribute('aria-label')]; }")
    assert focused[:3] == ["2", "1", "gridcell"]
    assert focused[3] == f"query 3 “is”, key 2 “forum”: {TRACE.scores[2, 1]:.2f}".replace("-", "−")
    assert "s3,2 = q3·k2" in tooltip(page)  # the tooltip shows on focus, for the keyboard too
    assert page.locator(".alv-tip:not([hidden])").get_attribute("role") == "tooltip"
    page.keyboard.press("Enter")
    page.wait_for_selector("h3:has-text('Step 8 of 8')")
    expect(page.locator(".st-key-query input")).to_have_value("3 · is", timeout=TIMEOUT_MS)


def test_a_tap_shows_the_tooltip_and_a_second_tap_chooses(browser, base_url):
    context = browser.new_context(viewport={"width": 1024, "height": 1366}, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(base_url + "/?step=6")
    page.wait_for_selector("[data-panel='scaled'] .alv-cell", state="attached")
    page.touchscreen.tap(*point_at(page, "scaled", 3, 0))
    text = tooltip(page)
    assert f"z4,1 = s4,1 / √4 = {TRACE.scores[3, 0]:.2f}".replace("-", "−") in text
    assert "Step 6 of 8" in page.locator("h3").first.inner_text() or page.locator("h3:has-text('Step 6')").count()
    page.touchscreen.tap(*point_at(page, "scaled", 3, 0))
    page.wait_for_selector("h3:has-text('Step 8 of 8')")
    expect(page.locator(".st-key-query input")).to_have_value("4 · awesome", timeout=TIMEOUT_MS)
    context.close()


def test_a_second_tap_chooses_only_when_the_finger_is_lifted_on_its_cell(browser, base_url):
    """WCAG 2.5.2 (pointer cancellation): a second tap that touches down on the cell and slides off before it is
    lifted chooses nothing; lifted on the cell, it chooses. The first rerun the page asks for is the second choice."""
    context = browser.new_context(viewport={"width": 1024, "height": 1366}, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda data: sent.append(data)))
    page.goto(base_url + "/?step=6")
    page.wait_for_selector("[data-panel='scaled'] .alv-cell", state="attached")
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]")
    touch = context.new_cdp_session(page)

    def finger(kind: str, at: tuple[float, float] | None = None) -> None:
        points = [{"x": at[0], "y": at[1]}] if at else []
        touch.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    cell, other = point_at(page, "scaled", 3, 0), point_at(page, "scaled", 1, 1)
    page.touchscreen.tap(*cell)
    tooltip(page)
    start = len(sent)
    finger("touchStart", cell)  # the second tap: down on the cell, slid to another, lifted there
    finger("touchMove", other)
    finger("touchEnd")
    other = point_at(page, "scaled", 1, 1)  # where it is now: the slide may have scrolled the page
    page.touchscreen.tap(*other)  # the other cell: its tooltip, then a whole second tap chooses it
    expect(page.locator(".alv-tip:not([hidden])")).to_contain_text("z2,2", timeout=TIMEOUT_MS)
    page.touchscreen.tap(*point_at(page, "scaled", 1, 1))  # (the tooltip shown: the page has stopped moving)
    page.wait_for_selector("h3:has-text('Step 8 of 8')")
    expect(page.locator(".st-key-query input")).to_have_value("2 · forum", timeout=TIMEOUT_MS)
    asked = reruns(sent[start:])
    assert asked and '"row":1' in asked[0][0].replace(" ", ""), f"reruns asked for, with what each sent: {asked}"
    context.close()


# JS: every visible text of the views (table cells, tooltip, row labels) with its colour and the colour
# of what is behind it, and the contrast between them (WCAG's formula)
CONTRASTS = """() => {
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const lum = ([r, g, b]) => 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  const behind = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  return Array.from(document.querySelectorAll('.alv th, .alv td, .alv-tip:not([hidden]) div'))
    .filter((e) => e.innerText.trim()).map((e) => ratio(rgb(getComputedStyle(e).color), behind(e)));
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_tables_and_tooltips_read_at_4_5_to_1_in_both_themes(browser, base_url, scheme):
    """The browser's preference picks the theme (no base in .streamlit/config.toml); the view's tables
    and tooltip and the page's background follow it, every text at 4.5:1 or more."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, color_scheme=scheme)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(base_url + "/?step=5")
    page.wait_for_selector("[data-panel='scores'] .alv-cell", state="attached")
    background = page.evaluate("() => getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor")
    assert (background == "rgb(255, 255, 255)") == (scheme == "light")
    hover(page, "scores", 1, 1)
    tooltip(page)
    ratios = page.evaluate(CONTRASTS)
    assert len(ratios) > 20 and min(ratios) >= 4.5, min(ratios)
    scheme_of_chart = page.evaluate(
        "() => getComputedStyle(document.querySelector('[data-panel=scores] img')).colorScheme")
    assert scheme_of_chart == scheme  # the chart's own palette follows (an SVG image takes the page's scheme)
    context.close()


def test_a_hostile_sentence_reaches_tooltips_and_labels_as_text(open_page):
    sentence = "<img src=x onerror=window.__pwned=1> **bold** [a](https://evil.example) $x$"
    page = open_page("/?" + urlencode({"sentence": sentence, "step": "5"}), ".st-key-table-scores table")
    page.wait_for_selector("[data-panel='scores'] .alv-cell", state="attached")
    hover(page, "scores", 1, 2)
    text = tooltip(page)
    assert "query “img” (2) · key “src” (3)" in text
    assert page.evaluate("() => window.__pwned") is None
    assert page.locator(".alv img[src='x'], .alv a, .alv strong, .alv .katex").count() == 0
    assert page.locator(".st-key-table-scores tbody th").first.inner_text() == "<"


def test_a_64_token_step_draws_the_rows_in_view_and_answers_every_cell(open_page):
    """A 64 × 64 α: its table draws only the rows in its scrolling box (scrolling draws the others, with
    the engine's numbers), and its chart answers the pointer at any cell, with one grid element."""
    sentence = " ".join(f"w{k}" for k in range(63)) + " zebra"
    trace = trace_self_attention(sentence, d_model=8, d_k=4, seed=DEFAULT_SEED)
    assert trace.n == 64
    page = open_page("/?" + urlencode({"sentence": sentence, "step": "7"}), ".st-key-table-weights table")
    drawn_rows = "document.querySelectorAll('.st-key-table-weights tbody tr:not(.alv-spacer)').length"
    page.wait_for_function(f"{drawn_rows} > 0 && {drawn_rows} < 64", timeout=TIMEOUT_MS)
    assert page.locator("[data-panel='weights'] .alv-cell").count() == 1
    box = page.locator(".st-key-table-weights")
    # The box follows its own size: uncapped (as before its stylesheet arrives, on a busy machine) it
    # draws every row, capped again only those in view.
    box.evaluate("b => { b.style.maxHeight = 'none'; }")
    page.wait_for_function(f"{drawn_rows} === 64", timeout=TIMEOUT_MS)
    box.evaluate("b => { b.style.maxHeight = ''; }")
    page.wait_for_function(f"{drawn_rows} > 0 && {drawn_rows} < 64", timeout=TIMEOUT_MS)
    box.evaluate("b => { b.scrollTop = b.scrollHeight; }")
    last = page.locator(".st-key-table-weights tbody tr:not(.alv-spacer)").last
    expect(last.locator("th")).to_have_text("zebra", timeout=TIMEOUT_MS)
    cells = [float(t.replace("−", "-")) for t in last.locator("td").all_inner_texts()]
    np.testing.assert_allclose(cells, np.round(trace.weights[63], 2), atol=1e-9)
    hover(page, "weights", 50, 10)
    text = tooltip(page)
    assert "query “w50” (51) · key “w10” (11)" in text
    assert numbers(text)[2] == pytest.approx(round(trace.weights[50, 10], 2), abs=1e-9)


@pytest.mark.parametrize("width", [1280, 1024])
def test_a_tooltip_is_never_under_the_sidebar(open_page, width):
    """A cell at the left edge of a heatmap, with the sidebar open: its tooltip starts right of the sidebar
    (it was drawn under it, ~56 px hidden at 1280 and 1024), for the pointer and for the keyboard."""
    page = open_page("/?step=5&sentence=the+cat+sat+on+the+mat", ".st-key-table-scores table", width=width, height=800)
    main_left = page.evaluate("document.querySelector('[data-testid=stMain]').getBoundingClientRect().left")
    assert main_left > 200  # the sidebar is open beside the page
    left_of_tip = "() => document.querySelector('.alv-tip:not([hidden])').getBoundingClientRect().left"
    for r in range(6):
        hover(page, "scores", r, 0)
        tooltip(page)
        assert page.evaluate(left_of_tip) >= main_left
    page.locator("[data-panel='scores'] .alv-cell").focus()  # the keyboard
    page.keyboard.press("Home")
    tooltip(page)
    assert page.evaluate(left_of_tip) >= main_left


def test_enter_on_a_cell_keeps_the_focus_on_the_grid_when_the_page_stays(open_page):
    """All steps on one page: Enter on a score chooses that query (step 8 follows) and the page stays, so
    the focus stays on the cell (it went to <body>, 34 Tabs from the grid)."""
    page = open_page("/?all_steps=true", ".st-key-table-output table")
    page.locator("[data-panel='scores'] .alv-cell").focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")  # query 3
    expect(page.locator(".st-key-query input")).to_have_value("3 · is")
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]")
    page.wait_for_function("""() => { const a = document.activeElement;
      return a && a.classList.contains('alv-cell') && a.closest('[data-panel]')?.dataset.panel === 'scores'
        && a.dataset.r === '2' }""")
    page.keyboard.press("ArrowDown")  # and the keyboard goes on from there
    page.wait_for_function("() => document.activeElement?.dataset.r === '3'")


def test_one_step_at_a_time_a_scores_tooltip_shows_the_q_and_k_it_comes_from(open_page):
    """Linked highlighting needs Q and K on the page; one step at a time they are on step 4, so the tooltip
    names q_i and k_j with their numbers instead (issue 34). With every step drawn, they light up instead."""
    page = open_page("/?step=5", ".st-key-table-scores table")
    hover(page, "scores", 1, 2)
    text = tooltip(page)
    q = ", ".join(format_number(x) for x in TRACE.q[1])
    k = ", ".join(format_number(x) for x in TRACE.k[2])
    assert f"q2 = ({q}), row 2 of Q" in text and f"k3 = ({k}), row 3 of K" in text
    every = open_page("/?all_steps=true", ".st-key-table-output table")
    hover(every, "scores", 1, 2)
    assert "Computed from" not in tooltip(every)
    expect(every.locator("[data-panel='q'] .alv-band[data-r='1']")).to_have_count(1)  # q_2 lights up instead
