"""A student cannot change a class by crafting requests (issue 24).

The hostile student speaks Streamlit's websocket protocol itself (bench/streamlit_client.py), so it can
send what no page would: it learns the widget ids of a teacher's buttons from a class of its own (they
are the same in every session), then, from a student's page of another class, presses them, reruns the
teacher's live fragment, and puts forged keys, the class code and lesson settings in the query string.
The other class is unchanged; the same presses from its own teacher's page did change its own class,
so the ids were right and the server acted on them where it should.
"""

from __future__ import annotations

import asyncio

import pytest

from bench.streamlit_client import Answer, Learner, trigger
from classmode.store import Store, Teacher
from tests.browser.server import streamlit_server
from tests.test_streamlit_client import in_a_thread

pytestmark = pytest.mark.browser  # a real server: run with the browser tests

TEACHER_BUTTONS = ("cm_ask", "cm_reveal", "cm_close", "cm_close_answers")


async def attack(base: str, own: Teacher, victim: Teacher) -> tuple[dict[str, str], list[Answer]]:
    teacher = Learner(base, f"/classmode?teach={own.secret}")
    opened = await teacher.open()
    ids = opened.widgets()
    asked = await teacher.rerun(f"teach={own.secret}", [trigger(ids["cm_ask"])])  # its own class: a question
    ids |= asked.widgets()  # the reveal button, drawn by the live fragment
    live = (asked.fragments() or opened.fragments())[0]
    await teacher.close()

    student = Learner(base, f"/classmode?class={victim.code}")
    answers = [await student.open()]
    code = f"class={victim.code}"
    for query in (code, f"{code}&teach={victim.code}", f"{code}&teach={'A' * 32}", f"teach={victim.code}",
                  f"{code}&sentence=evil&seed=7", f"{code}&teach={own.secret[:-2]}xx",
                  f"{code}&projector={victim.code}"):
        for key in TEACHER_BUTTONS:
            answers.append(await student.rerun(query, [trigger(ids[key])]))
        # the teacher's live fragment, in this session: Streamlit ignores a fragment the session does not
        # hold, without an answer; the next rerun's answer shows the request was handled before it
        await student.send(student.rerun_message(query, fragment_id=live))
        answers.append(await student.rerun(query))
    await student.close()
    # a student's session on a lesson page, with the class code in its link: it publishes nothing
    lesson = Learner(base, f"/multihead?class={victim.code}&heads=4")
    answers.append(await lesson.open())
    await lesson.close()
    return ids, answers


def test_a_students_crafted_requests_change_nothing(tmp_path):
    with streamlit_server(env={"ATTENTION_LAB_DATA": str(tmp_path)}) as base:
        db = Store(f"sqlite:///{tmp_path / 'classes.sqlite3'}")
        question = {"prompt": "Which key?", "options": ["a", "b"], "answer": "a", "also": [], "explanation": "",
                    "key": "own-q", "step": 1, "shown": None}  # as a lesson stores it: keyed, with its step and numbers
        own = db.create_class({"page": "", "query": {}, "questions": [question]})  # the attacker's own: the ids
        victim = db.create_class({"page": "scaling", "query": {"dk_demo": "64"}})
        db.open_question(victim.secret, {"prompt": "Which key?", "options": ["a", "b"], "answer": "a",
                                         "explanation": ""})
        before = db.teacher_view(victim.secret)
        ids, answers = in_a_thread(asyncio.run, attack(base, own, victim))
        assert set(TEACHER_BUTTONS) <= set(ids)
        assert db.teacher_view(victim.secret) == before  # lesson, question, reveal, open: all as they were
        assert db.teacher_view(own.secret).question_no == 1  # the press from its own teacher's page counted
        assert not any(a.exception for a in answers)
        assert db.answers(victim.secret) == []
