"""Fixtures: one real streamlit server and one Debian Chromium for the browser tests of a module."""

from __future__ import annotations

import pytest
from playwright.sync_api import sync_playwright

from tests.browser.server import ROOT, launch_chromium, streamlit_server

ARTIFACTS = ROOT / "test-artifacts"


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
def page(browser, base_url):
    """A fresh browser context (a new learner) on the default lesson; fails on any shown exception."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    pg.goto(base_url)
    pg.wait_for_selector(".st-key-table-output table")
    yield pg
    assert pg.locator("[data-testid='stException']").count() == 0, "the page shows an exception"
    context.close()
