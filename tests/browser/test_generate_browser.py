"""Issue 25 in Debian's Chromium against `streamlit run`: the generation lesson (what SmolLM2 writes, its
cache, one step with the cache, a tooltip on its one row of α) and the real model's heads switched off,
with hostile text in the prompt."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from attention.pretrained import load
from attention.pretrained.gallery import INDUCTION_HEADS, induction_prompt
from tests.browser.conftest import TAKEN_UP, TIMEOUT_MS
from tests.browser.test_lessons_browser import full_screenshot
from tests.browser.test_view_browser import hover, tooltip
from tests.browser.test_walkthrough_browser import type_sentence
from viz.labels import token_labels

pytestmark = pytest.mark.browser

# JS: how many tiles of the chart ``key`` are marked (a head switched off), once its image has loaded
MARKED_TILES = """key => {
  const img = document.querySelector(`.st-key-fig-${key} img`);
  if (!img || !img.complete || !img.naturalWidth) return null;
  return (decodeURIComponent(img.src.split(',')[1]).match(/<g class="marked"/g) || []).length;
}"""


def column(page, key: str, n: int) -> list[str]:
    """The texts of column n (1: the row labels) of the table ``key``'s first block of columns (a table wider than
    the page is drawn in blocks of columns, one under another: static/view.js)."""
    return page.locator(f".st-key-table-{key} table:first-of-type tbody tr:not(.alv-spacer) > :nth-child({n})"
                        ).all_inner_texts()


def test_the_generation_lesson_writes_caches_and_walks_a_step(open_page, artifacts):
    page = open_page("/generate?gen_count=4", ".st-key-table-gen-written table")
    gen = load("smollm2").generate("This forum is awesome", 4)
    written = token_labels(gen.tokens)[gen.prompt:]
    page.wait_for_function("([key, want]) => JSON.stringify([...document.querySelectorAll("
                           "`.st-key-table-${key} table:first-of-type tbody tr > :nth-child(2)`)]"
                           ".map(c => c.innerText)) === JSON.stringify(want)", arg=["gen-written", written])
    last = len(gen.ids) - 2  # the last step reads the last token but one
    hover(page, "gen-weights", 0, last)
    text = tooltip(page)
    labels = token_labels(gen.tokens)
    assert f"“{labels[last]}”" in text and f"{gen.steps[-1].weights[0, 0, last]:.2f}" in text
    full_screenshot(page, artifacts / "generate-full.png")

    slider = page.locator(".st-key-gen_count input")  # the thumb takes the arrow keys
    slider.focus()
    slider.press("ArrowLeft")  # 3 tokens: chosen, not yet written (a key press no longer writes)
    page.locator(".st-key-gen_write button").click()  # Write
    page.wait_for_function("() => location.search.includes('gen_count=3')")
    expect(page.locator(".st-key-table-gen-written table:first-of-type tbody tr")).to_have_count(3, timeout=TIMEOUT_MS)


def test_a_hostile_prompt_is_written_out_as_text(open_page):
    page = open_page("/generate?gen_count=2", ".st-key-table-gen-written table")
    hostile = "**bold** <img src=x onerror=alert(1)> [a](javascript:x)"
    type_sentence(page, hostile)
    page.get_by_text(f"“{hostile}”", exact=False).filter(visible=True).first.wait_for()  # (not the phone's line)
    assert page.locator("[data-testid=stMain] img[src='x']").count() == 0
    assert page.locator("[data-testid=stMain] a[href^='javascript']").count() == 0
    expect(page.locator(".st-key-sentence input")).to_have_value(hostile, timeout=TIMEOUT_MS)


def test_switching_off_the_induction_heads_in_the_browser(open_page, artifacts):
    decoder = "SmolLM2+%28SmolLM2-135M-Instruct%2C+a+Llama+decoder%29"
    page = open_page(f"/real_model?rm_model={decoder}", ".st-key-table-rm-head table")
    page.locator(".st-key-rm_induction_off button").first.click()
    prompt, word = induction_prompt(42)
    expect(page.locator(".st-key-sentence input")).to_have_value(prompt, timeout=TIMEOUT_MS)
    page.wait_for_function("([key, want]) => { const c = document.querySelector(`.st-key-table-${key} tbody tr > "
                           ":nth-child(2)`); return !!c && c.innerText === want }", arg=["rm-off-next", f"␣{word}"])
    after = load("smollm2").next_tokens_without(prompt, frozenset(INDUCTION_HEADS))
    assert column(page, "rm-off-next", 4)[0] == after[0][0]
    page.wait_for_function("() => new URLSearchParams(location.search).getAll('rm_off').length === 5")
    page.wait_for_function(f"() => ({MARKED_TILES})('rm-model-view') === 2")  # layer 19, heads 7 and 8
    page.locator(".st-key-table-rm-off-next").scroll_into_view_if_needed()
    page.screenshot(path=artifacts / "heads-off.png")


def test_a_folded_vector_answers_for_the_dimension_each_drawn_cell_is(open_page):
    """A cached step's x [1 × 576] is drawn as 18 rows of 32 and its q [1 × 64] as 8 rows of 8 (issue 34): a
    drawn cell's tooltip, its keyboard label and the table's lit cell speak of the dimension it is."""
    page = open_page("/generate?gen_count=4", ".st-key-table-gen-q table", width=1280, height=800)
    hover(page, "gen-x", 2, 3)  # row 2 holds dimensions 65–96
    assert "dimension 68" in tooltip(page)
    cell = page.locator("[data-panel='gen-q'] .alv-cell")
    cell.focus()
    page.keyboard.press("ArrowDown")  # one drawn row down: eight dimensions on
    expect(page.locator("[data-panel='gen-q'] .alv-cell")).to_have_attribute("aria-label", re.compile(r"dimension 9 "))
    lit = page.locator(".st-key-table-gen-q td.alv-here")
    expect(lit).to_have_count(1)
    assert lit.get_attribute("data-c") == "8"  # the table's cell of dimension 9 (its ninth column)


def test_writing_shows_its_progress_and_cancel_stops_it_until_write(open_page):
    """Twenty tokens after a prompt of ~100 (seconds: each is checked against a pass over the whole sequence) are
    written beside the page (ui/background.py): a progress bar and Cancel; after Cancel the page says so and waits
    for Write, which starts writing them again (cancelled once more here: a writing that finishes is the other
    tests' to read, and a busy machine takes minutes over this one)."""
    prompt = " ".join(["the cat sat on the mat and looked at the dog"] * 9)  # ~100 tokens
    page = open_page(f"/generate?gen_count=20&sentence={prompt.replace(' ', '+')}", "[data-testid=stProgress]")
    progress = page.locator("[data-testid=stProgress]")
    for press in ("the link", "Write"):
        expect(progress).to_contain_text(TAKEN_UP)  # taken up by the worker (not "waiting for …")
        page.locator(".st-key-gen_cancel button").click()
        expect(page.get_by_text("Writing cancelled. Press Write to write.")).to_be_visible()
        expect(progress).to_have_count(0)
        expect(page.locator(".st-key-table-gen-written")).to_have_count(0)
        if press == "the link":
            page.locator(".st-key-gen_write button").click()
            expect(page.get_by_text("Writing cancelled.")).to_have_count(0)
