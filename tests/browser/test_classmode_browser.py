"""Class mode in Debian's Chromium against `streamlit run` (issue 24): a teacher at projector size and
three students, one on a phone, each in a browser context of their own. They join with the code,
follow the teacher's sentence, answer; the teacher's tally counts them; after the reveal each student
sees whether they were right."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import TIMEOUT_MS
from tests.browser.server import nginx_in_front, streamlit_server
from tests.browser.test_replicas_browser import replica_of
from tests.browser.test_walkthrough_browser import type_sentence
from tests.postgres import throwaway_postgres

pytestmark = pytest.mark.browser

# JS: the students counted in the teacher's tally table (its "students" column), once it is drawn
TALLY = """() => { const rows = [...document.querySelectorAll('.st-key-table-cm-tally-table tbody tr')];
  return rows.length ? rows.reduce((n, r) => n + Number(r.children[1].innerText), 0) : null }"""


def open_in(browser, contexts: list, url: str, **options):
    """A new person's page: a browser context of their own (kept in ``contexts`` to close), at ``url``."""
    context = browser.new_context(**options)
    contexts.append(context)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url)
    return page


def test_a_teacher_and_three_students(browser, base_url, artifacts):
    contexts: list = []

    def open_(path: str, **options):
        return open_in(browser, contexts, base_url + path, **options)

    try:
        teacher = open_("/classmode", viewport={"width": 1920, "height": 1080})
        teacher.locator(".st-key-cm_start button").click()
        code = teacher.locator(".class-code").inner_text(timeout=TIMEOUT_MS)
        assert re.fullmatch(r"[2-9A-HJKMNP-Z]{6}", code)
        teacher.wait_for_function("() => location.search.includes('teach=')")
        expect(teacher.locator("[data-testid=stCode]").first).to_contain_text(f"{base_url}/classmode?class={code}")
        phone = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
        sockets: list = []  # the first student's websockets: its page's, and one for each lesson frame it opened
        watched = browser.new_context(viewport={"width": 1280, "height": 800})
        contexts.append(watched)
        students = [watched.new_page()]
        students[0].set_default_timeout(TIMEOUT_MS)
        students[0].on("websocket", lambda ws: sockets.append(ws))
        students[0].goto(f"{base_url}/classmode?class={code}")
        students.append(open_(f"/classmode?class={code}", viewport={"width": 1280, "height": 800}))
        students.append(open_(f"/classmode?class={code}", **phone))
        hostile = "**x** <img src=x>"
        nick = students[2].locator(".st-key-cm_nick input")
        nick.fill(hostile)
        nick.press("Enter")
        for page in students:
            page.get_by_text("Your teacher's lesson").wait_for()

        type_sentence(teacher, "the cat sat on the mat")  # the class follows the teacher's sentence …
        for page in students:
            page.get_by_text("Sentence: “the cat sat on the mat”").wait_for()
        teacher.get_by_role("link", name="Multi-head attention").click()  # … and the page the teacher opens,
        teacher.wait_for_function("() => location.pathname.endsWith('/multihead')")
        teacher.locator(".st-key-cm_back").wait_for()
        for page in students:  # shown in each student's frame at the teacher's link
            lesson = page.frame_locator(".st-key-cm-lesson iframe")
            lesson.get_by_role("heading", name="Multi-head attention").wait_for()
            expect(lesson.locator(".st-key-table-heads-0 thead")).to_contain_text("mat")
            assert "sentence=the+cat+sat+on+the+mat" in page.locator(".st-key-cm-lesson iframe").get_attribute("src")
        students[2].screenshot(path=artifacts / "class-phone-following.png")
        # the page polls every 2 s, redrawing the frame's element: the frame is not opened again by a poll
        polls: list = []
        sockets[0].on("framesent", lambda data: polls.append(data))
        frames_opened = len(sockets)
        deadline = time.monotonic() + TIMEOUT_MS / 1000
        while len(polls) < 3:  # three polls sent (a state to reach, not a time to wait)
            assert time.monotonic() < deadline, "the student's page stopped polling"
            students[0].wait_for_timeout(100)
        # the page's, then a frame for each lesson: the walkthrough, with the new sentence, multi-head attention
        assert len(sockets) == frames_opened == 4
        teacher.locator(".st-key-cm_back button").first.click()  # and back to the class

        teacher.locator(".st-key-cm_ask button").click()
        for k, page in enumerate(students):
            radio = page.locator(".st-key-cm_answer_1 [role=radiogroup] label")
            expect(radio.first).to_be_visible(timeout=TIMEOUT_MS)
            radio.nth(k % radio.count()).click()
            page.locator(".st-key-cm_send_1 button").click()
            page.get_by_text("You can change it until your teacher reveals the answer").wait_for()
        teacher.wait_for_function(f"() => ({TALLY})() === 3")
        teacher.screenshot(path=artifacts / "class-teacher.png")

        teacher.locator(".st-key-cm_reveal button").click()
        teacher.get_by_text(re.compile(r"Right: \d of 3")).wait_for()
        for page in students:
            page.get_by_text(re.compile(r"Right: you said|You said .*; the answer is")).first.wait_for()
        students[2].get_by_text("Question 1", exact=True).scroll_into_view_if_needed()
        students[2].screenshot(path=artifacts / "class-phone.png")
        for page in (teacher, *students):
            assert page.locator("[data-testid=stMain] img[src='x']").count() == 0
            assert page.locator("[data-testid='stException']").count() == 0
    finally:
        for context in contexts:
            context.close()


