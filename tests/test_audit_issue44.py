"""Audit of issue 44's second part (/work/shared/TRUTH_AUDIT.md): the breaking inputs found for what a student, a
teacher or a learner reads that it added: the class's result on each student's device, a student's extra time and
the screen reader's "The numbers are updated …". Each test fails on main at b9848af."""

from __future__ import annotations

import re
import time
from fractions import Fraction

import pytest

import ui.arrival as arrival
from attention.tokens import tokenize
from tests.test_classmode_pages import (
    ANN,
    BOB,
    PAGE,
    answer,
    assert_no_exception,
    browser,
    join,
    on,
    start_class,
    stay,
    texts,
)
from tests.test_classmode_pages import database as database  # the pages' fixture: one SQLite file
from ui import class_watch
from viz import classmode as V
from viz.arithmetic import text as shown_text

OPTIONS = {"key": "x-most", "prompt": "Which key?", "options": ["a", "b", "c"], "answer": "a", "also": [],
           "explanation": "", "low": None, "high": None}
ALPHA = {"prompt": "α?", "options": [], "answer": 0.4125, "low": 0.41, "high": 0.415, "explanation": ""}


# ---- 1. the class's result on a student's device --------------------------------------------------------------

@pytest.mark.parametrize("right, answered", [(1, 201), (1, 500), (199, 200), (499, 500)])
def test_a_share_strictly_between_none_and_all_is_never_written_0_or_100_percent(right, answered):
    """"1 of 201 (0 %) right" says nobody was right; "199 of 200 (100 %) right" says everyone was (a class holds
    500). Written as a whole percent, a share strictly between 0 and 1 needs "< 1 %" / "> 99 %" (or a decimal)."""
    answers = ["a"] * right + ["b"] * (answered - right)
    said = V.class_result_text(OPTIONS, answers, answered)
    share = re.search(rf"{right} of {answered} \(([^)]*) %\) right", said).group(1)
    assert share not in ("0", "100"), said


@pytest.mark.parametrize("right, answered", [(1, 8), (5, 8), (1, 40)])
def test_a_half_percent_share_is_rounded_as_the_apps_arithmetic_rounds(right, answered):
    """viz/arithmetic.py rounds half away from zero everywhere on screen; the class's share used Python's format,
    half to even: "1 of 8 (12 %)" and "5 of 8 (62 %)", where the app's own rule writes 13 and 63."""
    answers = ["a"] * right + ["b"] * (answered - right)
    said = V.class_result_text(OPTIONS, answers, answered)
    assert f"({shown_text(100 * right / answered, 0)} %) right" in said, said


@pytest.mark.parametrize("typed", [["0.123456", "0.2"], ["0,4156", "0.41"], ["0.123456", "0.123457", "0.5"]])
def test_the_median_written_lies_between_the_lowest_and_the_highest_guess_written(typed):
    """The answer box takes up to six decimals (parse_number), the median is written with two or three: guesses
    of 0.123456 read "Guesses from 0.123456 to 0.123456, median 0.123", a median below the lowest guess."""
    answers = [V.parse_number(t) for t in typed]
    assert all(a is not None and V.in_range(ALPHA, a) for a in answers)  # what the student's form sends
    said = V.class_result_text(ALPHA, answers, 3)
    low, high, median = re.search(r"Guesses from (\S+) to (\S+), median (\S+)\.", said).groups()
    assert Fraction(low) <= Fraction(median) <= Fraction(high), said


@pytest.mark.parametrize("typed", [["0.123456"], ["0.4", "0,40", "0.4"], ["1", "1.0"]])
def test_guesses_all_the_same_are_said_once(typed):
    """Every guess the same read "Guesses from 0.33 to 0.33, median 0.33": one number said thrice as a range."""
    answers = [V.parse_number(t) for t in typed]
    said = V.class_result_text(ALPHA, answers, 5)
    assert "Guesses from" not in said and "median" not in said, said
    value = re.search(r"(?:The guess|Every guess): (\S+)\.$", said).group(1)
    assert Fraction(value) == Fraction(answers[0]), said
    assert ("Every guess" in said) == (len(answers) > 1), said


