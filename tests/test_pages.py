"""The walkthrough page through AppTest, driven by widget keys as a learner would drive it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import attention as A
from tests.table_reading import shown_table, values_of, view_panels
from ui.settings import DEFAULT_SEED, DEFAULT_SENTENCE

TIMEOUT = 60
APP = str(Path(__file__).resolve().parent.parent / "app.py")


def run_app(*, all_steps: bool = True, **widgets) -> AppTest:
    """The app after setting ``widgets`` in order. By default with "All steps on one page" on, so that
    a test can read any step's table; ``all_steps=False`` is the one-step-at-a-time default."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    if all_steps:
        at = set_widget(at, "all_steps", True)
    for key, value in widgets.items():
        at = set_widget(at, key, value)
    return at


def set_widget(at: AppTest, key: str, value) -> AppTest:
    at.get_by_key(key).set_value(value)
    return at.run()


def table(at: AppTest, key: str):
    """The numbers a table shows, parsed back from their on-screen text: "—" (masked) is NaN."""
    return shown_table(at, key).map(shown_number).to_numpy()


def shown_number(text) -> float:
    text = str(text).replace("−", "-")
    return {"—": float("nan"), "-∞": float("-inf")}.get(text) or float(text)


def shown_tokens(at: AppTest) -> list[str]:
    """The token column as a learner reads it (the Markdown rendered)."""
    return list(shown_table(at, "tokens", index=False)["token"])


def assert_no_exception(at: AppTest):
    assert not at.exception, [e.value for e in at.exception]


def assert_healthy(at: AppTest):
    assert_no_exception(at)
    assert len(step_headers(at)) == 8  # all eight steps are on the page


def step_headers(at: AppTest) -> list[str]:
    return [h.value for h in at.subheader if h.value.startswith("Step ")]


def test_default_render_shows_all_steps_with_the_engine_numbers():
    at = run_app()
    assert_healthy(at)
    assert [h.split(" · ")[0] for h in step_headers(at)] == [f"Step {n} of 8" for n in range(1, 9)]
    assert shown_tokens(at) == ["This", "forum", "is", "awesome"]
    trace = A.trace_self_attention(DEFAULT_SENTENCE, d_model=8, d_k=4, seed=DEFAULT_SEED)
    # Every table shows the engine's numbers (to the two decimals shown).
    for key, m in [("x", trace.x), ("w_q", trace.w_q), ("q", trace.q), ("v", trace.v), ("scores", trace.scores),
                   ("scaled", trace.scaled_scores), ("weights", trace.weights), ("output", trace.output)]:
        np.testing.assert_allclose(table(at, key), m, atol=0.005 + 1e-9, err_msg=key)
    assert not at.warning
    for opening in ("A model never sees letters", "Attention gives every token three roles", "The output for a query"):
        assert sum(m.value.startswith(opening) for m in at.markdown) == 1  # each step's text, once
    assert len(at.latex) >= 10  # the formulas of every step, and step 8 written out


def test_changing_the_sentence_changes_tokens_and_query_choices():
    at = run_app(sentence="the cat sat on the mat")
    assert_healthy(at)
    assert shown_tokens(at) == ["the", "cat", "sat", "on", "the", "mat"]
    assert at.selectbox(key="query").options[4] == "5 · the (5)"
    assert table(at, "weights").shape == (6, 6)


def test_changing_the_seed_changes_the_numbers():
    at = run_app()
    before = table(at, "x")
    at = set_widget(at, "seed", 7)
    assert_healthy(at)
    after = table(at, "x")
    np.testing.assert_allclose(after, A.trace_self_attention(DEFAULT_SENTENCE, seed=7).x, atol=0.005 + 1e-9)
    assert not np.allclose(before, after)


def test_new_random_button_picks_another_seed():
    at = run_app()
    at.button(key="new_seed").click().run()
    assert_healthy(at)
    assert at.number_input(key="seed").value != DEFAULT_SEED


