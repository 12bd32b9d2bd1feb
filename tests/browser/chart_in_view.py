"""Where the open step's first chart starts after a navigation (issue 47): shared by the browser tests of the rule
("the first chart of the open step starts in the upper 60 % of the viewport") and by bench/chart_in_view.py, which
prints the table in docs/benchmarks.md.

A chart is a server-made image (``.st-key-fig-<key> img``, ui/view.py and ui/components.py); the open step's first
chart is the first one after the step's heading in the page's order. Its top is measured once the page has settled:
the run finished, the arrival done (the heading has the focus), every chart of the page loaded, the model maps
drawn, and the chart's top the same for two animation frames.
"""

from __future__ import annotations

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import ARRIVED_NOW

SIZES = {  # (width, height, presenter mode): a laptop, a small laptop, two projectors
    "laptop 1280 × 800": (1280, 800, False),
    "laptop 1024 × 768": (1024, 768, False),
    "presenter 1280 × 720": (1280, 720, True),
    "presenter 1024 × 768": (1024, 768, True),
}
SHARE = 0.6  # the chart starts in the upper 60 % of the viewport

# JS: the top of the first chart after the heading ``id`` (null while there is none), relative to the viewport
FIRST_CHART_TOP = """id => { const h = document.getElementById(id); if (!h) return null;
  const img = [...document.querySelectorAll('[class*="st-key-fig-"] img')]
    .find(i => h.compareDocumentPosition(i) & Node.DOCUMENT_POSITION_FOLLOWING);
  return img ? img.getBoundingClientRect().top : null }"""

# JS: the page has settled on step ``id``: run over, the heading focused if ``focused`` (the arrival acted), charts
# loaded, maps drawn, and the first chart's top unchanged over two frames (a Promise: wait_for_function awaits it)
SETTLED = f"""([id, focused]) => {{
  const app = document.querySelector('[data-testid=stApp]');
  if (app?.getAttribute('data-test-script-state') !== 'notRunning' || document.fonts.status !== 'loaded') return false;
  if (!{ARRIVED_NOW}) return false;
  const h = document.getElementById(id);
  if (!h || (focused && document.activeElement !== h)) return false;
  if (![...document.querySelectorAll('[class*="st-key-fig-"] img')].every(i => i.complete && i.naturalWidth > 0))
    return false;
  if (![...document.querySelectorAll('[class*="st-key-map-"]')].every(b => b.querySelector('nav'))) return false;
  const top = ({FIRST_CHART_TOP})(id);
  if (top === null) return false;
  return new Promise(done => requestAnimationFrame(() => requestAnimationFrame(
    () => done(({FIRST_CHART_TOP})(id) === top))));
}}"""

# JS: what a failure names: the heading's and the chart's tops, the viewport, the focus
WHERE = f"""id => ({{heading: document.getElementById(id)?.getBoundingClientRect().top,
  chart: ({FIRST_CHART_TOP})(id), height: innerHeight,
  focus: document.activeElement?.tagName + '#' + document.activeElement?.id}})"""


def settled_chart_top(page, step: int, prefix: str = "", *, focused: bool = True,
                      timeout: float | None = None) -> float:
    """The viewport y of step ``step``'s first chart once the page has settled on that step (with the focus on its
    heading, unless not ``focused``)."""
    anchor = f"{prefix}step-{step}"
    try:
        page.wait_for_function(SETTLED, arg=[anchor, focused], timeout=timeout)
    except PlaywrightTimeout:
        raise AssertionError(f"step {step} did not settle: {page.evaluate(WHERE, anchor)}") from None
    return page.evaluate(FIRST_CHART_TOP, anchor)


def in_view(page, step: int, how: str) -> None:
    """Assert that step ``step``'s first chart starts in the upper 60 % of the viewport (after ``how``)."""
    top = settled_chart_top(page, step)
    height = page.viewport_size["height"]
    assert 0 <= top <= SHARE * height, (
        f"after {how}, step {step}'s first chart starts at y = {top:.0f} of {height} "
        f"(the upper 60 % ends at {SHARE * height:.0f}): {page.evaluate(WHERE, f'step-{step}')}")