# ---- 2. extra time -------------------------------------------------------------------------------------------

def test_the_teachers_list_tells_two_students_of_one_nickname_apart(database):
    """"A student (nickname and the time they joined, which tells two "Sam"s apart)": two students who scan the QR
    code in the same second, both "Sam" (or both without a nickname), are one label twice in the list."""
    _teacher, secret, code = start_class()
    now = time.time()
    for who, at in (("s1", now), ("s2", now + 0.3), ("s3", now + 0.5), ("s4", now + 0.6)):
        database.join(code, who, "Sam" if who in ("s1", "s2") else "", "ip", now=at)
    labels = [V.student_label(s, k) for k, s in enumerate(database.roster(secret), start=1)]  # the roster's numbers
    assert len(set(labels)) == len(labels), labels


def _ask_with_a_timer(database, secret):
    database.open_question(secret, OPTIONS)
    database.set_timer(secret, 30, now=time.time() - 40)  # the class's timer ended 10 s ago


def test_the_projector_does_not_say_answers_closed_while_a_student_may_still_answer(database):
    """Ann has 60 s more; the class's 30 s ended 10 s ago. The projector said "0 of 2 students answered · answers
    closed." while Ann's answer was still taken, and then "1 of 2 … · answers closed"."""
    _teacher, secret, code = start_class()
    join(ANN, code, "Ann"), join(BOB, code, "Bob")
    _ask_with_a_timer(database, secret)
    database.give_time(secret, ANN, 60)
    number = database.teacher_view(secret).question_no
    projector = browser("p" * 32, PAGE, None, projector=code)
    assert_no_exception(projector)
    said = texts(projector)
    database.answer(code, ANN, number, "a")  # taken: the answers are not closed
    assert "answers closed" not in said, said


def test_the_desk_is_woken_when_the_last_students_time_ends(database, monkeypatch):
    """The desk's countdown runs to the last student's end, its status says "answers close when the timer ends"
    until then. Its watch (ui/class_watch.py) knows no extra time: it is woken at the class's end, not at the last
    student's, so the desk keeps saying the answers are open past it, until its 15 s safety run."""
    teacher, secret, code = start_class()
    join(ANN, code, "Ann"), join(BOB, code, "Bob")
    _ask_with_a_timer(database, secret)
    database.give_time(secret, ANN, 60)
    watched = []
    monkeypatch.setattr(class_watch, "watch", lambda store, code, kind, seen, extra=0.0: watched.append(
        (kind, seen, extra)))
    teacher = teacher.run()
    assert "answers close when the timer ends" in texts(teacher)
    kind, seen, extra = next(w for w in watched if w[0] == "teacher")
    page = class_watch._Page(kind, seen, None, extra=extra)
    last_end = database.teacher_view(secret).ends
    pulse = database.pulses([code])[code]
    assert class_watch.due(page, class_watch.SEES[kind](pulse, last_end + 0.5, page), time.monotonic())


def test_a_refused_answer_is_not_shown_again_when_the_teacher_gives_time_back(database):
    """Ann's extra time is taken back while her form is open; her answer is refused ("The time is up") and her
    page says the time is up. The teacher gives her time again: her form comes back with the old refusal under
    it, "The time is up for this question.", while her time is not up."""
    _teacher, secret, code = start_class()
    ann, _bob = join(ANN, code, "Ann"), join(BOB, code, "Bob")
    _ask_with_a_timer(database, secret)
    database.give_time(secret, ANN, 60)
    ann = ann.run()
    radio = next(r for r in ann.radio if r.key.startswith("cm_answer_"))
    database.give_time(secret, ANN, 0)  # taken back while she chooses
    ann = answer(ann, "a")
    assert "The time is up for this question" in texts(ann)
    database.give_time(secret, ANN, 120)
    ann = ann.run()
    assert any(r.key == radio.key for r in ann.radio)  # her form is back
    assert not any("time is up" in w.value.lower() for w in ann.warning), [w.value for w in ann.warning]


# ---- 3. "The numbers are updated …" ----------------------------------------------------------------------------

