"""Predict, then reveal: questions asked where the numbers on screen let a learner reason them out, and the
session's score."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

from attention import AttentionTrace
from ui import i18n as i18n_ui
from ui.classmode import OPEN_STEP, QUESTIONS, teaching
from viz.classmode import question_record
from viz.exercises import Question, questions_for_step
from viz.i18n import ENGLISH, N_, listed, nt, sentences, speaking, t
from viz.labels import markdown_text

_LOG = "_exercise_log"  # question key -> first answer right?
_CHECKED = "_exercise_checked"  # a question's widget key -> the answer last checked (None: checked with none given)
STEP_NAMES = {4: N_("step 4 (Q, K and V)"), 7: N_("step 7 (α)"), 8: N_("step 8 (the output)")}  # English: t()


def offer_to_class(build: Callable[[], Sequence[Question]], open_step: int | None) -> None:
    """The questions this page's numbers answer (``build`` makes them), for a teacher to ask the class (ui.classmode
    reads them), and the step the page has open (None: all steps on one page), whose questions the teacher's list
    opens on. Only a teacher's page offers them: built in English, as the class stores them, and in every other
    language of the catalogs, so that each student reads a question in their own (``viz.classmode.in_language``)."""
    if teaching() is None:
        st.session_state.pop(QUESTIONS, None)
        st.session_state[OPEN_STEP] = open_step
        return
    with speaking(ENGLISH):
        stored = build()
    built = {}
    for lang in i18n_ui.OFFERED:  # the languages a student may read
        if lang != ENGLISH:
            with speaking(lang):
                built[lang] = {q.key: q for q in build()}
    st.session_state[QUESTIONS] = [question_record(q, {lang: by_key[q.key] for lang, by_key in built.items()
                                                       if q.key in by_key}) for q in stored]
    st.session_state[OPEN_STEP] = open_step


def step_questions(trace: AttentionTrace, step: int, *, prefix: str = "ex") -> None:
    """At the end of a walkthrough step: the questions its numbers let a learner answer before the next steps
    show the answer (viz.exercises). Nothing when the step has none."""
    questions = questions_for_step(trace, step)
    if questions:
        reveals = sorted({q.reveals for q in questions})
        where = listed([t(STEP_NAMES[r]) if r in STEP_NAMES else t("step {step}", step=r) for r in reveals])
        question_box(questions, prefix=prefix, key=f"{prefix}-step-{step}",
                     title=nt("Predict from the numbers above, before {steps} shows the answer",
                              "Predict from the numbers above, before {steps} show the answer", len(reveals),
                              steps=where))


def question_box(questions: Sequence[Question], *, prefix: str, key: str, title: str) -> None:
    """Questions in a box; each answer is checked with its own button (or Enter), and the first answer checked
    to each question counts. No box without a question."""
    if not questions:
        return
    log: dict[str, bool] = st.session_state.setdefault(_LOG, {})
    with st.container(border=True, key=key):
        st.markdown(f"**{title}**")
        for number, question in enumerate(questions, start=1):
            _question(question, number, prefix, log)
        answered = len(log)
        st.metric(t("Your score this session"), f"{sum(log.values())} / {answered}" if answered else "–",
                  help=t("The first answer you check to each question counts."))


def _question(question: Question, number: int, prefix: str, log: dict[str, bool]) -> None:
    st.markdown(f"{number}. {markdown_text(question.prompt)}")
    key = f"{prefix}-{question.key}"
    # A form: choosing an option (a click, or a keyboard's first arrow key, which chooses the next option) sends
    # nothing; "Check" or Enter does. The radio graded its first change at once: a keyboard user's first arrow key
    # counted the option it landed on as their answer (issue 44).
    checks = st.session_state.get(_CHECKED, {})
    checked = checks.get(key)
    if checked is not None and key not in st.session_state:  # the step was closed: its widget was forgotten
        st.session_state[key] = checked  # the answer the feedback below is about, shown again (the truth audit)
    with st.form(f"{key}-form", border=False, enter_to_submit=True):
        if question.options:  # by place, not by text: the text changes with the language, the place does not
            st.radio(question.prompt, range(len(question.options)), index=None, key=key, label_visibility="collapsed",
                     format_func=lambda k: markdown_text(question.options[k]), horizontal=True)
        else:
            st.number_input(question.prompt, min_value=0.0, max_value=1.0, value=None, step=0.01, format="%.2f",
                            key=key, label_visibility="collapsed", placeholder=t("a number from 0 to 1"))
        st.form_submit_button(t("Check"), key=f"{key}-check", on_click=_check, args=(question, key, log),
                              icon=":material/task_alt:")
    if checked is None:
        if key in checks:  # checked with no answer given
            st.caption(t("Choose an answer first.") if question.options else t("Type a number from 0 to 1 first."))
        return
    if question.is_correct(_response(question, checked)):
        st.success(sentences(t("Right."), markdown_text(question.explanation)), icon=":material/check:")
    else:
        st.error(sentences(t("Not quite."), markdown_text(question.explanation)), icon=":material/close:")


def _check(question: Question, key: str, log: dict[str, bool]) -> None:
    """A question's "Check" (its button, or Enter in its form): the answer given now is graded; the first one checked
    counts towards the score."""
    given = st.session_state.get(key)
    st.session_state.setdefault(_CHECKED, {})[key] = given
    if given is not None:
        log.setdefault(question.key, question.is_correct(_response(question, given)))


def _response(question: Question, given: object) -> object:
    """An answer as the question judges it: a chosen option's text (the radio holds its place), or the number."""
    if question.options:
        return question.options[given] if isinstance(given, int) and 0 <= given < len(question.options) else None
    return given
