"""Every state a control can reach is in the link (issue 32): for each lesson, random changes of its controls,
then the link it wrote opened in a fresh session show the same numbers, texts and controls; every control a
page draws is a setting of the link or one the share box names as display-only; and the cases a learner met.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests import driving as D
from tests.table_reading import values_of, view_panels
from ui.links import PAGE_SETTINGS, READER_SETTINGS, SETTINGS, SHARED_SETTINGS

FAST = ["", "multihead", "scaling", "relevance", "parts", "cross"]
# No "explain" phase: it traces every line the app runs, which made one example take minutes
PHASES = [Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink]
ROUND_TRIP = settings(max_examples=15, phases=PHASES, suppress_health_check=[HealthCheck.too_slow,
                                                                             HealthCheck.data_too_large])


def assert_round_trip(at) -> None:
    again = D.reopened(at)
    first, second = D.snapshot(at), D.snapshot(again)
    for box in D.shown_instead(at):  # a box with text the lesson could not show: the link holds what it shows
        first["controls"].pop(box, None), second["controls"].pop(box, None)
    for part in ("controls", "texts", "panels"):
        assert first[part] == second[part], f"the link {dict(at.query_params)} reopened {part} differently"
    assert dict(again.query_params) == dict(at.query_params)  # and writes the same link again


@pytest.mark.parametrize("page", FAST)
@ROUND_TRIP
@given(data=st.data())
def test_a_link_reopens_what_any_changes_of_the_controls_showed(page, data):
    at = D.open_app(page)
    for _ in range(data.draw(st.integers(1, 4), label="actions")):
        at = D.act(at, data)
        assert not at.exception, [e.value for e in at.exception]
    assert_round_trip(at)


@pytest.mark.parametrize("page", ["learn", "real_model", "generate"])
@settings(max_examples=2, phases=PHASES, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_a_link_reopens_the_slow_lessons_too(page, data):
    at = D.open_app(page, **({"lt_steps": "50", "lt_run": "true"} if page == "learn" else
                             {"gen_count": "2"} if page == "generate" else {}))
    for _ in range(data.draw(st.integers(1, 2), label="actions")):
        at = D.act(at, data)
        assert not at.exception, [e.value for e in at.exception]
    assert_round_trip(at)


@pytest.mark.parametrize("page", [*FAST, "phonebook", "learn", "real_model", "generate", "classmode"])
def test_every_control_a_page_draws_is_in_its_link_or_named_as_display_only(page):
    query = {"lt_steps": "50", "lt_run": "true"} if page == "learn" else {"gen_count": "2"} if page == "generate" \
        else {"all_steps": "true"} if page == "" else {}
    at = D.open_app(page, **query)
    owned = {*SHARED_SETTINGS, *PAGE_SETTINGS[page]}
    for key in D.all_widget_keys(at):
        assert key in owned or D.display_only(key), f"{page or 'walkthrough'}: the control {key!r} is neither"


def test_one_head_is_kept_in_the_link():
    """Multi-head with h = 1 wrote no heads into the link and reopened as h = 2."""
    at = D.open_app("multihead")
    at = at.sidebar.selectbox(key="heads").set_value(1).run()
    assert at.query_params["heads"] == "1"
    assert D.reopened(at).sidebar.selectbox(key="heads").value == 1


def test_the_relevance_pages_query_key_and_strength_are_in_the_link():
    """α 0.97 on "forum" reopened as 0.48 on "is": the page's query, key and strength were session-only."""
    at = D.open_app("relevance")
    at.selectbox(key="rel_query").select_index(1)
    at.selectbox(key="rel_target").select_index(0)
    at = at.slider(key="rel_strength").set_value(5.0).run()
    assert {k: at.query_params[k] for k in ("rel_query", "rel_target", "rel_strength")} == \
        {"rel_query": "2", "rel_target": "1", "rel_strength": "5"}
    assert_round_trip(at)


def test_the_chosen_query_stays_in_the_link_on_every_step():
    """The query box is drawn on step 8 only; its choice is in the link on the other steps too."""
    at = D.open_app("", step="8")
    at = at.selectbox(key="query").select_index(2).run()
    at = at.selectbox(key="step").set_value(5).run()
    assert at.query_params["query"] == "3" and at.query_params["step"] == "5"
    again = D.reopened(at)
    again = again.selectbox(key="step").set_value(8).run()
    assert again.selectbox(key="query").value == 2


def test_a_link_with_edits_opens_on_the_step_it_was_made_on():
    """Step 1 with hand edits reopened on step 3: the link's step is the step shown."""
    at = D.open_app("", w="Q1.1:5")
    assert at.selectbox(key="step").value == 1 and at.query_params["w"] == "Q1.1:5.0"  # as the editor writes it
    assert_round_trip(at)


def test_the_phonebooks_edited_rows_are_in_the_link():
    """The phonebook's rows came back as the default book; the link now holds them."""
    book = [["Ann", "123"], ["Jindřich", "555 111"], ["; & =", "9"]]
    at = D.open_app("phonebook", book=json.dumps(book))
    names = values_of(view_panels(at)["pb-lookup"])
    assert [row[0] for row in names] == ["Ann", "Jindřich", "; & ="]
    assert json.loads(at.query_params["book"]) == book
    assert_round_trip(at)


def test_a_sentence_the_lesson_cannot_show_is_not_what_the_link_holds():
    """A box whose text can't be shown: the lesson shows the last sentence that worked, and so does the link
    (it reopened on the default sentence)."""
    at = D.open_app("", sentence="the cat sat")
    at = at.sidebar.text_input(key="sentence").input("").run()
    assert at.query_params["sentence"] == "the cat sat"
    assert_round_trip(at)


def test_a_real_model_switch_keeps_the_step_by_its_name(smollm2):
    """MiniLM's step 5 is the scores; SmolLM2's is RoPE (four [4 × 64] strips): a switch opens the scores."""
    at = D.open_app("real_model", rm_step="5", sentence="This forum is awesome")
    assert at.selectbox(key="rm_step").value == 5  # MiniLM: 5 · Scores
    at = at.radio(key="rm_model").set_value("smollm2").run()
    step = at.selectbox(key="rm_step")
    assert step.value == 6 and "Scores" in step.options[5]
    assert not at.exception


def test_every_setting_is_a_page_setting_once():
    owned = [k for keys in PAGE_SETTINGS.values() for k in keys] + list(SHARED_SETTINGS) + list(READER_SETTINGS)
    assert sorted(owned) == sorted(SETTINGS) and len(owned) == len(set(owned))


def test_multi_heads_questions_come_before_its_numbers():
    """Multi-head's "Predict first" sat below the answers (issue 32): it is now the first thing after the intro,
    and asks about the shapes of the split."""
    at = D.open_app("multihead")
    order = []

    def walk(node):
        proto = getattr(node, "proto", None)
        if getattr(node, "key", None):
            order.append(str(node.key))
        elif proto is not None and hasattr(proto, "body") and isinstance(proto.body, str):
            order.append(proto.body[:40])
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at.main)
    box = next(k for k, name in enumerate(order) if name == "mh-ex-box")
    heads = next(k for k, name in enumerate(order) if name.startswith("view-heads"))
    assert box < heads
    prompts = [m.value for m in at.markdown if m.value.startswith(("1.", "2."))]
    assert "What shape is one head" in prompts[0] and "Concat" in prompts[1]
