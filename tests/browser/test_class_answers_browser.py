"""Issue 47 in Chromium: class mode keeps every answer and a closed class's export.

A number answer typed and sent with ONE click (a laptop), ONE tap (a phone, a touch screen) or Enter is recorded,
with a timer running, and the student sees it was received. On the old page the button was disabled until the
text box was committed, so the first click or tap only committed the box: nothing was recorded, nothing said so.

A teacher who closes the class at the bell and reloads (or opens a new tab) still finds the export, holding the
answers; the old desk offered Join/Teach and no export after one reload.
"""

from __future__ import annotations

import re
import tempfile
import time
from urllib.parse import quote_plus

import pytest
from playwright.sync_api import expect

from classmode.store import Store
from tests.browser.server import streamlit_server
from tests.browser.test_classmode_browser import LAPTOP, PHONE, PROJECTOR, Room, in_class, join, start

pytestmark = pytest.mark.browser

NUMBER_QUESTION = {"key": "t-alpha", "prompt": "What is α for this pair, to two decimals?", "options": [],
                   "answer": 0.25, "also": [], "explanation": "", "low": 0.25, "high": 0.25}


@pytest.fixture(scope="module")
def served():
    """A server of its own, whose class database the test opens too (to ask a number question and read answers)."""
    with tempfile.TemporaryDirectory(prefix="attention-lab-answers-") as folder, \
            streamlit_server(env={"ATTENTION_LAB_DATA": folder}) as base:
        yield base, Store(f"sqlite:///{folder}/classes.sqlite3")


def recorded(store: Store, code: str, me: str, number: int, wait: float = 15.0) -> str | None:
    """The student's stored answer, waiting up to ``wait`` seconds for the click's run to write it."""
    deadline = time.monotonic() + wait
    while True:
        found = store.my_answer(code, me, number)
        if found is not None or time.monotonic() > deadline:
            return found
        time.sleep(0.3)


def browser_id(page) -> str:
    """The id this browser keeps (ui/identity.py, static/identity.js), as the store records its student."""
    return page.evaluate("() => JSON.parse(localStorage.getItem('attention-lab')).browser")


def test_a_typed_answer_is_sent_by_one_click_one_tap_or_enter_under_a_timer(browser, served):
    base, store = served
    room = Room(browser, base)
    try:
        teacher = store.create_class({"page": "", "query": {}}, browser="teacher-of-47", address="127.0.0.1")
        code = teacher.code
        students = {}
        for name, options in (("Ann", LAPTOP), ("Pia", PHONE), ("Eve", LAPTOP)):
            page = room.open(room.person(**options), f"/classmode?class={code}")
            join(page, code, name)
            in_class(page, code)
            students[name] = page
        number = store.open_question(teacher.secret, NUMBER_QUESTION)
        store.set_timer(teacher.secret, 120.0)  # a timer running
        for page in students.values():
            page.get_by_text("What is α for this pair").wait_for()
            page.locator(".st-key-cm-timer").wait_for()
            # the countdown counts in the browser (static/countdown.js and its stylesheet, fetched once a page)
            countdown = page.locator(".cm-countdown")
            expect(countdown).to_have_text(re.compile(r"^\d+ s left$"))
            assert 0 < int(countdown.inner_text().split()[0]) <= 120
            expect(countdown).to_have_css("font-variant-numeric", "tabular-nums")
        ids = {name: browser_id(page) for name, page in students.items()}

        ann, pia, eve = students["Ann"], students["Pia"], students["Eve"]
        ann.locator(f".st-key-cm_answer_{number} input").fill("0,25")
        # force: a person's click lands wherever the button is, enabled or not (Playwright would wait for the old
        # page's disabled button to be enabled, which it became only after the box was committed by that click)
        ann.locator(f".st-key-cm_send_{number} button").click(force=True)  # ONE click
        pia.locator(f".st-key-cm_answer_{number} input").tap()
        pia.locator(f".st-key-cm_answer_{number} input").fill("0.3")
        pia.locator(f".st-key-cm_send_{number} button").tap(force=True)  # ONE tap
        eve.locator(f".st-key-cm_answer_{number} input").fill(".2")
        eve.locator(f".st-key-cm_answer_{number} input").press("Enter")  # Enter
        for name, typed in (("Ann", "0.25"), ("Pia", "0.3"), ("Eve", "0.2")):
            assert recorded(store, code, ids[name], number) == typed, name
            students[name].get_by_text(f"Received: your answer {typed}.").wait_for()
    finally:
        room.close()


