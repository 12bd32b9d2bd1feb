"""Class mode's pages through AppTest (issue 24): a teacher and students in separate sessions sharing one
SQLite database; who may do what, the follow view, a question from ask to reveal, hostile text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_
from streamlit.testing.v1 import AppTest

from attention import trace_self_attention
from classmode.store import Store
from tests.table_reading import shown_table
from tests.test_pages import APP, TIMEOUT, assert_no_exception
from viz import classmode as V
from viz.exercises import make_questions

PAGE = "lessons/classmode.py"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def database(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_DATA", str(tmp_path))
    return Store(f"sqlite:///{tmp_path / 'classes.sqlite3'}")


def open_page(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    return at.switch_page(PAGE).run()


def start_class(**query) -> tuple[AppTest, str, str]:
    teacher = open_page(**query)
    teacher.button(key="cm_start").click().run()
    assert_no_exception(teacher)
    secret = teacher.query_params["teach"]
    secret = secret[0] if isinstance(secret, list) else secret
    shown = next(h.proto.body for h in teacher.get("html") if "class-code" in h.proto.body)
    return teacher, secret, re.search(r'code">([A-Z0-9]+)<', shown)[1]


def texts(at: AppTest) -> str:
    return " ".join(e.value for kind in ("markdown", "caption", "success", "error", "warning", "info")
                    for e in getattr(at, kind))


def test_a_question_from_ask_to_reveal_with_two_students():
    """The teacher asks the first generated question; two students answer (one right); the tally counts
    them; after the reveal each student is told whether they were right and why."""
    teacher, _, code = start_class()
    ann, bob = open_page(**{"class": code}), open_page(**{"class": code})
    assert "This forum is awesome" in texts(ann)
    teacher.run()
    assert "2 students joined. No question asked yet." in texts(teacher)
    teacher.button(key="cm_ask").click().run()
    question = make_questions(trace_self_attention("This forum is awesome", d_model=8, seed=42))[0]
    wrong = next(o for o in question.options if o != question.answer and o not in question.also)
    for student, choice in ((ann, question.answer), (bob, wrong)):
        student.run()
        assert student.radio(key="cm_answer_1").options == list(question.options)
        assert "hidden while a question is open" in texts(student)
        student.radio(key="cm_answer_1").set_value(choice).run()
        student.button(key="cm_send_1").click().run()
        assert_no_exception(student)
        assert f"Your answer: {choice}" in texts(student)
    teacher.run()
    assert "2 of 2 students answered." in texts(teacher)
    tally = shown_table(teacher, "cm-tally-table")
    assert {o: int(n) for o, n in tally["students"].items()} == {
        o: int(o in (question.answer, wrong)) for o in question.options}
    teacher.button(key="cm_reveal").click().run()
    assert "Right: 1 of 2 (50 %)" in texts(teacher)
    ann.run()
    bob.run()
    assert "Right: you said" in texts(ann)
    assert f"the answer is {question.answer}" in texts(bob)


def frame(at: AppTest) -> str | None:
    """The address of the lesson frame on a student's page (None when there is none)."""
    return next((e.proto.src for e in at.get("iframe")), None)


