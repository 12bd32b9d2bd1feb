"""Issue 47's smaller items, in Debian's Chromium against `streamlit run`: a stage's words on the parts page select
it, and a desktop page never paints the phone-only sentence line."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import TIMEOUT_MS

pytestmark = pytest.mark.browser


def test_clicking_a_stages_words_selects_it(open_page):
    page = open_page("/parts", ".st-key-table-parts-weights-1 table")
    page.locator(".st-key-stage").get_by_text("+ values: W_V").click()  # the words, not the round button
    page.wait_for_function("() => new URLSearchParams(location.search).get('stage') === '2'")
    page.locator(".st-key-table-parts-weights-2 table").first.wait_for()
    # the 4 × 4 α is one block: its column holds a table, so it is as wide as its content, and the room is the row
    assert page.locator(".st-key-table-parts-weights-2 table").count() == 1
    expect(page.locator(".st-key-stage input[type=radio]").nth(1)).to_be_checked()


# JS run before the page's own: every frame until told to stop, whether the phone-only line was ever drawn
WATCH = """window.__phoneSeen = false;
(function look() { const box = document.querySelector('.st-key-phone-sentence');
  if (box && box.getBoundingClientRect().height > 0 && box.textContent.includes('Sentence')) window.__phoneSeen = true;
  if (!window.__stopLooking) requestAnimationFrame(look); })();"""


def test_a_desktop_page_never_paints_the_phone_only_line(browser, base_url):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        context.add_init_script(WATCH)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(base_url + "/?sentence=a+dog+ran")
        page.locator("[class*='st-key-table-'] table").first.wait_for()  # the lesson is drawn
        page.locator(".st-key-share").wait_for(state="attached")  # drawn after the line would be (app.py)
        page.evaluate("window.__stopLooking = true")
        assert page.evaluate("window.__phoneSeen") is False
        expect(page.get_by_text("(change it in the sidebar")).to_have_count(0)
    finally:
        context.close()
