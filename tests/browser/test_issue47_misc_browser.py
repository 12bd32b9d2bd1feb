"""Issue 47's smaller items, in Debian's Chromium against `streamlit run`: a stage's words on the parts page select
it, and a desktop page never paints the phone-only sentence line."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, TIMEOUT_MS

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


# JS: the display formulas on screen that run past their box (scrolled sideways), outside the expanders of written-out
# arithmetic (aligned sums, which scroll by design: docs/decisions.md); KaTeX's box is 2 px short of its content on
# every formula, so 2 px are allowed
FORMULAS_PAST_THEIR_BOX = """() => [...document.querySelectorAll('.katex-display')]
  .filter(d => d.getClientRects().length && !d.closest('[data-testid=stExpander]') && d.scrollWidth > d.clientWidth + 2)
  .map(d => ({formula: d.querySelector('annotation')?.textContent.slice(0, 80), width: d.scrollWidth,
              room: d.clientWidth}))"""
FORMULA_PAGES = [  # (path, what is on the page once drawn): every page whose formulas have parts
    ("/?all_steps=true&positional=true", ".st-key-table-output table"),  # X = E + P, Q = XW_Q…, S = QKᵀ…, α = …
    ("/?all_steps=true&causal=true", ".st-key-table-output table"),  # the masked line
    ("/multihead", ".st-key-table-mh-output table"),  # the path: [4 × 8] → 2 × [4 × 4] → …
    ("/phonebook", ".st-key-table-pb-answers table"),
    ("/cross", "[class*='st-key-table-'] table"),
    ("/generate?gen_count=2", ".st-key-table-gen-written table"),  # a cached step's q, k, v and K, V; RoPE
]


@pytest.mark.parametrize("screen", ["phone", "tablet"])
def test_a_formula_wraps_between_its_parts_instead_of_running_past_the_screen(open_page, screen):
    """Step 7's α = softmax… ran 35 px past a phone's page and step 4's Q = XW_Q… 19 px past a 1024 px one
    (scrolled sideways, its shapes out of view); now a formula too wide for its room wraps between its parts."""
    phone = {key: value for key, value in PHONE.items() if key != "viewport"}
    options = dict(width=390, height=844, **phone) if screen == "phone" else dict(width=1024, height=768)
    for path, ready in FORMULA_PAGES:
        page = open_page(path, ready, **options)
        page.wait_for_function("() => document.querySelector('[data-testid=stApp]').getAttribute("
                               "'data-test-script-state') === 'notRunning' && document.fonts.status === 'loaded'")
        assert page.evaluate(FORMULAS_PAST_THEIR_BOX) == [], path
        page.context.close()
