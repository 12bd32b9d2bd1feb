"""Predict, then reveal: questions asked where the numbers on screen let a learner reason them out, and the
session's score."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from attention import AttentionTrace
from ui.classmode import OPEN_STEP, QUESTIONS
from viz.classmode import question_record
from viz.exercises import Question, questions_for_step
from viz.labels import markdown_text

_LOG = "_exercise_log"  # question key -> first answer right?
STEP_NAMES = {4: "step 4 (Q, K and V)", 7: "step 7 (α)", 8: "step 8 (the output)"}


def offer_to_class(questions: Sequence[Question], open_step: int | None) -> None:
    """The questions this page's numbers answer, for a teacher to ask the class (ui.classmode reads them), and the
    step the page has open (None: all steps on one page), whose questions the teacher's list opens on."""
    st.session_state[QUESTIONS] = [question_record(q) for q in questions]
    st.session_state[OPEN_STEP] = open_step


def step_questions(trace: AttentionTrace, step: int, *, prefix: str = "ex") -> None:
    """At the end of a walkthrough step: the questions its numbers let a learner answer before the next steps
    show the answer (viz.exercises). Nothing when the step has none."""
    questions = questions_for_step(trace, step)
    if questions:
        reveals = sorted({q.reveals for q in questions})
        where = " and ".join(STEP_NAMES.get(r, f"step {r}") for r in reveals)
        question_box(questions, prefix=prefix, key=f"{prefix}-step-{step}",
                     title=f"Predict from the numbers above, before {where} shows the answer")


def question_box(questions: Sequence[Question], *, prefix: str, key: str, title: str) -> None:
    """Questions in a box; feedback at once; the first answer to each question counts. No box without a question."""
    if not questions:
        return
    log: dict[str, bool] = st.session_state.setdefault(_LOG, {})
    with st.container(border=True, key=key):
        st.markdown(f"**{title}**")
        for number, question in enumerate(questions, start=1):
            _question(question, number, prefix, log)
        answered = len(log)
        st.metric("Your score this session", f"{sum(log.values())} / {answered}" if answered else "–",
                  help="The first answer to each question counts.")


def _question(question: Question, number: int, prefix: str, log: dict[str, bool]) -> None:
    st.markdown(f"{number}. {markdown_text(question.prompt)}")
    key = f"{prefix}-{question.key}"
    if question.options:
        response = st.radio(question.prompt, question.options, index=None, key=key, label_visibility="collapsed",
                            format_func=markdown_text, horizontal=True)
    else:
        response = st.number_input(question.prompt, min_value=0.0, max_value=1.0, value=None, step=0.01,
                                   format="%.2f", key=key, label_visibility="collapsed",
                                   placeholder="a number from 0 to 1")
    if response is None:
        return
    right = question.is_correct(response)
    log.setdefault(question.key, right)
    if right:
        st.success("Right. " + markdown_text(question.explanation), icon=":material/check:")
    else:
        st.error("Not quite. " + markdown_text(question.explanation), icon=":material/close:")