def test_a_student_follows_the_teachers_page_and_every_setting_of_its_link(database):
    """The class follows the teacher's lesson as its share link holds it: the page and its settings. A
    student's page names it and shows it in a frame opened at that link; it is hidden while a question is
    open; the teacher's key is never part of it; the teacher's sidebar leads back to the class."""
    teacher, secret, code = start_class(sentence="the cat sat on the mat")
    ann = open_page(**{"class": code})
    assert "**Step-by-step walkthrough** · Sentence: “the cat sat on the mat”" in texts(ann)
    assert frame(ann) == "/?sentence=the+cat+sat+on+the+mat&follow=true&embed=true"

    teacher.switch_page("lessons/multihead.py").run()
    teacher.sidebar.selectbox(key="heads").set_value(4).run()
    assert_no_exception(teacher)
    ann.run()
    assert "**Multi-head attention** · Sentence: “the cat sat on the mat”" in texts(ann)
    assert frame(ann) == "/multihead?sentence=the+cat+sat+on+the+mat&heads=4&follow=true&embed=true"
    assert [b.label for b in ann.get("link_button")] == ["Explore this lesson on my own (new tab)"]
    assert ann.get("link_button")[0].proto.url == "/multihead?sentence=the+cat+sat+on+the+mat&heads=4"
    assert secret not in str(database.teacher_view(secret).state)

    teacher.button(key="cm_back").click().run()
    assert teacher.query_params["teach"] in (secret, [secret]) and teacher.button(key="cm_ask")
    teacher.switch_page(PAGE)  # AppTest's next run would go back to the page it last switched to itself
    teacher.button(key="cm_ask").click().run()
    ann.run()
    assert frame(ann) is None and "The lesson is hidden while a question is open" in texts(ann)
    teacher.button(key="cm_reveal").click().run()
    ann.run()
    assert frame(ann) == "/multihead?sentence=the+cat+sat+on+the+mat&heads=4&follow=true&embed=true"


def test_a_closed_class_stops_taking_the_teachers_pages(database):
    teacher, _, code = start_class()
    teacher.button(key="cm_close").click().run()
    teacher.query_params["heads"] = "4"
    teacher.switch_page("lessons/multihead.py").run()
    assert_no_exception(teacher)
    assert not [b for b in teacher.sidebar.button if b.key == "cm_back"]
    assert json.loads(database.version(code).state) == {"page": "", "query": {}}


@settings(max_examples=300, deadline=None)
@given(st_.fixed_dictionaries({}, optional={
    "page": st_.one_of(st_.sampled_from(["", "multihead", "classmode", "../x", "//ev.il", "javascript:x"]), st_.text(),
                       st_.integers(), st_.none()),
    "query": st_.one_of(st_.dictionaries(
        st_.one_of(st_.sampled_from(["sentence", "seed", "teach", "me", "class", "embed", "heads", "w", "rm_off"]),
                   st_.text(max_size=8)),
        st_.one_of(st_.text(max_size=40), st_.integers(), st_.lists(st_.text(max_size=12), max_size=3), st_.none()),
        max_size=6), st_.lists(st_.text()), st_.text()),
}))
def test_a_lesson_frame_opens_only_a_lesson_with_settings_a_shared_link_may_hold(state):
    """Whatever a class's state holds (it is read from the database): the frame's address is a lesson of
    this app on this server, with only settings that pass the link's checks, never a key, an id or a code."""
    from ui.classmode import lesson_url
    from ui.links import PRIVATE, check_link
    from ui.navigation import LESSONS

    url = lesson_url(state, embed=True)
    if url is None:
        assert state.get("page") not in LESSONS or not isinstance(state.get("query"), dict)
        return
    parts = urlsplit(url)
    assert not parts.scheme and not parts.netloc and parts.path.removeprefix("/") in LESSONS
    query = parse_qs(parts.query, keep_blank_values=True)
    assert query.pop("embed") == ["true"] and query.pop("follow") == ["true"]
    settings = {k: v if k in ("rm_off",) else v[-1] for k, v in query.items()}
    assert not check_link(settings) and not set(settings) & (PRIVATE | {"class"})


def test_a_student_link_cannot_act_as_the_teacher():
    _, secret, code = start_class()
    for forged in (code, secret[:-2] + "xx", "A" * 32):
        at = open_page(teach=forged)
        assert_no_exception(at)
        assert "belongs to no class" in texts(at) or "was ignored" in " ".join(w.value for w in at.warning)
        assert not [b for b in at.button if b.key == "cm_ask"]


def test_the_teachers_share_link_leaves_the_teachers_key_out():
    teacher, secret, _ = start_class()
    shared = [c.value for c in teacher.sidebar.code]
    assert shared and not any(secret in value for value in shared)


