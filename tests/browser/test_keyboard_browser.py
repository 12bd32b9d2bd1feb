"""Keyboard only, the walkthrough and the multi-head page, as a learner who never touches the mouse: every
navigation leaves the focus on what it opened, the next Tab goes on from there, and the focus is never lost
to the page's <body> (it went there after Enter on a cell, 34 Tabs from the grid; issue 34)."""

from __future__ import annotations

import pytest

from tests.browser.test_arrival_browser import LAPTOP, arrived

pytestmark = pytest.mark.browser

# JS: a short name of the focused element, "BODY" when the focus is lost
FOCUSED = """() => { const a = document.activeElement;
  if (!a || a === document.body) return 'BODY';
  const panel = a.closest('[data-panel]')?.dataset.panel;
  if (panel) return `cell ${panel} ${a.dataset.r},${a.dataset.c}`;
  if (a.tagName === 'INPUT') return a.value || a.getAttribute('aria-label') || 'INPUT';
  const label = a.querySelector('[data-testid=stMarkdownContainer]') || a;  // a button's text, not its icon's
  return a.id || (label.innerText || '').trim().split('\\n')[0] || a.tagName }"""


def press(page, key: str) -> str:
    before = page.evaluate(FOCUSED)
    page.keyboard.press(key)
    now = page.evaluate(FOCUSED)
    assert now != "BODY", f"the focus was lost after {key} (from {before})"
    return now


def navigate(page, key: str, anchor: str) -> None:
    """A key that opens another step: while the page redraws, the element that had the focus may be gone; once
    drawn, the focus is on the opened heading."""
    page.keyboard.press(key)
    arrived(page, anchor)
    settled(page)  # the learner's next key comes once the step is drawn (a key during the run may be lost)


def tab_to(page, wanted: str, limit: int = 60) -> int:
    """Tab until the focused element's name starts with ``wanted``; how many Tabs it took."""
    for count in range(1, limit + 1):
        if press(page, "Tab").startswith(wanted):
            return count
    raise AssertionError(f"{wanted} not reached in {limit} Tabs (at {page.evaluate(FOCUSED)})")


def settled(page) -> None:
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]")


def test_the_walkthrough_by_keyboard_alone(open_page):
    page = open_page("/?sentence=the+cat+sat+on+the+mat", ".st-key-table-tokens table", **LAPTOP)
    tab_to(page, "Next")  # from the top of the page: the sidebar, the controls, Next
    navigate(page, "Enter", "step-2")
    tab_to(page, "X", limit=3)  # past the heading's own link, the map's fold button (issue 47) and its one stop: X
    tab_to(page, "cell x ", limit=3)  # then the step's grid, a Tab or two away
    press(page, "ArrowRight")
    assert page.evaluate(FOCUSED) == "cell x 0,1"
    tab_to(page, "Next: step 3")  # the button at the end of the step
    navigate(page, "Enter", "step-3")
    navigate(page, "PageDown", "step-4")  # a presentation clicker's key, from the heading
    navigate(page, "PageDown", "step-5")
    settled(page)
    tab_to(page, "cell scores ", limit=6)
    press(page, "ArrowDown")
    press(page, "ArrowDown")
    navigate(page, "Enter", "step-8")  # query 3: step 8, on that query
    page.wait_for_function("() => document.querySelector('.st-key-query input')?.value === '3 · sat'")
    tab_to(page, "3 · sat", limit=6)  # the query's menu, the next stop after the heading


def test_the_multihead_page_by_keyboard_alone(open_page):
    page = open_page("/multihead", ".st-key-table-mh-output table", **LAPTOP)
    tab_to(page, "cell heads-1 ")  # head 2's heatmap
    press(page, "ArrowDown")
    navigate(page, "Enter", "open-head")  # open head 2 below
    page.wait_for_function("() => document.querySelector('.st-key-open_head input')?.value === 'head 2'")
    tab_to(page, "head 2", limit=4)  # the head's menu, right under the heading