def test_changing_dimensions_changes_shapes():
    at = run_app(d_model=5, d_k=3)
    assert_healthy(at)
    assert table(at, "x").shape == (4, 5)
    assert table(at, "w_q").shape == (5, 3)
    assert table(at, "q").shape == (4, 3)
    assert table(at, "output-row").shape == (1, 3)
    assert any("0.577" in latex.value for latex in at.latex)  # 1/√3 in step 6


def test_identity_preset_makes_q_equal_x():
    at = run_app(preset="identity", d_k=8)
    assert_healthy(at)
    np.testing.assert_array_equal(table(at, "w_q"), np.eye(8))
    np.testing.assert_array_equal(table(at, "q"), table(at, "x"))
    assert not at.info  # the d_k ≠ d_model note is only for mismatched sizes
    at = set_widget(at, "d_k", 3)
    assert "keeps the first" in at.info[0].value


def test_positional_encodings_show_e_p_and_x():
    at = run_app(positional=True)
    assert_healthy(at)
    np.testing.assert_allclose(table(at, "p"), A.sinusoidal_positional_encoding(4, 8), atol=0.005 + 1e-9)
    np.testing.assert_allclose(table(at, "x"), table(at, "e") + table(at, "p"), atol=0.011)


def test_choosing_a_query_shows_its_output():
    at = run_app()
    trace = A.trace_self_attention(DEFAULT_SENTENCE, seed=DEFAULT_SEED)
    at = set_widget(at, "query", 2)
    assert_healthy(at)
    np.testing.assert_allclose(table(at, "output-row")[0], trace.output[2], atol=0.005 + 1e-9)
    np.testing.assert_allclose(table(at, "alpha-row")[0], trace.weights[2], atol=0.005 + 1e-9)
    assert any(r"\mathrm{out}_{3}" in latex.value for latex in at.latex)


def test_query_choice_survives_a_shorter_sentence():
    at = run_app(query=3)
    at = set_widget(at, "sentence", "hi there")
    assert_healthy(at)
    assert at.selectbox(key="query").value in (0, 1)


@pytest.mark.parametrize(
    "bad,message",
    [("", "empty"), ("   \t ", "empty"), ("a " * 65, "65 tokens"), ("a " * 500, "500 tokens")],
)
def test_unusable_sentences_explain_and_keep_the_text(bad, message):
    at = run_app(sentence="the cat sat")
    at = set_widget(at, "sentence", bad)
    assert_healthy(at)
    assert message in at.warning[0].value
    assert "the cat sat" in at.warning[0].value  # it says what is shown instead
    assert at.text_input(key="sentence").value == bad  # the learner's text is not lost
    assert shown_tokens(at) == ["the", "cat", "sat"]  # the page keeps working on the last good one


def test_the_sentence_box_holds_at_most_the_longest_usable_sentence():
    """1,000 characters, the tokenizer's limit: longer text could never be shown, and would make a link
    too long to open again. A longer paste is cut to its first 1,000 characters with a message (with
    max_chars the browser refused it whole and kept the old text, issue 26); 1,000 emoji (2,000 UTF-16
    units, which the browser's limit counted) are 1,000 characters and stay whole."""
    at = run_app(all_steps=False)
    assert not at.text_input(key="sentence").max_chars and A.MAX_CHARS == 1000  # 0: no browser limit
    pasted = "the cat sat " * 1000  # 12,000 characters
    at = set_widget(at, "sentence", pasted)
    assert at.text_input(key="sentence").value == pasted[: A.MAX_CHARS]
    assert any("the text had 12,000 characters; the box keeps the first 1,000" in w.value for w in at.warning)
    # 250 tokens can't be shown: the link holds the sentence the lesson shows instead (here the default)
    assert "sentence" not in at.query_params
    at = set_widget(at, "sentence", "😀" * 1000)
    assert at.text_input(key="sentence").value == "😀" * 1000
    assert not any("keeps the first" in w.value for w in at.warning)  # said once, for the paste that was cut


