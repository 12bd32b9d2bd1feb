"""Issue 43 on "A real model" and "Writing with a key/value cache": heads switched off belong to their model, a page
of layers a model lacks is named in the link's warning, a table of layers names its layers, a menu whose labels
change never hands back a label as its value, and writing fewer tokens after more reuses what was written.
Each test failed on the code before its fix (say which, in its docstring)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from attention import tokenize
from attention.pretrained import MODELS
from attention.pretrained.gallery import GALLERY
from tests.menus import browser_menus
from tests.table_reading import readable, shown_table, view_panels
from tests.test_pages import APP, TIMEOUT, assert_no_exception
from tests.written import tooltip_texts
from ui import background
from viz.labels import token_labels

REAL_MODEL, GENERATE, WALKTHROUGH = "lessons/real_model.py", "lessons/generate.py", "lessons/walkthrough.py"
LABELS = {name: info.title for name, info in MODELS.items()}
SENTENCE = "This forum is awesome"


def open_page(page: str, **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    return at.switch_page(page).run()


def warnings(at: AppTest) -> str:
    return " ".join(readable(w.value) for w in at.warning)


def notes(at: AppTest) -> str:
    return " ".join(readable(e.value) for e in [*at.info, *at.warning])


# ---- item 12: heads switched off belong to the model they were switched off in -----------------------------------

def test_heads_switched_off_in_minilm_are_not_switched_off_in_smollm2(minilm, smollm2):
    """Before: MiniLM's L2 H9 stayed off in SmolLM2 (an unrelated head), whose next-token table was then computed
    without its own L2 H9, and the link held rm_off=L2 H9. Now SmolLM2 shows what it shows with every head on, and
    MiniLM gets its heads back when the learner returns to it."""
    at = open_page(REAL_MODEL)
    at.multiselect(key="rm_off").set_value(["L2 H9"]).run()
    assert_no_exception(at)
    assert "rm-off-change" in view_panels(at) and at.query_params["rm_off"] in ("L2 H9", ["L2 H9"])
    at.radio(key="rm_model").set_value("smollm2").run()
    assert_no_exception(at)
    assert at.multiselect(key="rm_off").value == []
    assert "rm_off" not in at.query_params
    assert "rm-off-next" not in view_panels(at)  # the before/after table is drawn only with heads off
    fresh = open_page(REAL_MODEL, rm_model=LABELS["smollm2"])  # SmolLM2 with every head on
    assert view_panels(at) == view_panels(fresh)  # every table and chart, numbers and labels
    assert dict(at.query_params) == dict(fresh.query_params)
    at.radio(key="rm_model").set_value("minilm").run()
    assert_no_exception(at)
    assert at.multiselect(key="rm_off").value == ["L2 H9"]  # MiniLM's own, back
    assert at.query_params["rm_off"] in ("L2 H9", ["L2 H9"]) and "rm-off-change" in view_panels(at)


# ---- item 15: a table of layers names its layers ------------------------------------------------------------------

def test_the_heads_off_table_and_a_later_page_of_layers_name_each_cells_layer_and_head(minilm, smollm2):
    """Before: the heads-off table starts at the first layer switched off, and its tooltips read `layer “5” (4) ·
    head 3` (a row label that is not its place was written as a token); a later page of SmolLM2's layers as well."""
    at = open_page(REAL_MODEL, rm_off=["L2 H9", "L4 H1"])
    panel = view_panels(at)["rm-off-change"]
    layers = range(2, 7)  # from the first layer switched off (2) to MiniLM's last (6)
    for r, row in enumerate(tooltip_texts([panel])[0]):
        for c, lines in enumerate(row):
            assert lines[0]["text"] == f"layer {layers[r]} · head {c + 1}"
    at = open_page(REAL_MODEL, rm_model=LABELS["smollm2"], rm_layers="2")  # layers 7–12
    panel = view_panels(at)["rm-model-view"]
    heads = tooltip_texts([panel])[0]
    assert len(heads) == 6
    for r, row in enumerate(heads):
        for c, lines in enumerate(row):
            assert lines[0]["text"] == f"layer {7 + r} · head {c + 1}"


# ---- item 22: a page of layers the model lacks ----------------------------------------------------------------------

@pytest.mark.parametrize(("model", "page"), [("minilm", "2"), ("minilm", "4"), ("minilm", "5"), ("smollm2", "6"),
                                             ("smollm2", "0"), ("minilm", "0")])
