"""Hand-edited matrices on the walkthrough, the phonebook and the relevance lessons, in Chromium."""

from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from attention import Projections, random_projections, trace_self_attention
from tests.browser.test_lessons_browser import full_screenshot
from tests.browser.test_walkthrough_browser import (
    CHART_TEXTS,
    chart_texts,
    nudge_d_k,
    read_table,
    type_sentence,
    wait_for_table,
    wait_for_ticks,
)
from viz import tables as T

pytestmark = pytest.mark.browser

SENTENCE = "This forum is awesome"


def edit_cell(page, editor: str, row: int, col: int, text: str, *, ncols: int) -> None:
    """Type into cell (row, col), both 1-based, of a matrix editor as a learner does: click the
    cell, open its editor, select its text, type, press Enter.

    The grid is a canvas: cells are found by geometry (header and rows 35 px, index column 50 px,
    equal data columns), once the grid has stopped moving.
    """
    page.bring_to_front()  # another learner's page may have been opened since: typing needs the focus
    grid = page.locator(f".st-key-{editor}")
    grid.scroll_into_view_if_needed()
    box = settled_box(page, grid)
    x = box["x"] + 50 + (col - 0.5) * (box["width"] - 50) / ncols
    y = box["y"] + 35 + (row - 0.5) * 35
    type_in_cell(page, x, y, f"glide-cell-{col}-{row - 1}", text)


def settled_box(page, locator) -> dict:
    """The element's box once an expander has finished opening and the page has stopped scrolling:
    the same box on two animation frames in a row."""
    page.wait_for_function(
        """el => new Promise(done => requestAnimationFrame(() => {
            const a = JSON.stringify(el.getBoundingClientRect());
            requestAnimationFrame(() => done(a === JSON.stringify(el.getBoundingClientRect())));
        }))""",
        arg=locator.element_handle(),
    )
    return locator.bounding_box()


def type_in_cell(page, x: float, y: float, cell: str, text: str) -> None:
    """Select the grid cell at (x, y), whose accessible id is ``cell`` ("glide-cell-<column>-<row>"),
    replace its text with ``text`` and commit it. Each step waits for the grid's own state."""
    selected_or_open = ("id => document.activeElement?.id === id"
                        " || document.activeElement?.matches('textarea.gdg-input')")
    page.mouse.click(x, y)
    try:
        page.wait_for_function(selected_or_open, arg=cell, timeout=5_000)
    except PlaywrightTimeout:  # a grid without focus took the click as focus only: the second click selects
        page.mouse.click(x, y)
        page.wait_for_function(selected_or_open, arg=cell)
    if page.evaluate("id => document.activeElement.id === id", cell):
        page.keyboard.press("Enter")  # open the selected cell's editor
    editor = page.locator("textarea.gdg-input")
    page.wait_for_function("() => document.activeElement?.matches('textarea.gdg-input')")  # the editor has focus
    page.keyboard.press("Control+A")
    page.keyboard.type(text)
    # the editor holds the text, and React has rendered it (two animation frames), before Enter commits it
    page.wait_for_function(
        "t => document.activeElement?.value === t && new Promise(done => requestAnimationFrame("
        "() => requestAnimationFrame(() => done(document.activeElement?.value === t))))",
        arg=text,
    )
    page.keyboard.press("Enter")
    # Enter closes the editor. Twice, beside a second test run, the key did not reach it (the editor kept "abc" for a
    # minute; each time just after another learner's page was opened): as the click above, a second try, on the
    # editor itself (Playwright focuses it first), which commits as the learner's Enter does. (Waiting for the editor
    # to lose the focus instead raced its own closing: it blurs, then goes.)
    try:
        editor.wait_for(state="detached", timeout=15_000)
    except PlaywrightTimeout:
        editor.press("Enter")
        editor.wait_for(state="detached")