@pytest.fixture()
def said(monkeypatch):
    """Every run's announcement (ui/arrival.py's ``announcement``, as ``draw`` calls it)."""
    out: list[str] = []
    original = arrival.announcement

    def recorded(*args, **kwargs):
        out.append(original(*args, **kwargs))
        return out[-1]
    monkeypatch.setattr(arrival, "announcement", recorded)
    return out


def _walkthrough():
    from streamlit.testing.v1 import AppTest

    from tests.test_pages import APP, TIMEOUT
    return AppTest.from_file(APP, default_timeout=TIMEOUT).switch_page("lessons/walkthrough.py").run()


def test_all_steps_on_one_page_changes_no_number_and_is_not_announced_as_one(said):
    at = _walkthrough()
    at.toggle(key="all_steps").set_value(True).run()
    assert_no_exception(at)
    assert not said[-1].startswith("The numbers are updated"), said[-1]


def test_a_space_at_the_end_of_the_sentence_changes_no_token_and_is_not_announced(said):
    at = _walkthrough()
    sentence = at.session_state["sentence"]
    assert tokenize(sentence + " ") == tokenize(sentence)  # the same tokens: the same numbers
    at.sidebar.text_input(key="sentence").input(sentence + " ").run()
    assert not said[-1].startswith("The numbers are updated"), said[-1]


def test_the_sentence_announced_is_the_one_the_lesson_shows(said):
    """A sentence of 70 tokens is not shown (the lesson shows the last one that worked, ui/settings.py's SHOWN);
    a new seed then announced "The numbers are updated for “word word …”", the sentence the lesson could not show."""
    at = _walkthrough()
    shown = at.session_state["sentence"]
    at.sidebar.text_input(key="sentence").input("word " * 70).run()
    at.sidebar.number_input(key="seed").set_value(7).run()
    assert said[-1] == f"The numbers are updated for “{shown}”.", said[-1]


def test_a_paused_follower_is_not_told_numbers_it_does_not_see_were_updated(database, said):
    """"Eyes up front": the student's page shows no lesson; the teacher's new d_k still reached it as "The numbers
    are updated for “…”."."""
    teacher, _secret, code = start_class()
    teacher = on(teacher, "lessons/walkthrough.py")
    ann = stay(join(ANN, code))
    teacher = teacher.sidebar.segmented_control(key="cm_mode").set_value("pause").run()
    ann = stay(ann.run())
    assert "Eyes up front" in texts(ann)
    teacher.slider(key="d_k").set_value(7).run()
    mark = len(said)
    ann = stay(ann.run())
    assert "Eyes up front" in texts(ann)
    assert ann.session_state["d_k"] == 7  # the teacher's setting reached the student's session
    assert not any(s.startswith("The numbers are updated") for s in said[mark:]), said[mark:]


def test_a_follower_whose_teacher_turns_presenter_mode_on_is_not_told_the_numbers_changed(database, said):
    teacher, _secret, code = start_class()
    teacher = on(teacher, "lessons/walkthrough.py")
    ann = stay(join(ANN, code))
    teacher.sidebar.toggle(key="present").set_value(True).run()
    mark = len(said)
    ann = stay(ann.run())
    assert ann.session_state["present"] is True  # the student's page is in presenter mode too
    assert not any(s.startswith("The numbers are updated") for s in said[mark:]), said[mark:]


def test_smollm2s_seed_changes_no_number_of_the_sentence_and_is_not_announced_as_one(said):
    """On the real model's page with SmolLM2 the seed only picks the induction demo's words (a button's help):
    every table and chart of the sentence stays as it was, and the new seed was told as "The numbers are updated
    for “This forum is awesome”."."""
    from tests.driving import open_app
    from tests.table_reading import view_panels
    from ui.links import MODEL_LABELS

    at = open_app("real_model", rm_model=MODEL_LABELS["smollm2"])
    before = view_panels(at)
    at.sidebar.number_input(key="seed").set_value(7).run()
    assert_no_exception(at)
    assert view_panels(at) == before  # not one number changed
    assert not said[-1].startswith("The numbers are updated"), said[-1]
