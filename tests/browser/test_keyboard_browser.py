"""Keyboard only, the walkthrough and the multi-head page, as a learner who never touches the mouse: every
navigation leaves the focus on what it opened, the next Tab goes on from there, and the focus is never lost
to the page's <body> (it went there after Enter on a cell, 34 Tabs from the grid; issue 34). ``walk_by_tab``
walks a whole lesson by Tab (tests/browser/test_every_student_browser.py runs it on every lesson; issue 44)."""

from __future__ import annotations

import pytest

from tests.browser.conftest import ARRIVED, reruns
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
    page.wait_for_function(ARRIVED)  # the letter keys are stopped by static/arrival.js, loaded after the element


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


# JS: every element the Tab key should reach on the page as it stands, in the page's order, each marked with its
# number (data-walk): what takes the focus (links, buttons, fields, an expander's summary, tabindex ≥ 0), not
# disabled, drawn, and not hidden; of a radio group (radio inputs, or buttons with the role, as a segmented
# control's) only its chosen option, or its first when none is chosen: one Tab stop, the arrow keys move within it.
# Each as "number key tag: its name".
TABBABLE = r"""() => { const out = [];
  const all = document.querySelectorAll('button, a[href], input, select, textarea, summary, [tabindex]');
  for (const e of all) {
    if (e.tabIndex < 0 || e.disabled || !e.getClientRects().length || getComputedStyle(e).visibility === 'hidden'
        || e.closest('[inert], [aria-hidden=true]')) continue;
    if (e.type === 'radio' || e.getAttribute('role') === 'radio') {  // a group's chosen option, or its first
      const group = e.type === 'radio' ? [...document.querySelectorAll(`input[type=radio][name="${e.name}"]`)]
        : [...e.closest('[role=radiogroup]').querySelectorAll('[role=radio]')];
      const chosen = group.find(o => o.checked || o.getAttribute('aria-checked') === 'true') || group[0];
      if (e !== chosen) continue;
    }
    e.dataset.walk = out.length + 1;
    const key = [...(e.closest('[class*=st-key-]')?.classList || [])].find(c => c.startsWith('st-key-'))
      || e.getAttribute('data-testid') || '';
    const name = (e.getAttribute('aria-label') || e.innerText || e.value || '').trim().slice(0, 30).replace(/\n/g, ' ');
    out.push(`${out.length + 1} ${key} ${e.tagName.toLowerCase()}: ${name}`);
  }
  return out; }"""
# JS: how the element numbered ``walk`` and three of its parents look (outline, shadow, borders, background, their
# ::before and ::after too), to compare with and without the focus
LOOKS = r"""walk => { const props = ['outlineStyle', 'outlineWidth', 'outlineColor', 'boxShadow', 'borderTopColor',
    'borderBottomColor', 'backgroundColor', 'textDecorationLine'];
  const looks = [];
  for (let e = document.querySelector(`[data-walk="${walk}"]`), i = 0; e && i < 4; e = e.parentElement, i++)
    for (const pseudo of [null, '::before', '::after']) {
      const style = getComputedStyle(e, pseudo);
      looks.push(props.map(p => style[p]).join(' '));
    }
  return looks.join(' | '); }"""
# JS: the focus is in Streamlit's data editor (a grid drawn on a canvas, which moves the focus from the canvas to
# its own hidden cells), and control ``k``, the next, is not
IN_DATA_EDITOR = """k => { const editor = '[data-testid=stDataFrameResizable]';
  return !!document.activeElement?.closest(editor)
    && !document.querySelector(`[data-walk="${k}"]`)?.closest(editor); }"""
# JS: the focus is on a box made a Tab stop since the list was made, standing before control ``k`` (a formula
# becomes one when it grows wider than its box, static/arrival.js): a stop in its place in the order
LATE_STOP = """k => { const a = document.activeElement, next = document.querySelector(`[data-walk="${k}"]`);
  return !!a && !a.dataset.walk && a.tabIndex >= 0 && a !== document.body && !!next
    && !!(a.compareDocumentPosition(next) & Node.DOCUMENT_POSITION_FOLLOWING); }"""
