"""Class mode in Debian's Chromium against `streamlit run` (issues 24 and 33), as a class uses it: a teacher at a
1280 × 720 projector who reloads, a projector page, students on laptops and a phone (each a browser context of
their own: their own localStorage), a student with two tabs, a prankster typing wrong codes, a friend opening a
copied link. Nothing breaks, nothing false is revealed, no one is thrown out, no answer is lost."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, TIMEOUT_MS
from tests.browser.server import nginx_in_front, streamlit_server
from tests.browser.test_replicas_browser import replica_of
from tests.postgres import throwaway_postgres

pytestmark = pytest.mark.browser

LAPTOP = {"viewport": {"width": 1280, "height": 800}}
PROJECTOR = {"viewport": {"width": 1280, "height": 720}}
# JS: the students counted in the teacher's tally table (its "students" column), once it is drawn
TALLY = """() => { const rows = [...document.querySelectorAll('.st-key-table-cm-tally-table tbody tr')];
  return rows.length ? rows.reduce((n, r) => n + Number(r.children[1].innerText), 0) : null }"""


class Room:
    """The people of a class: each a browser context (and its pages), closed at the end."""

    def __init__(self, browser, base: str):
        self.browser, self.base, self.contexts = browser, base, []

    def person(self, **options):
        context = self.browser.new_context(**options)
        self.contexts.append(context)
        return context

    def open(self, context, path: str):
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(self.base + path)
        return page

    def close(self):
        for context in self.contexts:
            context.close()


def start(room: Room, teacher_context) -> tuple:
    teacher = room.open(teacher_context, "/classmode")
    teacher.locator(".st-key-cm_start button").click()
    teacher.get_by_text(re.compile(r"You are teaching class [2-9A-HJKMNP-Z]{6}")).wait_for()
    code = re.search(r"class ([2-9A-HJKMNP-Z]{6})", teacher.locator(".st-key-cm-teacher-box").inner_text())[1]
    assert "teach=" not in teacher.url  # the key is in the browser, not in the address bar
    return teacher, code


def join(page, code: str, nickname: str = "", *, enter: bool = False) -> None:
    """Join as a student does: the code (from the join link, or typed), a nickname, Enter or the button."""
    box = page.locator(".st-key-cm_code input")
    box.fill(code)
    nick = page.locator(".st-key-cm_nick input")
    nick.fill(nickname)
    if enter:
        nick.press("Enter")
    else:
        page.get_by_role("button", name="Join the class").click()


def in_class(page, code: str) -> None:
    page.locator(".st-key-cm-student-banner").get_by_text(f"Class {code}").first.wait_for()


def answer(page, k: int) -> None:
    radio = page.locator("[class*=st-key-cm_answer_] [role=radiogroup] label")
    expect(radio.first).to_be_visible(timeout=TIMEOUT_MS)
    radio.nth(k % radio.count()).click()
    page.locator("[class*=st-key-cm_send_] button").click()
    page.get_by_text("You can change it until the answers close").wait_for()


def shown_shape(page) -> str:
    """The [n × d] of step 4's Q as the student's own page writes it (its heatmap's title)."""
    return re.search(r"\[(\d+ × \d+)\]", page.locator("[data-panel=q] .alv-figure img").get_attribute("alt") or
                     page.locator("[data-panel=q]").inner_text())[1]


def test_a_class_with_a_phone_a_prankster_two_tabs_and_a_teacher_who_reloads(browser, base_url, artifacts):
    room = Room(browser, base_url)
    try:
        teacher_browser = room.person(**PROJECTOR)
        teacher, code = start(room, teacher_browser)
        projector = room.open(room.person(**PROJECTOR), f"/classmode?projector={code}")
        projector.locator(".class-code").get_by_text(code).wait_for()
        assert "teach" not in projector.content()  # the projected page holds no key
        tree = projector.locator("[data-testid=stMainBlockContainer]").aria_snapshot()
        assert re.search(rf'type the code:"\n\s*- text: {code}\n', tree), tree  # a screen reader reads the code itself
        assert projector.locator(".class-code[aria-label]").count() == 0  # ARIA allows no name on a plain div (4.1.2)

        ann_browser, bob_browser = room.person(**LAPTOP), room.person(**LAPTOP)
        ann = room.open(ann_browser, f"/classmode?class={code}")
        join(ann, code, "Ann")
        phone = room.open(room.person(**PHONE), "/classmode")
        phone.locator(".st-key-cm_code input").wait_for()  # a phone's page: join comes first
        top = {key: phone.locator(f".st-key-{key}").bounding_box()["y"] for key in ("cm_code", "cm_start")}
        assert top["cm_code"] < top["cm_start"]
        join(phone, code, "**x** <img src=x>", enter=True)  # Enter joins
        for page in (ann, phone):
            in_class(page, code)

        # a prankster's thirty wrong codes: only the prankster's browser has to wait
        prankster = room.open(room.person(**LAPTOP), "/classmode")
        for k in range(30):  # each refusal waited for by its own code: a message left on the page by the code before
            join(prankster, f"ZZZZ{k:02d}")  # let two joins go at once, and a busy server counted them as one
            prankster.get_by_text(f"No class has this code. Check it with your teacher. It was read as “ZZZZ{k:02d}”."
                                  ).wait_for()
        join(prankster, "ZZZZ99")
        prankster.get_by_text("Too many wrong codes").wait_for()
        bob = room.open(bob_browser, f"/classmode?class={code}")
        join(bob, code, "Bob")  # a classmate behind the same address joins
        in_class(bob, code)

        # the teacher opens the walkthrough at d_k 8 with the identity preset (a link: a new page load, so the
        # teacher's browser must still know it teaches), on step 4: every student follows in their own page
        teacher.goto(f"{base_url}/?d_k=8&preset=Identity+%28W+%3D+I%29&step=4")
        teacher.get_by_text(f"You are teaching class {code}").wait_for()
        for page in (ann, bob, phone):
            page.wait_for_function("() => location.search.includes('d_k=8')")
            page.locator("[data-panel=q]").first.wait_for()
        ann_tab2 = room.open(ann_browser, "/")  # Ann's second tab: the same student
        in_class(ann_tab2, code)

        # a question from the teacher's page: its own numbers
        teacher.locator(".st-key-cm_pick").wait_for()
        teacher.locator(".st-key-cm_ask button").click()
        for k, page in enumerate((ann, bob, phone)):
            answer(page, k)
        teacher.goto(f"{base_url}/classmode")  # the desk (a reload of the teacher's page, too)
        teacher.get_by_text(f"You are teaching class {code}").wait_for()
        teacher.wait_for_function(f"() => ({TALLY})() === 3")
        assert teacher.get_by_text("3 of 3 students answered").count()  # the desk states the class's size once
        teacher.screenshot(path=artifacts / "class-teacher.png")
        with teacher.expect_download() as download:  # right after the last answer: the export holds it
            teacher.locator(".st-key-cm_csv").get_by_role("button", name="Download the class's answers").click()
        exported = download.value.path().read_text()
        assert exported.count("\n") == 1 + 3 and "Ann" in exported and "Bob" in exported
        teacher.locator(".st-key-cm_reveal button").first.click()
        teacher.get_by_text(re.compile(r"Right: \d of 3")).first.wait_for()
        for page in (ann, bob, phone):
            page.get_by_text(re.compile(r"Right: you said|You said .*; the answer is")).first.wait_for()
        revealed = ann.locator("[data-testid=stAlertContainer]").first.inner_text()
        assert "4 × 8" in revealed  # "Q is 4 × 4" was revealed while the screen showed 4 × 8
        phone.screenshot(path=artifacts / "class-phone.png")
        projector.get_by_text(re.compile(r"Answer: ")).first.wait_for()
        projector.screenshot(path=artifacts / "class-projector.png")

        # a friend opens Ann's copied link: a lesson, not Ann
        friend = room.open(room.person(**LAPTOP), ann.url.removeprefix(base_url))
        friend.locator("[data-panel=q]").first.wait_for()
        assert friend.locator(".st-key-cm-student-banner").count() == 0
        for page in (teacher, projector, ann, bob, phone, friend):
            assert page.locator("[data-testid=stMain] img[src='x']").count() == 0
            assert page.locator("[data-testid='stException']").count() == 0
        teacher.get_by_text("3 of 3 students answered").first.wait_for()  # two tabs of Ann's: one student
    finally:
        room.close()


def test_a_class_over_two_replicas_sharing_postgresql_survives_a_replica(browser, artifacts):
    """Students on both replicas behind deploy/'s nginx, one PostgreSQL: the teacher counts every answer;
    a replica is killed mid-question: no answer is lost, and its students come back on the other replica as the
    same students (their browser keeps who they are), still in the class."""
    with throwaway_postgres() as url, streamlit_server(env={"ATTENTION_LAB_DATABASE_URL": url}) as a, \
            streamlit_server(env={"ATTENTION_LAB_DATABASE_URL": url}) as b, nginx_in_front([a, b]) as front:
        servers = {a.removeprefix("http://"): a, b.removeprefix("http://"): b}
        room = Room(browser, front)
        try:
            teacher, code = start(room, room.person(viewport={"width": 1280, "height": 900}))
            teacher.goto(f"{front}/?step=3")  # the walkthrough: its questions
            teacher.locator(".st-key-cm_ask").wait_for()
            students = []
            while len({home for _, home in students}) < 2 and len(students) < 20:  # on both replicas
                page = room.open(room.person(viewport={"width": 1280, "height": 900}), f"/classmode?class={code}")
                join(page, code)
                in_class(page, code)
                students.append((page, replica_of(page, front)))
            assert {home for _, home in students} == set(servers)
            teacher.locator(".st-key-cm_ask button").click()
            for page, _ in students:
                answer(page, 0)
            teacher.goto(f"{front}/classmode")
            teacher.wait_for_function(f"() => ({TALLY})() === {len(students)}")

            victim_page, home = next((p, h) for p, h in students if h != replica_of(teacher, front))
            servers[home].process.kill()
            servers[home].process.wait(timeout=10)
            # reconnected through nginx to the other replica (no wait for the "connecting" badge: on a fast
            # reconnection it comes and goes before a test could see it)
            assert replica_of(victim_page, front) != home
            expect(victim_page.locator("[data-testid=stStatusWidget]")).to_be_hidden(timeout=TIMEOUT_MS)
            victim_page.get_by_text("Received: your answer").wait_for()  # the same student: its answer is there
            teacher.locator(".st-key-cm_reveal button").first.click()
            teacher.get_by_text(re.compile(rf"Right: \d+ of {len(students)}")).first.wait_for()  # no answer lost
            victim_page.get_by_text(re.compile(r"Right: you said|You said .*; the answer is")).first.wait_for()
        finally:
            room.close()
