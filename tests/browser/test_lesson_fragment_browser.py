"""Issue 46, in Chromium against a real server: a learner's typed sentence or seed reruns the lesson fragment alone.

What the server sends is read from the page's own websocket (Streamlit's ForwardMsg, decoded with Streamlit's
protobuf classes): after an edit, every element it draws belongs to the lesson fragment, and the sidebar's controls
are not sent again. The page the learner then has is the page a whole run draws for the same link: the address bar,
the share link and the lesson's tokens are the same after opening that link in a new tab."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.browser.conftest import param
from tests.browser.test_accessibility_browser import SETTLED
from tests.browser.test_walkthrough_browser import type_sentence

pytestmark = pytest.mark.browser


class Runs:
    """The runs the server sends this page, from its websocket: each element's delta, with the fragment that drew it
    ("" for an element outside every fragment: drawn by a whole run only), in order."""

    def __init__(self, page) -> None:
        self.deltas: list[tuple[str, str]] = []  # (fragment id, the element's kind)
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload) -> None:
        if isinstance(payload, str):
            return
        message = ForwardMsg.FromString(payload)
        if message.WhichOneof("type") == "delta":
            delta = message.delta
            what = delta.WhichOneof("type")
            element = getattr(delta, what)
            name = element.WhichOneof("type") if what == "new_element" else what
            self.deltas.append((delta.fragment_id, name))


def share_link(page) -> str:
    """The link in the sidebar's "Share this lesson" box (opened, read, closed)."""
    page.locator(".st-key-share button").first.click()
    code = page.locator("[data-testid=stPopoverBody] code").first
    code.wait_for()
    text = code.inner_text().strip()
    page.keyboard.press("Escape")
    expect(page.locator("[data-testid=stPopoverBody]")).to_have_count(0)
    return text


def same(link: str) -> tuple:
    """A link as the browser reads it ("http://host" and "http://host/" are one address)."""
    parts = urlsplit(link)
    return parts.scheme, parts.netloc, parts.path or "/", parts.query


def tokens(page) -> str:
    """What step 1's table of tokens shows."""
    return page.locator(".st-key-table-tokens table").inner_text()


def test_a_typed_sentence_reruns_the_lesson_alone_and_leaves_the_page_its_link_opens(open_page, browser, base_url):
    page = open_page("/", ".st-key-table-tokens table")
    page.wait_for_function(SETTLED)
    runs = Runs(page)  # (the page's websocket is already open: reload to watch it)
    page.reload()
    page.locator(".st-key-table-tokens table").wait_for()
    page.wait_for_function(SETTLED)
    whole = list(runs.deltas)
    assert ("", "text_input") in whole, "the first run is a whole one: the sidebar's sentence box is drawn"
    sent = len(runs.deltas)
    assert same(share_link(page)) == same(page.url)

    type_sentence(page, "the cat sat on the mat")
    param(page, "sentence", "the cat sat on the mat")
    expect(page.locator(".st-key-table-tokens table")).to_contain_text("mat")
    page.wait_for_function(SETTLED)
    edit = runs.deltas[sent:]
    assert edit, "the edit drew the lesson again"
    fragments = {fragment for fragment, _ in edit}
    assert "" not in fragments and len(fragments) == 1, f"every element of the edit's run is the fragment's: {edit}"
    assert len(edit) < len(whole), (len(edit), len(whole))  # not the sidebar's controls again

    link = share_link(page)
    assert same(link) == same(page.url), (link, page.url)  # the share link and the address bar: the same, exact
    shown = tokens(page)
    assert "mat" in shown

    other = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        again = other.new_page()
        again.goto(link)
        again.locator(".st-key-table-tokens table").wait_for()
        again.wait_for_function(SETTLED)
        assert same(again.url) == same(link)
        assert same(share_link(again)) == same(link)
        assert tokens(again) == shown
        expect(again.locator(".st-key-sentence input")).to_have_value("the cat sat on the mat")
    finally:
        other.close()

    seed = page.locator(".st-key-seed input")  # the seed too: the fragment alone, its link exact
    sent = len(runs.deltas)
    seed.fill("7")
    seed.press("Enter")
    param(page, "seed", "7")
    page.wait_for_function(SETTLED)
    assert {fragment for fragment, _ in runs.deltas[sent:]} == fragments
    assert same(share_link(page)) == same(page.url)
