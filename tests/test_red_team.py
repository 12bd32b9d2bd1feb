"""The red team's findings of issue 26 that a page shows through AppTest (the others, which need a
browser's Markdown and widgets, are in tests/browser/test_red_team_browser.py). Each failed on 0dd9ac2."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.table_reading import readable
from ui.matrix_editor import QUOTED_CHARS, parse_entry

APP = str(Path(__file__).resolve().parent.parent / "app.py")
SMOLLM2 = "SmolLM2 (SmolLM2-135M-Instruct, a Llama decoder)"


def open_with(page: str, **query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    return at.switch_page(page).run()


def warnings(at: AppTest) -> str:
    return " ".join(readable(w.value) for w in at.warning)


@pytest.mark.parametrize(("query", "named", "widget", "default"), [
    ({"rm_layer": "7"}, "“rm_layer=7” could not be used: MiniLM (all-MiniLM-L6-v2, a BERT encoder) has layers 1–6",
     "rm_layer", 1),
    ({"rm_model": SMOLLM2, "rm_head": "10"}, "“rm_head=10” could not be used: SmolLM2", "rm_head", 1),
    ({"rm_step": "9"}, "“rm_step=9” could not be used: MiniLM (all-MiniLM-L6-v2, a BERT encoder)'s head has steps 1–8",
     "rm_step", 5),
])
def test_a_real_models_link_values_it_cannot_use_are_named(query, named, widget, default):
    """0dd9ac2 dropped these without a word: MiniLM has 6 layers and 8 steps, SmolLM2 9 heads."""
    at = open_with("lessons/real_model.py", **query)
    assert not at.exception
    assert named in warnings(at)
    assert at.selectbox(key=widget).value == default


@pytest.mark.parametrize(("query", "named"), [
    ({"lt_run": "true", "lt_steps": "50", "lt_step": "7"}, "“lt_step=7” could not be used: this run saved steps 0, 2"),
    ({"lt_run": "true", "lt_steps": "50", "lt_head": "3"}, "“lt_head=3” could not be used: this run has 1 head"),
])
def test_a_training_runs_link_values_it_cannot_use_are_named(query, named):
    at = open_with("lessons/learn.py", **query)
    assert not at.exception
    assert named in warnings(at)


def test_a_link_that_says_true_in_capitals_trains():
    """lt_run=TRUE passed the link check (a boolean, read case-insensitively) and then trained nothing."""
    at = open_with("lessons/learn.py", lt_run="TRUE", lt_steps="50")
    assert not at.exception
    assert not [b for b in at.button if b.key == "lt_train"]  # trained at once, as lt_run=true does
    assert any("held-out accuracy" in s.value for s in [*at.success, *at.warning, *at.error])


def test_a_refused_cell_is_quoted_briefly():
    entry = "**bold** " + "9" * 10_000
    _, message = parse_entry(entry, "W_Q row 1, column 1")
    assert len(message) < 120 and "**bold** 999" in message and message.count("9") < QUOTED_CHARS
