"""The truth audit of session 11 (issue 46: a following student's sidebar), its breaking inputs as tests.

The follower's sidebar line said "its sentence, seed, d_model, positional encodings and causal mask are your
teacher's", and the phone's line "(your teacher's)"; the audit found a Spanish student following an English teacher on
another sentence, a real model's "Show me" changing a follower's sentence under that line, and the line on the run
that finds the class ended. Each test failed on the code it audited."""

from __future__ import annotations

import numpy as np
import pytest

from classmode.store import Store
from tests.test_classmode_pages import ANN, BOB, browser, join, on, start_class, stay, texts
from tests.test_pages import assert_no_exception
from viz import figures as F

LINE = "Your page follows your teacher's lesson"


@pytest.fixture(autouse=True)
def database(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_DATA", str(tmp_path))
    return Store(f"sqlite:///{tmp_path / 'classes.sqlite3'}")


def sidebar_says(at, line: str) -> bool:
    return any(c.value.startswith(line) for c in at.sidebar.caption)


def phone_line(at) -> str:
    return " ".join(c.value for c in at.caption if c.value.startswith(("Sentence:", "Frase:")))


@pytest.mark.parametrize("lang", ["es", "fr", "zh"])
def test_a_student_reading_another_language_follows_the_teachers_default_sentence(database, lang):
    """The teacher's class is on the app's default sentence, which the class's link leaves out; a student whose
    browser reads another language followed their own language's example before (ui.classmode.apply popped the
    sentence, and a bare visit's default is the reader's example), so the teacher's questions were about other
    numbers than that student's page showed."""
    teacher, _secret, code = start_class()
    teacher = on(teacher, "lessons/walkthrough.py")
    ann = browser(ANN, **{"class": code, "lang": lang})
    ann.text_input(key="cm_nick").input("Ann")
    ann = stay(ann.button(key="cm_join").click().run())
    assert_no_exception(ann)
    assert ann.session_state["_shared"].sentence == teacher.session_state["_shared"].sentence == \
        "This forum is awesome"


def test_a_lessons_own_button_may_change_a_followers_sentence_and_the_page_then_does_not_call_it_the_teachers(
        database):
    """The class follows MiniLM's page; Ann presses a gallery head's "Show me" (a lesson's own control, hers to use):
    her sentence becomes its example until the teacher's next change, as the sidebar's line says ("each change of
    it sets your sentence … to your teacher's"); the phone's line no longer calls that sentence her teacher's."""
    teacher, _secret, code = start_class(sentence="the cat sat on the mat")
    teacher = on(teacher, "lessons/real_model.py")
    ann = stay(join(ANN, code, "Ann"))
    assert ann.session_state["_page"] == "real_model" and sidebar_says(ann, LINE)
    assert "(your teacher's)" in phone_line(ann)
    show_me = next(b.key for b in ann.button if b.key and b.key.startswith("rm_gallery_"))
    ann = stay(ann.button(key=show_me).click().run())
    assert_no_exception(ann)
    mine = ann.session_state["_shared"].sentence
    assert mine != "the cat sat on the mat"
    assert "each change of it sets your sentence" in " ".join(c.value for c in ann.sidebar.caption)
    assert mine in phone_line(ann) and "(your teacher's)" not in phone_line(ann)
    assert f"Sentence: “{mine}”" in [c.value for c in ann.sidebar.caption]  # where "Show me" says it puts it
    teacher.sidebar.text_input(key="sentence").input("the dog ran")  # the teacher's next change
    teacher = teacher.run()
    ann = stay(ann.run())
    assert ann.session_state["_shared"].sentence == "the dog ran" and "(your teacher's)" in phone_line(ann)


def test_the_run_that_finds_the_class_ended_draws_the_controls_not_the_followers_line(database):
    _teacher, secret, code = start_class()
    bob = stay(join(BOB, code, "Bob"))
    assert sidebar_says(bob, LINE) and not bob.sidebar.text_input
    database.close(secret)
    bob = bob.run()
    assert "Your teacher has ended this class" in texts(bob)
    assert not sidebar_says(bob, LINE) and bob.sidebar.text_input(key="sentence").value


def test_a_chart_argument_of_a_type_the_key_does_not_know_is_built_not_kept():
    class Labels(list):  # a list: kept, by its class's name and its items
        pass

    class Sequence_:
        def __init__(self, items):
            self.items = list(items)

        def __iter__(self):
            return iter(self.items)

        def __len__(self):
            return len(self.items)

        def __getitem__(self, k):
            return self.items[k]

    m = np.array([[0.25, 0.75]])
    labels = Sequence_(["x", "y"])  # hashable by identity
    options = dict(row_labels=["r"], col_labels=labels, title="α", row_title="query", col_title="key")
    before = F.heatmap.cache_info().currsize
    F.heatmap(m, **options)
    labels.items[0] = "changed"  # its content changed after the call: the next chart must say so
    assert F.heatmap(m, **options) == F.heatmap.__wrapped__(m, **options)
    assert F.heatmap.cache_info().currsize == before
    kept = F.heatmap(m, **{**options, "col_labels": Labels(["x", "y"])})
    assert kept is F.heatmap(m, **{**options, "col_labels": Labels(["x", "y"])})


def test_a_teachers_other_tab_goes_on_after_the_class_is_closed_on_the_desk(database):
    """The audit, in passing: a teacher's lesson tab whose class was closed on the desk (another tab) showed only
    "This class is closed." as an error on its next run. The lesson goes on without the class's controls, and the
    desk keeps the closed class's export."""
    from tests.test_classmode_pages import PAGE, TEACHER

    _first, secret, code = start_class()
    held = {"teach": {"secret": secret, "code": code}}
    second = browser(TEACHER, "lessons/walkthrough.py", held)
    assert f"You are teaching class {code}" in texts(second)
    database.close(secret)
    second = second.run()
    assert_no_exception(second)
    assert "You are teaching class" not in texts(second) and second.sidebar.text_input(key="sentence").value
    desk = on(second, PAGE)
    assert_no_exception(desk)
