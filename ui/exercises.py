"""Predict, then reveal: the exercise panel and the session's score."""

from __future__ import annotations

import streamlit as st

from attention import AttentionTrace
from ui import components as ui
from viz.exercises import make_questions
from viz.labels import markdown_text

_LOG = "_exercise_log"  # question key -> first answer right?


def exercise_panel(trace: AttentionTrace, *, prefix: str = "ex") -> None:
    """Questions about ``trace``; feedback at once; the first answer to each question counts."""
    log: dict[str, bool] = st.session_state.setdefault(_LOG, {})
    # lazy: closed, no question is built or drawn (new questions for every sentence cost a rerun ~0.1 s)
    with ui.lazy_expander("Predict first: check yourself before you read the steps", key=f"{prefix}-panel",
                          icon=":material/quiz:") as panel:
        if panel.open:
            _questions(trace, prefix, log)


def _questions(trace: AttentionTrace, prefix: str, log: dict[str, bool]) -> None:
    """The questions, each with its feedback once answered, and the score."""
    st.caption("The questions come from your sentence and seed, so every link gives its own set. "
               "Answer first; the explanation uses the numbers on this page.")
    for number, question in enumerate(make_questions(trace), start=1):
        st.markdown(f"**{number}. {markdown_text(question.prompt)}**")
        key = f"{prefix}-{question.key}"
        if question.options:
            response = st.radio(question.prompt, question.options, index=None, key=key,
                                label_visibility="collapsed",
                                format_func=markdown_text, horizontal=True)
        else:
            response = st.number_input(question.prompt, min_value=0.0, max_value=1.0, value=None, step=0.01,
                                       format="%.2f", key=key, label_visibility="collapsed",
                                       placeholder="a number from 0 to 1")
        if response is None:
            continue
        right = question.is_correct(response)
        log.setdefault(question.key, right)
        if right:
            st.success("Right. " + markdown_text(question.explanation), icon=":material/check:")
        else:
            st.error("Not quite. " + markdown_text(question.explanation), icon=":material/close:")
    answered = len(log)
    st.metric("Your score this session", f"{sum(log.values())} / {answered}" if answered else "–",
              help="The first answer to each question counts.")