STILL = "() => document.getAnimations().every(a => a.playState !== 'running')"  # a focus ring's transition is over


def walk_by_tab(page) -> list[str]:
    """Tab from the page's top through every control it has, and then once more. What went wrong: a control the
    Tab skipped or met out of the page's order, a control that looked the same with the focus as without it, and
    a last Tab that did not leave the page (a trap). Streamlit's data editor draws its focus inside a canvas, which
    this cannot see (docs/accessibility.md, 2.4.7), and moves the focus among its cells, which takes two more Tabs
    to leave."""
    controls = page.evaluate(TABBABLE)
    # from the page's top: the focus on <body>, which moves the next Tab's starting point there (a step opened by
    # its link has the focus on its heading, and a blur alone leaves the next Tab starting from that heading)
    page.evaluate("() => { const b = document.body; b.tabIndex = -1; b.focus(); b.removeAttribute('tabindex'); }")
    wrong = []
    for k, control in enumerate(controls, 1):
        page.wait_for_function(STILL)
        before = page.evaluate(LOOKS, k)
        for _ in range(4):  # the data editor takes Tabs among its cells (the canvas, its cell, out)
            page.keyboard.press("Tab")
            if page.evaluate(LATE_STOP, k):
                page.keyboard.press("Tab")
            if not page.evaluate(IN_DATA_EDITOR, k):
                break
        else:
            wrong.append(f"the keyboard cannot Tab out of the data editor before {control}")
            break
        now = page.evaluate("() => document.activeElement?.dataset?.walk"
                            " || document.activeElement?.outerHTML.slice(0, 200)")
        if now != str(k):
            wrong.append(f"Tab went to {now} where {control} was next")
            break
        page.wait_for_function(STILL)
        if page.evaluate(LOOKS, k) == before and " canvas: " not in control:
            wrong.append(f"no sign of the focus on {control}")
    page.keyboard.press("Tab")  # out of the page's controls: on none of them, not back on the first
    if page.evaluate("() => !!document.activeElement?.dataset?.walk"):
        wrong.append(f"the last Tab went to {page.evaluate('() => document.activeElement.dataset.walk')}")
    return wrong



def test_the_letter_keys_r_c_and_a_do_nothing_to_the_page(open_page):
    """WCAG 2.1.4: Streamlit reruns the page on the key R alone (offers its owner "Clear caches" on C, and answers
    its "source file changed" prompt on A), with no setting to turn it off; the page stops those keys
    (static/arrival.js). Pressed with the focus on the page's body, on a button and on a heatmap's cell, then Next
    by its key: the first rerun the browser asks for is Next's. And R still types an R in a text box."""
    page = open_page("/?step=5", ".st-key-table-scores table", **LAPTOP)
    settled(page)
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda data: sent.append(data)))
    page.reload()  # Streamlit's socket was open already: a reload watches the new one from its start
    page.wait_for_selector("[data-panel='scores'] .alv-cell", state="attached")
    settled(page)
    start = len(sent)
    page.locator("body").evaluate("b => b.focus()")
    page.keyboard.press("r")
    page.keyboard.press("Shift+R")
    page.keyboard.press("c")
    page.keyboard.press("a")
    page.locator(".st-key-prev_step button").focus()
    page.keyboard.press("r")
    page.locator("[data-panel='scores'] .alv-cell").focus()
    page.keyboard.press("r")
    page.locator(".st-key-next_step button").focus()
    page.keyboard.press("PageDown")
    arrived(page, "step-6")
    settled(page)
    asked = reruns(sent[start:])
    assert asked and any(w.endswith("next_step") for w in asked[0]), f"reruns, with what each pressed: {asked}"
    assert page.get_by_role("dialog").count() == 0  # no "Clear caches"
    box = page.locator(".st-key-sentence input")
    box.fill("")
    box.press_sequentially("Rc r")
    assert box.input_value() == "Rc r"