@pytest.mark.parametrize(
    "sentence,tokens",
    [
        ("我喜欢你 👍🏽", ["我", "喜", "欢", "你", "👍🏽"]),
        ("مرحبا بالعالم", ["مرحبا", "بالعالم"]),
        ("$\\frac{}{}$", ["$", "\\", "frac", "{", "}", "{", "}", "$"]),
        ("<script>alert(1)</script>", ["<", "script", ">", "alert", "(", "1", ")", "<", "/", "script", ">"]),
    ],
)
def test_unusual_text_is_shown_literally(sentence, tokens):
    at = run_app(sentence=sentence)
    assert_healthy(at)
    assert not at.warning
    assert shown_tokens(at) == tokens
    # Markdown that shows a token escapes it, so "$", ">" or "[" can't start maths, quotes or links.
    row_sums = next(c.value for c in at.caption if c.value.startswith("Every row of α sums to 1"))
    assert not re.search(r"(?<!\\)[$>\[*]", row_sums), row_sums
    # the table is data for the browser, which writes each cell as text: the tokens as typed
    assert [row[1] for row in values_of(view_panels(at)["tokens"])] == tokens


def test_bad_sentence_in_a_fresh_session_falls_back_to_the_default():
    at = run_app(sentence="")
    assert_healthy(at)
    assert DEFAULT_SENTENCE in at.warning[0].value
    assert shown_tokens(at) == DEFAULT_SENTENCE.split()


# --- one step at a time (the default view) ------------------------------------------------------
def test_the_default_view_draws_only_the_open_step_and_walks_through_all_eight():
    at = run_app(all_steps=False)
    assert_no_exception(at)
    assert step_headers(at) == ["Step 1 of 8 · Tokens"]
    assert [k for k, p in view_panels(at).items() if "figure" in p] == ["tokens"]  # step 1's one chart: nothing
    assert not at.get("image")  # else is built or sent
    trace = A.trace_self_attention(DEFAULT_SENTENCE, d_model=8, d_k=4, seed=DEFAULT_SEED)
    seen = {}
    for step in range(2, 9):
        at = at.button(key="next_step_end").click().run()  # "Next: step …" at the end of each step
        assert_no_exception(at)
        assert [h.split(" · ")[0] for h in step_headers(at)] == [f"Step {step} of 8"]
        keys = set(view_panels(at))
        seen |= {key: table(at, key) for key in ("q", "scores", "weights", "output") if key in keys}
    for key, m in [("q", trace.q), ("scores", trace.scores), ("weights", trace.weights), ("output", trace.output)]:
        np.testing.assert_allclose(seen[key], m, atol=0.005 + 1e-9, err_msg=key)  # each on its own step
    assert at.button(key="next_step").disabled and not at.button(key="prev_step").disabled
    at = at.button(key="prev_step").click().run()
    assert step_headers(at)[0].startswith("Step 7 of 8")


def test_a_link_opens_its_step_and_hand_edits_reach_every_step():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["w"] = "Q1.1:5.0"
    at.query_params["step"] = "3"
    at.run()
    assert_no_exception(at)
    assert step_headers(at)[0].startswith("Step 3 of 8")  # the link's step: the editor
    assert any("hand-edited" in i.value for i in at.info)
    assert at.query_params["w"] == "Q1.1:5.0" and at.query_params["step"] == "3"  # the link stays as it was
    at = set_widget(at, "step", 5)  # the editor is not drawn on step 5, but its edits still count
    preset = A.random_projections(8, 4, DEFAULT_SEED)
    w_q = preset.w_q.copy()
    w_q[0, 0] = 5.0
    edited = A.trace_self_attention(DEFAULT_SENTENCE, seed=DEFAULT_SEED,
                                    projections=A.Projections(w_q, preset.w_k, preset.w_v))
    np.testing.assert_allclose(table(at, "scores"), edited.scores, atol=0.005 + 1e-9)
    assert any("hand-edited" in c.value for c in at.caption)
    at = set_widget(at, "step", 8)
    np.testing.assert_allclose(table(at, "output"), edited.output, atol=0.005 + 1e-9)