def test_a_class_over_two_replicas_sharing_postgresql_survives_a_replica(browser, artifacts):
    """Students on both replicas behind deploy/'s nginx, one PostgreSQL: the teacher counts every answer;
    a replica is killed mid-question: no answer is lost, and its students come back on the other
    replica as the same students, still following."""
    with throwaway_postgres() as url, streamlit_server(env={"ATTENTION_LAB_DATABASE_URL": url}) as a, \
            streamlit_server(env={"ATTENTION_LAB_DATABASE_URL": url}) as b, nginx_in_front([a, b]) as front:
        servers = {a.removeprefix("http://"): a, b.removeprefix("http://"): b}
        contexts: list = []

        def open_(path: str):
            return open_in(browser, contexts, front + path, viewport={"width": 1280, "height": 900})

        try:
            teacher = open_("/classmode")
            teacher.locator(".st-key-cm_start button").click()
            code = teacher.locator(".class-code").inner_text(timeout=TIMEOUT_MS)
            students = []
            while len({home for _, home in students}) < 2 and len(students) < 20:  # on both replicas
                page = open_(f"/classmode?class={code}")
                page.get_by_text("Your teacher's lesson").wait_for()
                students.append((page, replica_of(page, front)))
            assert {home for _, home in students} == set(servers)
            teacher.locator(".st-key-cm_ask button").click()
            # the teacher's page first (a lost press and a student's stalled poll fail apart)
            teacher.get_by_text("Question 1:", exact=True).wait_for()
            for page, _ in students:
                page.locator(".st-key-cm_answer_1 [role=radiogroup] label").first.click()
                page.locator(".st-key-cm_send_1 button").click()
                page.get_by_text("You can change it until your teacher reveals the answer").wait_for()
            teacher.wait_for_function(f"() => ({TALLY})() === {len(students)}")

            victim_page, home = next((p, h) for p, h in students if h != replica_of(teacher, front))
            servers[home].process.kill()
            servers[home].process.wait(timeout=10)
            status = victim_page.locator("[data-testid=stStatusWidget]")
            status.wait_for()
            expect(status).to_be_hidden()  # reconnected through nginx to the other replica
            assert replica_of(victim_page, front) != home
            victim_page.get_by_text("Your answer:").wait_for()  # the same student: its answer is there
            teacher.locator(".st-key-cm_reveal button").click()
            teacher.get_by_text(re.compile(rf"Right: \d+ of {len(students)}")).wait_for()  # no answer lost
            victim_page.get_by_text(re.compile(r"Right: you said|You said .*; the answer is")).first.wait_for()
        finally:
            for context in contexts:
                context.close()