def test_a_wrong_code_is_named_and_a_hostile_nickname_stays_text(database):
    at = open_page(**{"class": "ZZZZZZ"})
    assert "No class has this code" in texts(at)
    teacher, secret, code = start_class()
    hostile = "=HYPERLINK(\"http://ev.il\") **x** <img src=x>"
    ann = open_page(**{"class": code})
    ann.text_input(key="cm_nick").set_value(hostile).run()
    teacher.button(key="cm_ask").click().run()
    ann.run()
    ann.radio(key="cm_answer_1").set_value(ann.radio(key="cm_answer_1").options[0]).run()
    ann.button(key="cm_send_1").click().run()
    assert_no_exception(ann)
    rows = database.answers(secret)
    assert [name for _, name, _ in rows] == [hostile[:24]]
    csv = V.answers_csv(rows, database.questions(secret))
    assert "\n1,X is [4 × 8]" in csv and ",\"'=HYPERLINK(" in csv  # quoted by CSV, text to a spreadsheet


def test_a_guess_within_0_005_counts_as_right_and_the_spread_hides_the_value_until_the_reveal():
    """ "{right} of {n} are within 0.005": the exercises' own tolerance, on the class's guesses."""
    question = {"prompt": "α?", "options": [], "answer": 0.4125, "explanation": ""}
    guesses = ["0.41", "0.4175", "0.4176", "0.40", "-0.1"]
    assert [V.is_right(question, g) for g in guesses] == [True, True, False, False, False]
    hidden = V.spread_text(question, guesses, revealed=False)
    assert "5 guesses: from −0.10 to 0.42, median 0.41." in hidden.replace("-", "−") and "0.4125" not in hidden
    assert "The true value is **0.41**; 2 of 5 are within 0.005." in V.spread_text(question, guesses, revealed=True)


def test_an_unreachable_database_is_named_and_the_other_lessons_work(monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2")
    at = open_page()
    assert_no_exception(at)
    assert "can't reach its database" in " ".join(e.value for e in at.error)
    at.switch_page("lessons/walkthrough.py").run()
    assert_no_exception(at)


@pytest.mark.parametrize(("key", "value", "ok"), [
    ("class", "K7Q2XM", True), ("class", "k7q2xm", True), ("class", "<script>", False), ("class", "A" * 13, False),
    ("teach", "N" * 32, True), ("teach", "abc", False), ("teach", "x' OR 1=1 --" + "a" * 20, False),
])
def test_a_link_holds_a_class_code_or_a_teachers_key_or_is_refused(key, value, ok):
    from ui.links import check_link

    assert (key not in check_link({key: value})) is ok


def test_presenter_mode_leads_to_class_mode():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["present"] = "true"
    at.run()
    assert_no_exception(at)
    links = [link for link in at.get("page_link") if "Start a class" in link.proto.label]
    assert links and links[0].proto.page.endswith("classmode")


@pytest.mark.parametrize("page", ["lessons/walkthrough.py", "lessons/multihead.py", "lessons/scaling.py"])
def test_in_a_students_frame_a_lessons_intro_is_folded_away(page):
    """The frame opens on what the teacher shows: the intro sits in a closed "About this lesson"; the same
    page outside a frame shows it as it always did."""
    def intro_in_expander(follow: bool) -> tuple[bool, bool]:
        at = AppTest.from_file(APP, default_timeout=TIMEOUT)
        if follow:
            at.query_params["follow"] = "true"
        at.switch_page(page).run()
        assert_no_exception(at)
        folded = [e for e in at.expander if e.label == "About this lesson"]
        intro = (ROOT / "assets" / page.removeprefix("lessons/").removesuffix(".py") / "00_intro.md").read_text()
        first_words = " ".join(intro.split()[:4])
        inside = bool(folded) and any(first_words in " ".join(m.value.split()) for m in folded[0].markdown)
        return inside, bool(folded) and not folded[0].proto.expanded

    assert intro_in_expander(follow=True) == (True, True)
    assert intro_in_expander(follow=False) == (False, False)