def test_all_steps_on_one_page_is_a_setting_and_comes_from_the_link():
    # (that the widgets write the step and this setting into the URL is checked in the browser)
    at = run_app(all_steps=False)
    at = set_widget(at, "all_steps", True)
    charts = [k for k, p in view_panels(at).items() if "figure" in p] + [None] * len(at.get("image"))
    assert len(step_headers(at)) == 8 and len(charts) >= 14  # every chart of every step
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["all_steps"] = "true"
    assert len(step_headers(at.run())) == 8


def test_play_is_offered_on_up_to_32_tokens_and_not_on_33():
    """Issue 43: the README said "Play" was under any head's scores, softmax and output; a lesson takes 64 tokens
    and no player is offered above 32. Counted here by hand: 32 and 33 words, one token each."""
    for words, offered in ((32, True), (33, False)):
        at = run_app(sentence=" ".join(f"w{k}" for k in range(words)))
        assert_no_exception(at)
        assert len(shown_tokens(at)) == words
        plays = sorted(t.key.rsplit("play-", 1)[1] for t in at.toggle if "play-" in (t.key or ""))
        assert plays == (["output", "scores", "softmax"] if offered else []), words


def test_a_64_token_sentence_shows_its_large_tables_as_a_scrolling_grid():
    sentence = " ".join(["*a*", *(f"w{k}" for k in range(61))])  # 64 tokens; "*" must not turn into italics
    at = run_app(all_steps=False, sentence=sentence, step=7)
    assert_no_exception(at)
    assert view_panels(at)["weights"]["scroll"]  # 4,096 cells: the table scrolls in a box of its own
    grid = shown_table(at, "weights")
    engine = A.trace_self_attention(sentence, seed=DEFAULT_SEED)
    assert list(grid.index[:4]) == ["* (1)", "a", "* (3)", "w0"]  # shown as typed, no Markdown escapes
    np.testing.assert_allclose(grid.map(shown_number).to_numpy(), engine.weights, atol=0.005 + 1e-9)


PLURAL_AFTER_ONE = re.compile(r"(?<![\d.,−-])\b1 (?:terms|tokens|keys|queries|rows|columns|values|heads|words)\b")


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("sentence", ["hello", "a b", "x y z"])
def test_short_sentences_read_in_good_grammar_and_ask_only_real_questions(sentence, causal):
    """Issue 43: on a one-token sentence step 8's sum was titled "[1 terms + sum]", step 1's chart "1 tokens", and
    step 7 asked whose value vector gets the largest share with one option to choose. Every text of every step of
    1- to 3-token sentences (Markdown, captions, charts' titles and text alternatives, the questions) has no "1"
    before a plural, and every question offered has two options or more."""
    import xml.etree.ElementTree as ET

    from tests.svg_reading import NS

    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update({"sentence": sentence, "all_steps": "true", "causal": str(causal).lower()})
    at.run()
    assert_healthy(at)
    n = len(sentence.split())
    panels = view_panels(at)
    texts = [m.value for m in (*at.markdown, *at.caption, *at.subheader)]
    for panel in panels.values():
        if "figure" in panel:
            texts.append(panel["figure"]["alt"])
            texts += ["".join(t.itertext()) for t in ET.fromstring(panel["figure"]["svg"]).iter(f"{NS}text")]
    texts += [r.label for r in at.radio] + [o for r in at.radio for o in r.options] + [w.label for w in at.number_input]
    assert not [t for t in texts if PLURAL_AFTER_ONE.search(t)]
    titles = {key: ["".join(t.itertext()) for t in ET.fromstring(panels[key]["figure"]["svg"]).iter(f"{NS}text")
                    if t.get("class") == "title"] for key in ("tokens", "weighted-sum")}
    assert titles["tokens"] == [f"{n} token" + ("s" if n > 1 else "")]
    assert titles["weighted-sum"][0].endswith(f"[{n} term{'s' if n > 1 else ''} + sum]")
    questions = [r for r in at.radio if r.key.startswith("ex-")]
    assert all(len(r.options) >= 2 for r in questions), [(r.key, r.options) for r in questions]