def test_a_page_of_layers_the_model_lacks_is_named_and_left_out_of_the_link(model, page, minilm, smollm2):
    """Before: /real_model?rm_layers=4 on MiniLM (6 layers, one page) said nothing and kept rm_layers=4 in the link
    while the page showed layers 1–6. Values beyond any model's pages were refused already."""
    at = open_page(REAL_MODEL, rm_model=LABELS[model], rm_layers=page)
    assert_no_exception(at)
    assert "could not be used" in warnings(at) and f"“rm_layers={page}” was ignored" in warnings(at)
    if model == "minilm" and page != "0":  # within 1–5 (SmolLM2's pages), but past MiniLM's one
        assert (f"“rm_layers={page}” was ignored: {MODELS['minilm'].title} has 6 layers, on 1 page of the every-head "
                "view. The first page is shown.") in warnings(at)
    assert "rm_layers" not in at.query_params
    assert view_panels(at)["rm-model-view"]["rows"] == [str(k) for k in range(1, 7)]  # the first page: layers 1–6


def test_a_page_of_layers_smollm2_has_is_used():
    at = open_page(REAL_MODEL, rm_model=LABELS["smollm2"], rm_layers="5")
    assert "rm_layers" not in warnings(at)
    assert view_panels(at)["rm-model-view"]["rows"] == [str(k) for k in range(25, 31)]
    assert at.query_params["rm_layers"] == "5"


def test_smollm2s_page_of_layers_is_not_carried_to_minilm(minilm, smollm2):
    """Before: SmolLM2's layers 19–24 (page 4), then MiniLM: its one page was shown, the link kept rm_layers=4, and a
    click on MiniLM's layer 1 opened layer 19, which it lacks."""
    at = open_page(REAL_MODEL, rm_model=LABELS["smollm2"], rm_layers="4")
    at.radio(key="rm_model").set_value("minilm").run()
    assert_no_exception(at)
    assert "rm_layers" not in at.query_params
    assert at.session_state["rm_layers"] == 0


# ---- item 23: a menu whose labels change never hands back a label -----------------------------------------------

def test_show_me_then_the_induction_demo_with_one_querys_output_open(smollm2):
    """The crash: SmolLM2 at step 9 (one query's output), every "Show me", then "Induction demo": write_link raised
    ValueError: invalid literal for int(): '1 · The'. The query menu kept its place (query 1) while its label
    changed with the sentence, so Streamlit sent the browser no new label; the browser sent "1 · The" back, and a
    run read it against other labels as the value itself. (AppTest writes labels afresh; ``browser_menus`` sends
    what the browser holds.)"""
    with browser_menus() as held:
        at = open_page(REAL_MODEL, rm_model=LABELS["smollm2"])
        at.selectbox(key="rm_step").set_value(9).run()
        for k, entry in enumerate(GALLERY):
            if entry.model == "smollm2":
                at.button(key=f"rm_gallery_{k}").click().run()
                assert_no_exception(at)
        at.button(key="rm_induction").click().run()
        assert_no_exception(at)
        menu = at.selectbox(key="rm-query")
        assert at.session_state["rm-query"] == 0 and held[menu.id] == menu.options[0]  # the browser's label is today's
        assert at.query_params.get("rm-query") is None  # query 1, the default


def test_a_value_no_link_can_carry_is_left_out_of_the_link_not_a_crash():
    """The link's writer is the last guard: a session value that is not one of its setting's (a menu's label held
    as the query, with the menu not drawn) was passed to int() and failed every run of the page."""
    at = open_page(WALKTHROUGH)  # step 1: the query menu is not drawn
    at.session_state["query"] = "3 · sat"
    at.run()
    assert_no_exception(at)
    assert "query" not in at.query_params


SENTENCES = ["The cat sat on the mat", "This forum is awesome", "The the the", "a", "The violet tractor",
             "Thé 😀 data", "This is it"]


@settings(max_examples=8)
@given(st.lists(st.one_of(st.tuples(st.just("sentence"), st.sampled_from(SENTENCES)),
                          st.tuples(st.just("query"), st.integers(0, 7)),
                          st.tuples(st.just("step"), st.sampled_from([1, 7, 8, 8]))), min_size=2, max_size=8))
def test_a_query_menu_holds_a_query_whatever_the_sentences_and_steps_in_between(actions):
    """The walkthrough's query menu (its labels are the sentence's tokens) through any sequence of new sentences,
    picked queries and other steps, with the browser holding labels as Streamlit's frontend does: the session holds a
    position (one the sentence has while the menu is drawn), the link a position, never a label, and the browser
    the label the menu shows for the session's position."""
    with browser_menus() as held:
        at = open_page(WALKTHROUGH, step="8")
        for kind, value in actions:
            if kind == "sentence":
                at.text_input(key="sentence").set_value(value).run()
            elif kind == "step":
                at.selectbox(key="step").set_value(value).run()
            elif [m for m in at.selectbox if m.key == "query"]:
                menu = at.selectbox(key="query")
                menu.set_value(value % len(menu.options)).run()
            assert_no_exception(at)
            n = len(tokenize(at.text_input(key="sentence").value))
            query = at.session_state["query"] if "query" in at.session_state else 0
            assert isinstance(query, int)  # a position, never a menu's label
            link = at.query_params.get("query")
            assert link is None or (link.isdigit() and int(link) >= 2)  # query 1 is the default, left out
            drawn = [m for m in at.selectbox if m.key == "query"]
            if drawn:
                assert 0 <= query < n and held[drawn[0].id] == drawn[0].options[query]