def grid_cell(page, editor: str, row: int, col: int) -> str:
    """The text of a cell, from the grid's accessible table (glide-cell-<column>-<row>, index column 0)."""
    return page.locator(f".st-key-{editor} #glide-cell-{col}-{row - 1}").inner_text()


# JS: the table's numbers (row labels left out) are ``want``, each within ``tol``
TABLE_CLOSE = """([sel, want, tol]) => {
  const rows = Array.from(document.querySelectorAll(sel)).map(r => Array.from(r.querySelectorAll('th, td')).slice(1)
    .map(c => parseFloat(c.innerText.trim().replace('−', '-'))));
  const same = (v, w) => (Number.isNaN(v) && (w === null || Number.isNaN(w))) || Math.abs(v - w) <= tol;  // a masked
  return rows.length === want.length  // cell (no number) matches a NaN, as numpy's assert_allclose matches them
    && rows.every((r, i) => r.length === want[i].length && r.every((v, j) => same(v, want[i][j])));
}"""


def eventually_close(page, key: str, expected: np.ndarray) -> None:
    """Wait until the table shows ``expected`` (to its 2 decimals): a rerun repaints its elements one
    by one, so a single read can land between two of them. On a timeout, fail with what it shows."""
    try:
        page.wait_for_function(TABLE_CLOSE, arg=[f".st-key-table-{key} table tbody tr", expected.tolist(),
                                                 0.005 + 1e-9])
    except PlaywrightTimeout:  # name the numbers it shows instead
        np.testing.assert_allclose(read_table(page, key)[1], expected, atol=0.005 + 1e-9)


def scores_row(page) -> np.ndarray:
    return read_table(page, "scores")[1][0]


def test_editing_a_matrix_cell_changes_the_scores(page, open_page, artifacts):
    page.get_by_text("Edit W_Q, W_K, W_V by hand").click()
    page.wait_for_selector(".st-key-edit-W_Q-1")
    original = scores_row(page)
    original_text = page.locator(".st-key-table-scores tbody tr").first.inner_text()
    edit_cell(page, "edit-W_Q-1", 1, 1, "5", ncols=4)
    page.wait_for_function("() => document.body.innerText.includes('These are your hand-edited matrices')")
    page.wait_for_function(
        "old => { const row = document.querySelector('.st-key-table-scores tbody tr');"
        " return row && row.innerText !== old; }",
        arg=original_text,
    )
    assert grid_cell(page, "edit-W_Q-1", 1, 1) == "5"
    assert not np.allclose(scores_row(page), original)
    w = random_projections(8, 4, 42)
    w_q = w.w_q.copy()
    w_q[0, 0] = 5.0
    expected = trace_self_attention(SENTENCE, d_model=8, d_k=4, seed=42, projections=Projections(w_q, w.w_k, w.w_v))
    eventually_close(page, "scores", expected.scores)  # every step uses it (each table repaints in its turn)
    eventually_close(page, "output", expected.output)
    page.locator(".st-key-edit-W_Q-1").scroll_into_view_if_needed()
    page.screenshot(path=artifacts / "walkthrough-edited-matrix.png")

    # the edit is in the link: a student who opens it sees the same numbers
    page.wait_for_function("() => location.search.includes('w=Q1.1')")
    student = open_page(page.url.split(page.url.split("/?")[0])[1], ".st-key-table-output table")
    eventually_close(student, "scores", expected.scores)

    # a bad cell is refused by name and the last good matrix stays in use
    edited_scores = read_table(page, "scores")[1]
    edit_cell(page, "edit-W_K-1", 2, 1, "abc", ncols=4)
    page.wait_for_function("() => document.body.innerText.includes('W_K row 2, column 1: “abc” is not a number')")
    np.testing.assert_array_equal(read_table(page, "scores")[1], edited_scores)

    # the edit survives a sentence change while d_model and d_k stay the same
    type_sentence(page, "the cat sat")
    wait_for_ticks(page, "scores", ["the", "cat", "sat"])
    page.wait_for_function(  # the table beside the heatmap may repaint a moment later
        "() => Array.from(document.querySelectorAll('.st-key-table-scores tbody tr > :first-child'))"
        ".map(e => e.innerText.trim()).join('|') === 'the|cat|sat'"
    )
    again = trace_self_attention("the cat sat", d_model=8, d_k=4, seed=42, projections=Projections(w_q, w.w_k, w.w_v))
    eventually_close(page, "scores", again.scores)

    # a new d_k resets the matrices and says so
    nudge_d_k(page)
    page.wait_for_function("() => document.body.innerText.includes('hand-edited matrices were reset')")
    preset = trace_self_attention("the cat sat", d_model=8, d_k=5, seed=42)
    eventually_close(page, "scores", preset.scores)