def test_a_closed_class_keeps_its_export_after_a_reload_and_in_a_new_tab(browser, served):
    base, _store = served
    room = Room(browser, base)
    try:
        teacher_browser = room.person(**LAPTOP)
        teacher, code = start(room, teacher_browser)
        ann = room.open(room.person(**LAPTOP), f"/classmode?class={code}")
        join(ann, code, "Ann")
        in_class(ann, code)
        teacher.goto(f"{base}/?step=3")  # the walkthrough: its questions
        teacher.locator(".st-key-cm_ask button").click()
        radio = ann.locator("[class*=st-key-cm_answer_] [role=radiogroup] label")
        radio.first.wait_for()
        radio.first.click()
        ann.locator("[class*=st-key-cm_send_] button").click()
        ann.get_by_text("Received: your answer").wait_for()
        teacher.goto(f"{base}/classmode")
        teacher.locator(".st-key-cm_close_sure label").click()
        close = teacher.get_by_role("button", name="Close the class").first
        expect(close).to_be_enabled()  # once the checkbox's run is drawn
        close.click()
        teacher.get_by_text(f"Class {code} is closed").wait_for()
        for page in (teacher, room.open(teacher_browser, "/classmode")):  # a reload, and a new tab
            if page is teacher:
                page.reload()
            page.get_by_text(f"Class {code} is closed").wait_for()
            with page.expect_download() as download:
                page.locator(".st-key-cm_csv_closed").get_by_role("button", name="Download the class's answers").click()
            exported = download.value.path().read_text()
            assert ",Ann," in exported and "no answer" not in exported
    finally:
        room.close()


# JS: whether the page itself scrolls sideways (a table wider than the screen, not scrolled in its own box)
PAGE_SCROLLS_SIDEWAYS = """() => { const main = document.querySelector('[data-testid=stMain]');
  return main.scrollWidth > main.clientWidth + 1 }"""
# JS: every scrolling box in ``box`` scrolled to show row ``row`` of ``n``
SCROLL_TO_ROW = """(box, [row, n]) => { for (const el of [box, ...box.querySelectorAll('*')])
  if (el.scrollHeight > el.clientHeight + 1 && getComputedStyle(el).overflowY !== 'visible')
    el.scrollTop = el.scrollHeight * (row - 1) / n - el.clientHeight / 2; }"""
# JS: the numbers a question's box ``key`` shows (its table's cells after the row's label, in order)
NUMBERS_SHOWN = """key => [...document.querySelectorAll(`.st-key-${key} td:not(:first-child)`)]
  .map(td => td.textContent.trim())"""


SIXTY_FOUR = " ".join(("the cat sat on the mat and the dog lay by the door " * 5).split()[:64])  # MAX_TOKENS
PROJECTOR_1024 = {"viewport": {"width": 1024, "height": 768}}


@pytest.mark.parametrize(("sentence", "screen"), [("The cat sat on the mat", PROJECTOR),
                                                   (SIXTY_FOUR, PROJECTOR_1024)], ids=["6 tokens", "64 tokens"])
def test_a_question_shows_the_numbers_it_asks_about_on_a_laptop_a_phone_and_the_projector(browser, served, sentence,
                                                                                          screen):
    """"From row 2 of Z …, compute α" while the students' lesson is hidden and the projector shows the question: each
    screen shows that row of Z with it, as the teacher's lesson shows it (the old pages showed no Z at all). A row of
    64 keys scrolls inside its box, never the page (it was 5,431 px wide on a 1024 px projector, the page with it),
    and its sentence holds every number."""
    base, _store = served
    room = Room(browser, base)
    try:
        teacher, code = start(room, room.person(**screen))
        projector = room.open(room.person(**screen), f"/classmode?projector={code}")
        students = []
        for name, options in (("Ann", LAPTOP), ("Pia", PHONE)):
            page = room.open(room.person(**options), f"/classmode?class={code}")
            join(page, code, name)
            in_class(page, code)
            students.append(page)
        teacher.goto(f"{base}/?step=6&sentence={quote_plus(sentence)}")
        teacher.get_by_text(f"You are teaching class {code}").wait_for()
        n = len(sentence.split())
        choice = teacher.locator(".st-key-cm_pick label").filter(has_text="compute α")
        prompt = choice.inner_text()
        row, label = re.search(r"From row (\d+) of Z \(the query “(.+?)”\)", prompt).groups()
        row = int(row)
        # a table of over 400 cells draws the rows its scrolling box shows: scroll it to the row first
        teacher.locator(".st-key-table-scaled").evaluate(SCROLL_TO_ROW, [row, n])
        cells = teacher.locator(".st-key-table-scaled tbody tr").filter(
            has=teacher.locator("th", has_text=re.compile(f"^{re.escape(label)}$"))).locator("td")
        cells.first.wait_for(state="attached")
        lesson_row = cells.all_inner_texts()
        assert len(lesson_row) == n  # a cell a key
        choice.click()
        expect(choice.locator("input")).to_be_checked()
        teacher.locator(".st-key-cm_ask button").click()
        for page, key in ((students[0], "cm-numbers"), (students[1], "cm-numbers"), (projector, "projector-numbers")):
            box = page.locator(f".st-key-{key}")
            expect(box).to_contain_text(f"Row {row} of Z")
            page.wait_for_function(f"() => ({NUMBERS_SHOWN})('{key}').length === {n}")
            assert page.evaluate(NUMBERS_SHOWN, key) == lesson_row, key
            expect(box).to_be_in_viewport()
            assert page.evaluate(PAGE_SCROLLS_SIDEWAYS) is False, key
            for number in lesson_row:  # the sentence under the table: a phone reads it without scrolling sideways
                expect(box.locator("[data-testid=stCaptionContainer]")).to_contain_text(number)
    finally:
        room.close()
