"""After each kind of navigation, what it opened is in view: its heading at the top of the viewport, with
the keyboard's focus on it (ui/arrival.py, issue 34). At 1280 × 800, with the sidebar open, as a learner
on a laptop meets it; each navigation from a place where the opened heading was out of view."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ARRIVED, TIMEOUT_MS
from tests.browser.server import ROOT
from tests.browser.test_view_browser import point_at

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1280, "height": 800}

# JS: the heading ``id`` is at the top of the viewport (below Streamlit's header), and it has the focus
AT_THE_TOP = """id => { const h = document.getElementById(id); if (!h) return false;
  const top = h.getBoundingClientRect().top;
  const header = document.querySelector('[data-testid=stHeader]')?.getBoundingClientRect().bottom || 0;
  return top >= header - 1 && top <= header + 40 && document.activeElement === h }"""
# JS: where the heading ``id`` is, for a failure's message
WHERE = """id => { const h = document.getElementById(id); return h ? {top: h.getBoundingClientRect().top,
  focus: document.activeElement?.tagName + '#' + document.activeElement?.id} : null }"""


def arrived(page, anchor: str) -> None:
    try:
        page.wait_for_function(AT_THE_TOP, arg=anchor)
    except Exception:
        raise AssertionError(f"{anchor} not at the top with the focus: {page.evaluate(WHERE, anchor)}") from None


def top_of(page, anchor: str) -> float:
    return page.evaluate("id => document.getElementById(id).getBoundingClientRect().top", anchor)


def test_next_previous_the_menu_and_a_chosen_query_land_on_their_step(open_page):
    page = open_page("/?sentence=the+cat+sat+on+the+mat", ".st-key-table-tokens table", **LAPTOP)
    assert top_of(page, "step-1") > 400  # the intro above the controls: step 1's heading low on the page
    page.locator(".st-key-next_step button").click()  # Next, at the top
    arrived(page, "step-2")
    page.get_by_role("button", name="Next: step 3").click()  # the button at the end of the step
    arrived(page, "step-3")
    page.locator(".st-key-prev_step button").focus()  # the keyboard: Previous with Enter
    page.keyboard.press("Enter")
    arrived(page, "step-2")
    box = page.locator(".st-key-step input")  # the menu
    box.click()
    box.fill("5 · Sco")
    page.get_by_role("option", name="5 · Scores Q·Kᵀ", exact=True).click()
    arrived(page, "step-5")
    page.wait_for_selector(".st-key-table-scores table")
    page.mouse.click(*point_at(page, "scores", 2, 1))  # a click on a query's row opens step 8, on that query
    arrived(page, "step-8")
    expect(page.locator(".st-key-query input")).to_have_value("3 · sat")
    # a rerun that is not a navigation leaves the page where the learner scrolled it
    page.locator("[data-testid=stMain]").evaluate("m => m.scrollBy(0, 300)")
    before = top_of(page, "step-8")
    page.locator(".st-key-sentence input").fill("a dog ran")
    page.locator(".st-key-sentence input").press("Enter")
    page.wait_for_function("() => location.search.includes('sentence=a+dog+ran')")
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]")
    assert abs(top_of(page, "step-8") - before) < 2


def test_a_chosen_head_opens_in_view_on_the_multihead_page(open_page):
    page = open_page("/multihead", ".st-key-table-mh-output table", **LAPTOP)
    page.mouse.click(*point_at(page, "heads-1", 0, 0))
    arrived(page, "open-head")
    expect(page.locator(".st-key-open_head input")).to_have_value("head 2")


def test_a_real_models_tile_opens_its_head_in_view(open_page):
    page = open_page("/real_model", ".st-key-table-rm-head table", **LAPTOP)
    page.mouse.click(*point_at(page, "rm-model-view", 1, 2))  # layer 2, head 3
    arrived(page, "one-head")
    expect(page.locator(".st-key-rm_layer input")).to_have_value("2")
    expect(page.locator(".st-key-rm_head input")).to_have_value("3")


# JS: count every text the live region is given (from now on), to tell one announcement from several
COUNT_SAID = """() => { const r = document.getElementById('attention-lab-announce'); window.__said = [];
  new MutationObserver(() => r.textContent && window.__said.push(r.textContent)).observe(r,
    {childList: true, characterData: true, subtree: true}); }"""


def test_an_edit_is_announced_once_politely_and_a_navigation_or_a_first_load_is_not(open_page):
    """Issue 44: after an edit the page tells a screen reader, once and politely, that its numbers changed (the live
    region is a status in the accessibility tree, empty before); Next is not announced (its heading takes the focus
    and is read); the learner's sentence is said as text; the same edit twice is said twice."""
    page = open_page("/?step=3", ".st-key-table-tokens table, .st-key-view-projections", **LAPTOP)
    region = page.locator("#attention-lab-announce")
    expect(region).to_have_attribute("aria-live", "polite")
    expect(region).to_have_attribute("role", "status")
    assert region.text_content() == ""  # the first load says nothing
    page.evaluate(COUNT_SAID)
    box = page.locator(".st-key-sentence input")
    hostile = "<b>the</b> *cat*"
    box.fill(hostile)
    box.press("Enter")
    expect(region).to_have_text(f"The numbers are updated for “{hostile}”.")
    expect(page.get_by_role("status").filter(has_text="The numbers are updated")).to_have_count(1)  # in the tree
    page.locator(".st-key-next_step button").click()
    arrived(page, "step-4")
    page.locator("[data-testid=stApp][data-test-script-state=notRunning]").wait_for()
    assert page.evaluate("window.__said") == [f"The numbers are updated for “{hostile}”."]
    assert page.locator("#attention-lab-announce b").count() == 0  # text, never markup
    page.locator(".st-key-new_seed button").click()  # another edit: said again
    page.wait_for_function("() => window.__said.length === 2")
    page.locator("[data-testid=stApp][data-test-script-state=notRunning]").wait_for()
    assert page.evaluate("window.__said") == [f"The numbers are updated for “{hostile}”."] * 2



