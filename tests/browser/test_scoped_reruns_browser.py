"""Reruns of the lesson alone (issue 35): a new sentence or seed typed in the sidebar reruns only app.py's keyed
fragment, and the page it leaves is the page a full run of the same link draws: the same lesson text, the same
address and the same share link. A lesson's button that changes what the sidebar shows (an example put into the
sentence box) redraws the sidebar too.

AppTest cannot see these reruns (its tree holds only a run's own elements, so app.py runs the lesson as a plain
function under it); this is where they are tested."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from tests.browser.conftest import TIMEOUT_MS

pytestmark = pytest.mark.browser

SIDEBAR_ONLY = b"New random seed"  # a label only the full run's sidebar sends (its seed button)
FINISHED = ("() => document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-script-state') "
            "=== 'notRunning'")
# JS: the lesson as the learner reads it (the main area's text), once its views have drawn their panels
LESSON_TEXT = """() => { const main = document.querySelector('[data-testid=stMain]');
  return main ? main.innerText : '' }"""


class Recorded:
    """A page in a fresh browser context, with every websocket frame the server sent it."""

    def __init__(self, browser, url: str) -> None:
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000})
        self.page = self.context.new_page()
        self.page.set_default_timeout(TIMEOUT_MS)
        self.frames: list[bytes] = []
        self.page.on("websocket", lambda ws: ws.on("framereceived", self._received))
        self.page.goto(url)

    def _received(self, payload) -> None:
        self.frames.append(payload if isinstance(payload, bytes) else payload.encode())

    def sent_since(self, start: int) -> bytes:
        return b"".join(self.frames[start:])

    def settled(self, ready: str) -> None:
        """Wait until ``ready`` is drawn and the run has finished, and the text stops changing between two reads."""
        self.page.wait_for_selector(ready)
        self.page.wait_for_function(FINISHED)
        self.page.wait_for_function(f"""() => {{ const t = ({LESSON_TEXT})();
          const same = window.__alvLast === t; window.__alvLast = t; return same && t.length > 0 }}""",
                                    polling=300)

    def share_link(self) -> str:
        self.page.locator(".st-key-share button").first.click()
        code = self.page.locator("[data-testid=stPopoverBody] [data-testid=stCode] code").last
        expect(code).to_be_visible()
        text = code.inner_text()
        self.page.keyboard.press("Escape")
        return text

    def close(self) -> None:
        assert self.page.locator("[data-testid='stException']").count() == 0, f"{self.page.url} shows an exception"
        self.context.close()


def type_into(page, key: str, text: str) -> None:
    box = page.locator(f".st-key-{key} input").first
    box.fill(text)
    box.press("Enter")


def linked(url: str, key: str) -> str | None:
    return (parse_qs(urlparse(url).query).get(key) or [None])[0]


# (page path, the lesson's marker, the sidebar setting typed, its new value)
CASES = [
    ("/", ".st-key-table-tokens table", "sentence", "the old owl sat still"),
    ("/?all_steps=true", ".st-key-table-output table", "sentence", "a red fox ran far away"),
    ("/?step=7&d_k=8", ".st-key-table-weights table", "seed", "7"),
    ("/multihead", "[class*=st-key-table-]", "sentence", "dogs chase cats in the yard"),
    ("/scaling", "[class*=st-key-fig-]", "seed", "123"),
    ("/relevance", "[class*=st-key-table-]", "sentence", "the bank by the river bank"),
    ("/parts", "[class*=st-key-table-]", "seed", "5"),
    ("/cross", "[class*=st-key-table-]", "seed", "9"),
    ("/real_model", "[class*=st-key-table-]", "sentence", "The cat sat on the mat."),
]


@pytest.mark.parametrize("path,ready,key,value", CASES, ids=[c[0] for c in CASES])
def test_a_sidebar_edit_reruns_the_lesson_alone_and_draws_what_a_full_run_draws(browser, base_url, path, ready,
                                                                                key, value):
    edited = Recorded(browser, base_url + path)
    edited.settled(ready)
    assert SIDEBAR_ONLY in edited.sent_since(0)  # a full run sends the sidebar (the check below can fail)
    start = len(edited.frames)
    type_into(edited.page, key, value)
    edited.page.wait_for_function("([key, want]) => new URLSearchParams(location.search).get(key) === want",
                                  arg=[key, value])
    edited.settled(ready)
    assert SIDEBAR_ONLY not in edited.sent_since(start), "the sidebar was sent again: a full run, not the lesson's"
    assert edited.page.locator(f".st-key-{key} input").first.input_value() == value

    lesson, link = edited.page.evaluate(LESSON_TEXT), edited.share_link()

    fresh = Recorded(browser, edited.page.url)  # the same link, opened anew: a full run
    fresh.settled(ready)
    assert fresh.page.url == edited.page.url and linked(fresh.page.url, key) == value
    try:  # a page may run once more after it first settles (a busy machine draws its style sheet late): wait
        fresh.page.wait_for_function(f"want => ({LESSON_TEXT})() === want", arg=lesson)
    except PlaywrightTimeout:
        assert fresh.page.evaluate(LESSON_TEXT) == lesson
    assert fresh.share_link() == link
    edited.close()
    fresh.close()


def test_a_lessons_example_button_redraws_the_sidebar_and_typing_over_it_takes_a_full_run(browser, base_url):
    """ "Show me" (a real model's head with a job) puts its example into the sidebar's box from inside the lesson's
    fragment: the box, and the notice that offers the learner's sentence back, must show it. Typing over it then
    drops the notice, which only a full run can."""
    from attention.pretrained.gallery import GALLERY

    example = next(e for e in GALLERY if e.model == "minilm").sentence
    learner = Recorded(browser, base_url + "/real_model?sentence=my+own+words+here")
    learner.settled("[class*=st-key-table-]")
    learner.page.locator(".st-key-rm_gallery_0 button").click()
    box = learner.page.locator(".st-key-sentence input").first
    expect(box).to_have_value(example)
    expect(learner.page.get_by_text("An example replaced your sentence")).to_be_visible()
    start = len(learner.frames)
    type_into(learner.page, "sentence", "my second own sentence")
    expect(learner.page.get_by_text("An example replaced your sentence")).to_have_count(0)
    learner.settled("[class*=st-key-table-]")
    assert SIDEBAR_ONLY in learner.sent_since(start)  # the notice went: the sidebar was drawn again
    assert linked(learner.page.url, "sentence") == "my second own sentence"
    learner.close()