# ---- item 13: writing fewer tokens after more -----------------------------------------------------------------------

def same_generation(mine, theirs) -> None:
    """Two generations hold the same numbers, to the bit, but for the times."""
    for field in mine._fields:
        if field == "steps":
            assert len(mine.steps) == len(theirs.steps)
            for a, b in zip(mine.steps, theirs.steps, strict=True):
                for part in a._fields:
                    np.testing.assert_array_equal(getattr(a, part), getattr(b, part), err_msg=part)
        elif not field.startswith("seconds"):
            np.testing.assert_array_equal(getattr(mine, field), getattr(theirs, field), err_msg=field)
    assert len(mine.seconds_cached) == len(mine.seconds_recomputed) == len(mine.written)


def test_the_first_tokens_of_a_longer_text_are_what_writing_fewer_computes(smollm2):
    """Greedy writing reads nothing written after a step: 5 tokens are the first 5 of 8, to the bit (the times aside:
    they were measured in the longer run); a text that stopped at an end-of-text token holds every shorter one."""
    for prompt, more, fewer in ((SENTENCE, 8, 5), ("a b a b a", 3, 1)):
        longer, short = smollm2.generate(prompt, more), smollm2.generate(prompt, fewer)
        first = longer.first(fewer)
        same_generation(first, short)
        assert first.weights_difference == short.weights_difference
        assert len(first.seconds_cached) == len(first.seconds_recomputed) == len(first.written) == fewer


def test_writing_more_goes_on_from_a_shorter_text_and_computes_what_writing_it_all_does(smollm2):
    """Issue 46: 13 tokens after 8 were all written again. Writing goes on from the shorter text, its cache, steps and
    checks kept: the same numbers as writing every token from the start, to the bit; the kept tokens' times are the
    ones measured in the shorter run."""
    for prompt, fewer, more in ((SENTENCE, 2, 5), ("a b a b a", 1, 3)):
        short = smollm2.generate(prompt, fewer)
        going_on = smollm2.generate(prompt, more, continuing=short)
        same_generation(going_on, smollm2.generate(prompt, more))
        assert going_on.seconds_cached[:fewer] == short.seconds_cached
        assert going_on.seconds_recomputed[:fewer] == short.seconds_recomputed
    short = smollm2.generate(SENTENCE, 2)
    for prompt, count in ((SENTENCE + " too", 4), (SENTENCE, 2), (SENTENCE, 1)):  # another prompt, not more tokens
        with pytest.raises(ValueError, match="goes on only from fewer tokens"):
            smollm2.generate(prompt, count, continuing=short)


def test_the_page_writes_on_from_the_text_it_has(smollm2, monkeypatch):
    """The lesson's job for more tokens after a prompt it has written goes on from that text (its first tokens' times
    are the shorter run's), and its progress bar says so; one stopped by an end-of-text token is the answer at once."""
    from ui.models import generation_job, writing_text

    prompt = "the writing goes on"
    for count in range(1, 21):
        background._jobs.pop(("generate", prompt, count), None)
    job = generation_job(prompt, 2)
    short = job.future.result()
    assert job.about == 0
    assert writing_text(job, 2) == "Writing 2 tokens, and checking each against a pass over the whole sequence"
    job = generation_job(prompt, 4)
    longer = job.future.result()
    same_generation(longer, smollm2.generate(prompt, 4))
    assert longer.seconds_cached[:2] == short.seconds_cached  # kept, not measured again
    assert job.about == 2
    assert writing_text(job, 4) == ("Writing 2 more tokens (2 of the 4 written already), and checking each against "
                                    "a pass over the whole sequence")
    stop = longer.written[-1]  # had writing stopped at the fourth token, a fifth and a sixth are not written
    monkeypatch.setattr(smollm2, "end_of_text", {stop})
    job = generation_job(prompt, 6)
    assert job.finished and job.future.result() is longer


def test_a_writing_asked_for_while_another_runs_goes_on_from_what_that_one_wrote(smollm2):
    """The truth audit: a learner who asked for 4 tokens while 2 were being written saw "2 more … (2 of the 4 written
    already)" for a job that wrote all 4. The job chooses the text it goes on from when the worker takes it up, and
    says so then."""
    from ui.models import generation_job

    prompt = "one job waits for another"
    for count in range(1, 21):
        background._jobs.pop(("generate", prompt, count), None)
    first, second = generation_job(prompt, 2), generation_job(prompt, 4)  # the second waits for the one worker
    short, longer = first.future.result(), second.future.result()
    assert second.about == 2 and longer.seconds_cached[:2] == short.seconds_cached