def test_phonebook_lookup(open_page, artifacts):
    page = open_page("/phonebook", ".st-key-table-pb-answers table")
    assert "Jindřich" in page.locator("p:has-text('Hard answer')").inner_text()  # closest spelling to Jindrich
    full_screenshot(page, artifacts / "phonebook-full.png")
    box = page.locator(".st-key-pb_query input")
    box.fill("Anna")
    box.press("Enter")
    page.wait_for_function("() => document.body.innerText.includes('an exact match')")
    assert page.locator("[data-testid=stException]").count() == 0


def test_relevance_change_raises_the_target_weight(open_page, artifacts):
    page = open_page("/relevance", ".st-key-table-arrow-scores table")
    _, before = read_table(page, "rel-before")
    _, after = read_table(page, "rel-after")
    assert after[0, 2] > before[0, 2] + 0.2  # "This" → "is" by default
    _, sim = read_table(page, "sim-weights")
    assert list(sim.argmax(axis=1)) == [0, 1, 2, 3]  # raw embeddings: the diagonal
    page.wait_for_function(f"() => (({CHART_TEXTS})(['arrows', 'arrowlabel']) || []).length === 5")
    assert sorted(chart_texts(page, "arrows", "arrowlabel")) == sorted(  # the chosen query + the 4 keys, by name
        ["q: This"] + [f"k: {t}" for t in ("This", "forum", "is", "awesome")])  # (the other queries: faded, unnamed)
    full_screenshot(page, artifacts / "relevance-full.png")
    page.locator("h3:has-text('Projections')").scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    page.screenshot(path=artifacts / "relevance-change.png")


def test_a_big_block_pasted_into_the_box_is_cut_with_a_message_and_reset_brings_back_the_preset(open_page):
    page = open_page("/?step=3", ".st-key-table-w_q table")
    page.get_by_text("Edit W_Q, W_K, W_V by hand").click()
    box = page.locator(".st-key-edit-paste textarea")
    box.wait_for()
    block = "\n".join("\t".join(["0.25"] * 20) for _ in range(20))  # 20 × 20, as a spreadsheet copies it
    box.fill(block)
    page.locator(".st-key-edit-paste-apply button").click()
    page.wait_for_selector("[data-testid=stAlertContainer]:has-text('Cut: rows 9–20 and columns 5–20')")
    wait_for_table(page, "w_q", [["0.25"] * 4] * 8)  # the top-left 8 × 4 is in use, in every step's numbers
    # a block with a bad cell is refused whole; Reset then brings back the preset (issue 12: this once hung)
    box.fill("1 2\n3 oops")
    page.locator(".st-key-edit-paste-apply button").click()
    page.wait_for_selector("[data-testid=stAlertContainer]:has-text('Nothing of the block was applied to W_Q')")
    page.locator(".st-key-edit-reset button").click()
    preset = trace_self_attention(SENTENCE, d_model=8, d_k=4, seed=42)
    wait_for_table(page, "w_q", T.formatted(T.projection_frame(preset.w_q)).values.tolist())
    expect(page.locator(".st-key-edit-reset button")).to_be_disabled()
    page.wait_for_function("() => !new URLSearchParams(location.search).has('w')")  # no edited cells left in the link
