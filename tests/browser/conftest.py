"""Fixtures: one real streamlit server and one Debian Chromium for the browser tests of a module."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect, sync_playwright

from tests.browser.server import ROOT, launch_chromium, streamlit_server

ARTIFACTS = ROOT / "test-artifacts"
TIMEOUT_MS = 60_000  # for every wait: generous, since CI runs on 2 busy cores
# a progress bar's line once the server's worker has taken its job up (ui.background.progress_text): "starting" until
# the job's first report, then its share; not "waiting for another long computation …"
TAKEN_UP = re.compile(r"… (starting|\S+ of the work done) \(\d+ s\)")
# A phone as the server meets one: its size and touch, and a phone's User-Agent (Chromium's own headless one names a
# desktop, and the server sends the phone-only sentence line to phones and tablets only: ui.settings.on_a_desktop)
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "user_agent": "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) "
                       "Chrome/120.0.0.0 Mobile Safari/537.36"}
expect.set_options(timeout=TIMEOUT_MS)  # expect(...) too (its own default is 5 s: a busy machine's rerun is longer)

# JS: the tables on the page that do not fit their box: scrolled sideways (some columns out of view), or
# running past the box's right edge (as a table does for a frame while our table CSS is redrawn);
# the tables ``scrolling`` (keys) are allowed to scroll
CUT_OFF_TABLES = """scrolling => Array.from(document.querySelectorAll('[class*="st-key-table-"] table'))
  .filter(t => t.scrollWidth > t.clientWidth || t.getBoundingClientRect().right
               > t.closest('[data-testid=stElementContainer]').getBoundingClientRect().right + 1)
  .map(t => t.closest('[class*="st-key-table-"]').className.match(/st-key-table-\\S+/)[0])
  .filter(k => !(scrolling || []).includes(k.slice('st-key-table-'.length)))"""
# JS: static/arrival.js has done its work on this page: called once (the language on <html>, Streamlit's letter keys
# stopped), no pass over the scrolling formulas waiting for its frame, and no navigation's heading still waiting for
# the focus (it has it, or the wait has stopped). Its code is a static file the component imports (ui/view.py's
# ``loader``), run a moment after the element arrives: a page is not settled before it.
ARRIVED_NOW = ("(('__attentionLabArrival' in window) && !window.__attentionLabChecking"
               " && window.__attentionLabLanding == null)")
ARRIVED = f"() => {ARRIVED_NOW}"
# JS: the page has finished its run with its fonts loaded, each of the tables ``keys`` is there, and
# no table on the page is cut off (but those in ``scrolling``)
WHOLE_TABLES = f"""([keys, scrolling]) => document.querySelector('[data-testid=stApp]')
  ?.getAttribute('data-test-script-state') === 'notRunning' && document.fonts.status === 'loaded'
  && keys.every(k => !!document.querySelector(`.st-key-table-${{k}} table`))
  && ({CUT_OFF_TABLES})(scrolling).length === 0"""


# JS: the charts (server-made images) drawn narrower than 0.85 of their own width, which shrinks their
# labels with them (an 11 px tick label below 9.4 px)
SHRUNK_CHARTS = """() => Array.from(document.querySelectorAll('[class*="st-key-fig-"] img'))
  .filter(i => i.getBoundingClientRect().width < 0.85 * i.naturalWidth)
  .map(i => i.closest('[class*="st-key-fig-"]').className.match(/st-key-fig-\\S+/)[0])"""
# JS: each of the charts ``keys`` has loaded, and no chart on the page is shrunk
FULL_SIZE_CHARTS = f"""keys => keys.every(k => {{ const i = document.querySelector(`.st-key-fig-${{k}} img`);
  return !!i && i.complete && i.naturalWidth > 0 }}) && ({SHRUNK_CHARTS})().length === 0"""


def _wait_until_none(page, ready: str, arg, culprits: str, what: str) -> None:
    """Wait until ``ready(arg)`` holds; on a timeout, fail naming what ``culprits(arg)`` still finds."""
    try:
        page.wait_for_function(ready, arg=arg)
    except PlaywrightTimeout:
        raise AssertionError(f"{what} on {page.url}: {page.evaluate(culprits, arg)}") from None


def param(page, name: str, value: str, default: str | None = None) -> None:
    """Wait until the link holds ``value`` for ``name`` (a link leaves a setting at its ``default`` out; a setting of
    several values, such as the heads switched off, holds them all, joined by "&"). The address comes in a message of
    its own, which a busy browser may apply after the page is drawn: read it only so."""
    fallback = "null" if default is None else repr(default)
    page.wait_for_function(f"() => {{ const all = new URLSearchParams(location.search).getAll({name!r});"
                           f" return (all.length ? all.join('&') : {fallback}) === {value!r} }}")


def wait_for_full_size_charts(page, keys: list[str]) -> None:
    """Wait until the charts ``keys`` have loaded and every chart on the page is drawn at (nearly) its
    own size, so that its labels stay as legible as they were made."""
    _wait_until_none(page, FULL_SIZE_CHARTS, keys, SHRUNK_CHARTS, "charts shrunk")


def wait_for_whole_tables(page, keys: list[str], scrolling: tuple[str, ...] = ()) -> None:
    """Wait until the tables ``keys`` are drawn and every table on the page shows all its columns,
    but the tables ``scrolling``, which may scroll sideways."""
    _wait_until_none(page, WHOLE_TABLES, [keys, list(scrolling)], f"([_, s]) => ({CUT_OFF_TABLES})(s)",
                     "tables cut off")


def reruns(frames: list) -> list[list[str]]:
    """The reruns a browser asked Streamlit for, of the websocket frames it sent (``page.on("websocket")``): each as
    what it pressed, a button's id, or a component's id and the value it sent ("…-fig-scores={...}")"""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    asked = []
    for frame in frames:
        if not isinstance(frame, bytes):
            continue
        message = BackMsg.FromString(frame)
        if message.WhichOneof("type") == "rerun_script":
            widgets = message.rerun_script.widget_states.widgets
            asked.append([w.id for w in widgets if w.trigger_value]
                         + [f"{w.id}={w.json_trigger_value}" for w in widgets if w.json_trigger_value])
    return asked

@pytest.fixture(scope="session")
def artifacts():
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def base_url(artifacts):
    with streamlit_server() as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        b = launch_chromium(p)
        yield b
        b.close()


@pytest.fixture
def open_page(browser, base_url):
    """Open a lesson as a new learner would: a fresh browser context, the URL, then wait until
    ``ready`` is on the page. At teardown every opened page must show no exception."""
    contexts = []

    def open_(path: str = "", ready: str = ".st-key-table-output table", *, width: int = 1400, height: int = 1000,
              **options):
        context = browser.new_context(viewport={"width": width, "height": height}, **options)
        contexts.append(context)
        pg = context.new_page()
        pg.set_default_timeout(TIMEOUT_MS)
        pg.goto(base_url + path)
        pg.wait_for_selector(ready)
        # a model map above the content mounts its own script: wait until it is drawn, or its arrival shifts the
        # page under a pointer a test has just placed (and a hovered cell's light goes out)
        pg.wait_for_function("() => [...document.querySelectorAll('[class*=\"st-key-map-\"]')]"
                             ".every((box) => box.querySelector('nav'))")
        pg.wait_for_function(ARRIVED)  # and a step link's heading has the focus before a test moves it elsewhere
        return pg

    yield open_
    for context in contexts:
        for pg in context.pages:
            assert pg.locator("[data-testid='stException']").count() == 0, f"{pg.url} shows an exception"
        context.close()


@pytest.fixture
def page(open_page):
    """The walkthrough with all eight steps on one page, in a fresh browser context (the default
    one-step-at-a-time view has tests of its own)."""
    return open_page("/?all_steps=true")