# A page with nothing but static/arrival.js and a step's heading inside a ``part`` that cannot give it the focus yet
ALONE = """<!doctype html><html lang="en"><body><div data-testid="stApp"><div data-testid="stMain"><div>
  {part}</div></div></div></body></html>"""
HEADING = '<h3 id="lt-head-step-5">Step 5 of 8</h3>'
NAVIGATE = """async () => { const { default: arrival } = await import('/arrival.js');
  arrival({ data: { nonce: 'load' } });  // the page's first run
  arrival({ data: { nonce: 'map', target: 'lt-head-step-5' } });  // a map's part: a navigation
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))); }"""


@pytest.mark.parametrize(("part", "opens"), [
    (f'<div id="part" inert>{HEADING}</div>', "part => part.removeAttribute('inert')"),  # Streamlit's expander
    (f'<details id="part"><summary>Steps</summary>{HEADING}</details>', "part => { part.open = true }"),
], ids=["inert", "closed-details"])
def test_a_heading_that_cannot_take_the_focus_yet_gets_it_once_it_can(browser, part, opens):
    """A map's part on the learn page opens its panel (an expander) and a step in it, in one run. Streamlit draws the
    expander's content `inert` until its frame opens it; under load the heading came first, focus() did nothing, and
    the heading was left without the focus (CI, 2026-12-04). The arrival waits until the heading can take it."""
    context = browser.new_context()
    page = context.new_page()
    script = (ROOT / "static" / "arrival.js").read_text(encoding="utf-8")
    page.route("http://lab.test/arrival.js", lambda route: route.fulfill(body=script, content_type="text/javascript"))
    page.route("http://lab.test/", lambda route: route.fulfill(body=ALONE.format(part=part), content_type="text/html"))
    page.goto("http://lab.test/")
    heading = page.locator("#lt-head-step-5")
    page.evaluate(NAVIGATE)  # the navigation's frame has passed, and the heading could not take the focus
    expect(heading).not_to_be_focused()
    page.locator("#part").evaluate(opens)
    expect(heading).to_be_focused()
    context.close()


def test_a_script_whose_fetch_failed_is_fetched_again_by_the_next_run(browser, base_url):
    """The arrival's script is a static file its element imports (ui/view.py's loader). A fetch that fails once (a
    classroom's Wi-Fi, a proxy) is not remembered: the next run's element fetches it again, and the page then does
    what the script does (the language on <html>, the letter keys stopped, a navigation's heading focused)."""
    context = browser.new_context(viewport=LAPTOP)
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        failed, fetched = [], []

        def fail_once(route):
            if failed:
                fetched.append(route.request.url)
                route.continue_()
            else:
                failed.append(route.request.url)
                route.abort()

        page.route("**/app/static/arrival.js*", fail_once)
        with page.expect_event("requestfailed", predicate=lambda request: "arrival.js" in request.url):
            page.goto(base_url + "/")
        page.wait_for_selector(".st-key-table-tokens table")
        page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]")
        assert not page.evaluate("() => '__attentionLabArrival' in window")  # its one fetch failed: not run
        box = page.locator(".st-key-sentence input")
        box.fill("the cat sat")
        box.press("Enter")
        page.wait_for_function(ARRIVED)  # the edit's run: its element fetched the script again, and it ran
        # at a new address: a browser may keep a module that failed, with the modules importing it, as failed
        assert fetched and all("&try=" in address for address in fetched), fetched
        page.locator(".st-key-next_step button").click()
        arrived(page, "step-2")  # and a navigation lands as it does
    finally:
        context.close()