def test_a_writing_asked_for_while_a_longer_one_runs_is_that_ones_first_tokens(smollm2, monkeypatch):
    """A learner who asked for 4 tokens, then for 2 while the 4 were being written: the 2 waited for the one worker,
    then were written all again. They are the 4's first 2 when the worker takes them up, and nothing is written."""
    from ui.models import generation_job

    prompt = "a short one waits for a long one"
    for count in range(1, 21):
        background._jobs.pop(("generate", prompt, count), None)
    writings, generate = [], smollm2.generate
    monkeypatch.setattr(smollm2, "generate", lambda prompt, count, *a, **k: writings.append(count) or
                        generate(prompt, count, *a, **k))
    longer, shorter = generation_job(prompt, 4), generation_job(prompt, 2)  # the second waits for the one worker
    four, two = longer.future.result(), shorter.future.result()
    assert writings == [4]  # the 2 not written again
    assert two.ids == four.first(2).ids and two.written == four.written[:2] and not shorter.about

def test_a_stopped_text_holds_every_shorter_request(smollm2, monkeypatch):
    stop = smollm2.generate(SENTENCE, 3).written[1]  # the second token written: writing stops there
    monkeypatch.setattr(smollm2, "end_of_text", {stop})
    longer = smollm2.generate(SENTENCE, 8)
    assert len(longer.written) == 2
    assert longer.first(5).ids == smollm2.generate(SENTENCE, 5).ids == longer.ids
    assert longer.first(1).written == longer.written[:1] and not longer.first(1).steps


def test_writing_five_after_eight_reuses_the_eight_and_says_nothing_unasked(smollm2):
    """Before: 5 tokens after 8 on the same prompt were all written again (seconds), and a box said
    `“gen_step=7 · reads “␣find” (position 11” no longer fits …` (the step menu's label as its value, a key's name,
    unbalanced quotes), though the learner had asked for no step: the menu had followed the last one."""
    for count in (5, 8):
        background._jobs.pop(("generate", SENTENCE, count), None)
    with browser_menus():
        at = open_page(GENERATE)
        assert len(shown_table(at, "gen-written")) == 8
        at.slider(key="gen_count").set_value(5)
        at.button(key="gen_write").click()
        at.run()
        assert_no_exception(at)
    assert ("generate", SENTENCE, 5) not in background._jobs  # nothing written anew
    five = smollm2.generate(SENTENCE, 5)
    shown = shown_table(at, "gen-written")
    assert list(shown["written"]) == token_labels(five.tokens)[five.prompt:]
    assert [float(p) for p in shown["p"]] == [round(p, 3) for p in five.probabilities]
    assert "no longer fits" not in notes(at) and "gen_step" not in notes(at)
    assert at.selectbox(key="gen_step").value == 4 and at.query_params["gen_step"] == "4"  # the last step, followed


def test_a_step_the_learner_picked_that_a_shorter_text_lacks_is_named_in_the_learners_words(smollm2):
    with browser_menus():
        at = open_page(GENERATE)
        at.selectbox(key="gen_step").set_value(6).run()
        at.slider(key="gen_count").set_value(5)
        at.button(key="gen_write").click()
        at.run()
        assert_no_exception(at)
    said = notes(at)
    assert "Generation step 6 no longer fits: this text has cached steps 1–4. Generation step 4 is shown instead." \
        in said
    assert "gen_step" not in said and said.count("“") == said.count("”")
    at.selectbox(key="gen_step").set_value(2).run()
    at.slider(key="gen_count").set_value(8)
    at.button(key="gen_write").click()
    at.run()
    assert at.selectbox(key="gen_step").value == 2  # a step the longer text has keeps its number


def test_a_models_page_of_layers_comes_back_with_it(minilm, smollm2):
    """The second audit of issue 43: docs/decisions.md said that switching from SmolLM2's page 4 to MiniLM loses
    nothing asked for, but back on SmolLM2 the page showed layers 1–6 again. The page of layers is the model's,
    as its heads switched off are."""
    at = open_page(REAL_MODEL, rm_model=LABELS["smollm2"], rm_layers="4")  # layers 19–24
    assert at.segmented_control(key="rm_layers").value == 3
    at.radio(key="rm_model").set_value("minilm").run()
    assert_no_exception(at)
    assert "rm_layers" not in at.query_params  # MiniLM has one page
    at.radio(key="rm_model").set_value("smollm2").run()
    assert_no_exception(at)
    assert at.segmented_control(key="rm_layers").value == 3 and at.query_params["rm_layers"] in ("4", ["4"])
