"""The reader's language in a real browser (issue 45): the page declares it (``<html lang>``), the sidebar reads its
texts from it, the link keeps it after an edit, and a second learner beside, in English, is not touched by it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

READY = ".st-key-table-tokens table"


def test_a_page_in_the_pseudo_language_declares_it_keeps_it_in_its_link_and_leaves_an_english_page_english(open_page):
    pseudo = open_page("/?lang=qps", READY)
    english = open_page("/", READY)
    pseudo.wait_for_function("() => document.documentElement.lang === 'qps'")
    seed = pseudo.locator(".st-key-seed")
    expect(seed).to_contain_text("⟦Šééd")
    # the pages' menu and the tab's title (WCAG 2.4.2) are in the page's language, every entry of the menu
    menu = pseudo.locator("[data-testid=stSidebarNav] a")
    expect(menu).to_have_count(11)
    entries = menu.all_inner_texts()  # each its icon's name, then its title
    assert all(text.split()[-1].endswith("⟧") and "⟦" in text for text in entries), entries
    pseudo.wait_for_function("() => document.title.startsWith('⟦')")
    assert english.title().startswith("Step-by-step walkthrough")
    # an edit in each: the pseudo page keeps its language in its address, the English page stays English
    for page in (pseudo, english):
        page.locator(".st-key-new_seed button").click()
        page.wait_for_function("() => /[?&]seed=/.test(location.search)")
    assert "lang=qps" in pseudo.url and "lang=" not in english.url
    expect(english.locator(".st-key-seed")).to_contain_text("Seed")
    expect(english.locator(".st-key-seed")).not_to_contain_text("⟦")
    expect(seed).to_contain_text("⟦Šééd")
    assert pseudo.evaluate("document.documentElement.lang") == "qps"
