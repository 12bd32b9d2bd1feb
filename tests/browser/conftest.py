"""Fixtures: one real streamlit server and one Debian Chromium for the browser tests of a module."""

from __future__ import annotations

import pytest
from playwright.sync_api import sync_playwright

from tests.browser.server import ROOT, launch_chromium, streamlit_server

ARTIFACTS = ROOT / "test-artifacts"
TIMEOUT_MS = 60_000  # for every wait: generous, since CI runs on 2 busy cores


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

    def open_(path: str = "", ready: str = ".st-key-table-output table"):
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        contexts.append(context)
        pg = context.new_page()
        pg.set_default_timeout(TIMEOUT_MS)
        pg.goto(base_url + path)
        pg.wait_for_selector(ready)
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
