"""The app runs offline (issue 34): no page asks any host but the app's own for anything.

Every lesson, class mode and the projector page is opened in Chromium with every request to another host
refused and recorded (as on a machine with the network unplugged); each page must finish its run having asked
for nothing elsewhere. Streamlit's favicon for a ``:material/…:`` page icon was fetched from
fonts.gstatic.com on every page load.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.browser.conftest import TIMEOUT_MS
from ui.navigation import PAGES, url_path

SLOW_MS = 4 * TIMEOUT_MS  # a real model's first load, or writing with SmolLM2, on a busy machine

PATHS = [url_path(script) for script, _, _ in PAGES] + ["classmode?projector=NOSUCH"]
FINISHED = """() => document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-script-state')
  === 'notRunning' && document.fonts.status === 'loaded' && !!document.querySelector('h1')"""


@pytest.mark.parametrize("path", PATHS)
def test_no_page_asks_another_host_for_anything(browser, base_url, path):
    own = urlsplit(base_url).netloc
    asked: list[str] = []

    def elsewhere(url: str) -> bool:
        return urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).netloc != own

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        context.route(elsewhere, lambda route: (asked.append(route.request.url), route.abort()))
        page = context.new_page()
        page.goto(f"{base_url}/{path}")
        page.wait_for_function(FINISHED, timeout=SLOW_MS)
        icon = page.evaluate("() => document.querySelector(\"link[rel='shortcut icon']\")?.href || ''")
        assert not elsewhere(icon), icon
        assert asked == [], f"/{path} asked another host for {asked}"
        assert page.locator("[data-testid='stException']").count() == 0
    finally:
        context.close()
