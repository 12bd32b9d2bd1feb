"""The hand editor's parsing: good cells apply, bad cells are refused by name, the last good matrix stays."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.table_reading import readable
from ui.matrix_editor import BOUND, cell_text, edited_cells, matrix_text, parse_edits, parse_entry, paste_block
from viz.exercises import lesson_id, make_questions

CURRENT = np.array([[0.123456, -1.0], [2.5, 0.0]])


def edit(**cells):
    shown = matrix_text(CURRENT)
    edited = shown.copy()
    for rc, text in cells.items():
        r, c = int(rc[1]), int(rc[2])
        edited.iat[r, c] = text
    return shown, edited


def test_cell_text():
    assert [cell_text(x) for x in (0.5, -1.23456789, 0.0, -0.00001, 3.0)] == ["0.5", "-1.2346", "0", "0", "3"]


def test_good_edits_apply_and_unchanged_cells_keep_full_precision():
    shown, edited = edit(c01="7", c10="−0,25")  # a typographic minus and a decimal comma are accepted
    new, errors = parse_edits("W_Q", CURRENT, shown, edited)
    assert errors == []
    np.testing.assert_array_equal(new, [[0.123456, 7.0], [-0.25, 0.0]])  # 0.123456 is not rounded to 0.1235


@pytest.mark.parametrize(
    "text,message",
    [("abc", "“abc” is not a number"), ("", "is empty"), ("nan", "NaN"), ("inf", "infinity"),
     ("-1e9", "beyond the bound")],
)
def test_bad_cells_are_refused_by_name_and_the_last_good_matrix_stays(text, message):
    shown, edited = edit(c11=text, c00="3")  # one good and one bad edit: nothing applies
    new, errors = parse_edits("W_K", CURRENT, shown, edited)
    assert len(errors) == 1 and errors[0].startswith("W_K row 2, column 2") and message in errors[0]
    np.testing.assert_array_equal(new, CURRENT)


def test_the_bound_itself_is_allowed():
    shown, edited = edit(c00=str(BOUND), c01=str(-BOUND))
    new, errors = parse_edits("W_V", CURRENT, shown, edited)
    assert errors == [] and new[0, 0] == BOUND and new[0, 1] == -BOUND


def test_a_cleared_cell_from_the_editor_is_reported():
    shown, edited = edit()
    edited.iat[0, 0] = None  # what st.data_editor returns for a deleted cell
    _, errors = parse_edits("W_Q", CURRENT, shown, edited)
    assert errors == ["W_Q row 1, column 1 is empty."]


# --- edited cells in the link --------------------------------------------------------------------
from attention import Projections, preset_projections, random_projections, trace_self_attention  # noqa: E402, RUF100
from tests.test_pages import assert_no_exception, table  # noqa: E402, RUF100
from ui.links import check_link  # noqa: E402, RUF100
from ui.matrix_editor import NAMES, decode_edits, encode_edits  # noqa: E402, RUF100
from ui.settings import DEFAULT_SEED, DEFAULT_SENTENCE  # noqa: E402, RUF100


def test_encode_decode_round_trip_is_exact():
    preset = random_projections(8, 4, 42)
    matrices = {name: np.array(w) for name, w in zip(NAMES, preset, strict=True)}
    matrices["W_Q"][0, 0] = 5.0
    matrices["W_V"][7, 3] = -0.123456789012
    text = encode_edits(matrices, preset)
    assert text == "Q1.1:5.0;V8.4:-0.123456789012"  # only the changed cells
    cells, errors = decode_edits(text, (8, 4))
    assert errors == [] and cells == [("W_Q", 0, 0, 5.0), ("W_V", 7, 3, -0.123456789012)]


@pytest.mark.parametrize(
    "text,message",
    [("Q9.1:5", "outside the 8 × 4 matrix"), ("K1.1:abc", "is not a number"), ("V1.1:1e9", "beyond the bound"),
     ("Q1.1", "not in the form"), ("<script>", "not in the form")],
)
def test_bad_link_cells_are_named_and_ignored(text, message):
    cells, errors = decode_edits(text, (8, 4))
    assert cells == [] and any(message in e for e in errors)


def test_a_link_with_edited_cells_reproduces_them_on_the_page():
    from streamlit.testing.v1 import AppTest

    from tests.test_pages import APP

    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["w"] = "Q1.1:5.0;K2.3:-0.5"
    at.query_params["all_steps"] = "true"  # to read step 5's and step 8's tables at once
    at.run()
    assert_no_exception(at)
    preset = random_projections(8, 4, DEFAULT_SEED)
    w_q, w_k = preset.w_q.copy(), preset.w_k.copy()
    w_q[0, 0], w_k[1, 2] = 5.0, -0.5
    engine = trace_self_attention(DEFAULT_SENTENCE, seed=DEFAULT_SEED, projections=Projections(w_q, w_k, preset.w_v))
    np.testing.assert_allclose(table(at, "scores"), engine.scores, atol=0.005 + 1e-9)
    np.testing.assert_allclose(table(at, "output"), engine.output, atol=0.005 + 1e-9)
    assert any("hand-edited" in i.value for i in at.info)


def test_a_tiny_usable_number_is_applied_and_travels_in_the_link_exactly():
    # 1e-320 is a (subnormal) finite number within the bound: it must be applied and linked, not lost
    current = np.full((2, 2), 0.5)
    shown = matrix_text(current)
    edited = shown.copy()
    edited.iat[0, 0] = "1e-320"
    new, errors = parse_edits("W_Q", current, shown, edited)
    assert not errors and new[0, 0] == 1e-320
    preset = Projections(current, current, current)
    text = encode_edits({"W_Q": new, "W_K": current, "W_V": current}, preset)
    assert text == "Q1.1:1e-320" and not check_link({"w": text})
    cells, notes = decode_edits(text, (2, 2))
    assert cells == [("W_Q", 0, 0, 1e-320)] and not notes


# --- pasting a block (issue 12: a 20 × 20 block pasted into the 8 × 4 grid vanished without a word) ---
def test_a_block_bigger_than_the_matrix_is_used_from_the_top_left_and_the_cut_is_named():
    current = np.zeros((8, 4))
    block = np.arange(400, dtype=float).reshape(20, 20) / 10  # 0.0 … 39.9, all within the bound
    text = "\n".join("\t".join(f"{x:g}" for x in row) for row in block)  # as a spreadsheet copies it
    matrix, notes, errors = paste_block("W_Q", current, text)
    assert errors == []
    np.testing.assert_array_equal(matrix, block[:8, :4])  # the top-left 8 × 4 of the block
    assert notes[0] == "W_Q: used rows 1–8 and columns 1–4 of the 20 × 20 block."
    assert notes[1] == "Cut: rows 9–20 and columns 5–20, because W_Q is 8 × 4 (d_model × d_k)."


def test_a_smaller_block_changes_only_its_cells_and_a_bad_cell_refuses_the_whole_block():
    current = np.full((3, 3), 0.5)
    matrix, notes, errors = paste_block("W_K", current, "1, 2\n-3;4e-1")  # ", " and ";" split cells too
    np.testing.assert_array_equal(matrix, [[1, 2, 0.5], [-3, 0.4, 0.5], [0.5, 0.5, 0.5]])
    assert notes == ["W_K: used rows 1–2 and columns 1–2 of the 2 × 2 block."] and errors == []
    matrix, notes, errors = paste_block("W_K", current, "1 2\n3 **x**\n1e400 0")
    assert matrix is None and notes == []
    assert errors == ["W_K row 2, column 2 of the block: “**x**” is not a number.",
                      "W_K row 3, column 1 of the block: infinity can't be used; keep entries within ±100.",
                      "Nothing of the block was applied to W_K."]
    assert paste_block("W_V", current, " \n\n")[2] == ["The block for W_V is empty: paste rows of numbers, one row a "
                                                       "line."]


def test_the_paste_box_applies_a_block_on_the_page_and_says_what_it_cut():
    from streamlit.testing.v1 import AppTest

    from tests.test_pages import APP

    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["step"] = "3"
    at.run()
    at.session_state["editor"] = True  # the learner opens the editor
    at = at.run()
    at.selectbox(key="edit-paste-into").set_value("W_K")
    at.text_area(key="edit-paste").set_value("\n".join(" ".join(["0.5"] * 6) for _ in range(10)))
    at = at.button(key="edit-paste-apply").click().run()
    assert_no_exception(at)
    shown = [readable(i.value) for i in at.info]  # the message is Markdown-escaped on the page
    assert "Cut: rows 9–10 and columns 5–6, because W_K is 8 × 4 (d_model × d_k)." in shown
    preset = random_projections(8, 4, DEFAULT_SEED)
    engine = trace_self_attention(DEFAULT_SENTENCE, seed=DEFAULT_SEED,
                                  projections=Projections(preset.w_q, np.full((8, 4), 0.5), preset.w_v))
    np.testing.assert_allclose(table(at, "w_k"), engine.w_k, atol=1e-9)
    assert any("hand-edited" in i.value for i in at.info)


@pytest.mark.parametrize("query", [{"w": "Q1.1:5.0"}, {"w": "Q1.1:5.0", "step": "5"},
                                   {"w": "Q1.1:5.0", "present": "true"}, {}, {"step": "3"}])
def test_the_sidebar_says_when_the_steps_use_hand_edits(query):
    """The sidebar's summary said "Seeded random" while every step used hand-edited matrices (issue 34)."""
    from tests.driving import open_app
    at = open_app("", **query)
    assert_no_exception(at)
    summary = [c.value for c in at.sidebar.caption if c.value.startswith("d_k ")]
    assert len(summary) == 1
    assert ("edited by hand" in summary[0]) == ("w" in query)
    assert any("hand-edited" in e.value for e in [*at.info, *at.caption]) == ("w" in query)  # the page says so too


def test_the_editor_names_the_cells_edited_by_hand_under_each_grid():
    """A grid cannot mark a cell, and an edit was invisible among the other numbers (issue 34): each grid's
    caption names its edited cells with the preset's value, and a grid with none says nothing."""
    from tests.driving import open_app
    at = open_app("", w="Q1.1:5.0;Q2.3:-0.5;V4.4:1.25", step="3")
    assert_no_exception(at)
    preset = random_projections(8, 4, DEFAULT_SEED)
    captions = [c.value for c in at.caption if c.value.startswith("Edited by hand")]
    def shown(x: float) -> str:  # as the caption writes a number: a true minus sign
        return cell_text(x).replace("-", "−")

    assert captions == [
        f"Edited by hand (2 cells): row 1, column 1: 5 (preset {shown(preset.w_q[0, 0])}); row 2, column 3: −0.5 "
        f"(preset {shown(preset.w_q[1, 2])}).",
        f"Edited by hand (1 cell): row 4, column 4: 1.25 (preset {shown(preset.w_v[3, 3])}).",
    ]
    many = edited_cells(np.arange(16.0).reshape(4, 4), np.zeros((4, 4)))
    assert many.startswith("Edited by hand (15 cells): row 1, column 2: 1 (preset 0)") and many.endswith("and 9 more.")
    assert edited_cells(np.ones((2, 2)), np.ones((2, 2))) == ""


def test_an_edit_smaller_than_the_grids_decimals_is_named_with_the_digits_that_differ():
    """Retyping 0.12350 over 0.123456 changes the number, not the grid's text: the caption still tells them apart."""
    text = edited_cells(np.array([[0.1235]]), np.array([[0.123456]]))
    assert text == "Edited by hand (1 cell): row 1, column 1: 0.1235 (preset 0.123456)."


@pytest.mark.parametrize("text", ["-0", "−0", "-0.0", "-0,000", "-1e-400"])
def test_minus_zero_is_read_as_zero(text):
    """−0 typed or pasted is 0: the link leaves out a cell equal to the preset's, so a −0 kept in the session
    would give the page other bytes than the link's page, and so other questions (issue 43: the state machine
    found a pasted “-0” over the identity's 0 reopening another question)."""
    value, error = parse_entry(text, "W_V row 3, column 1")
    assert error is None and value == 0 and math.copysign(1.0, value) == 1.0


@settings(max_examples=30)
@given(seed=st.integers(0, 999), causal=st.booleans(), flips=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 7),
                                                                                 st.integers(0, 3)), max_size=12))
def test_the_questions_do_not_tell_minus_zero_from_zero(seed, causal, flips):
    """The questions' lesson id (and so which row each question asks about) is the same for a −0 as for a 0."""
    identity = preset_projections("identity", 8, 4, seed)
    signed = [np.array(m, dtype=np.float64) for m in identity]
    for m, r, c in flips:
        if signed[m][r, c] == 0:
            signed[m][r, c] = -0.0
    plain = trace_self_attention(DEFAULT_SENTENCE, seed=seed, causal=causal, projections=Projections(*identity))
    minus = trace_self_attention(DEFAULT_SENTENCE, seed=seed, causal=causal, projections=Projections(*signed))
    assert lesson_id(plain) == lesson_id(minus)
    assert [q.prompt for q in make_questions(plain)] == [q.prompt for q in make_questions(minus)]


def test_a_pasted_minus_zero_reopens_the_same_questions_from_the_link():
    """The state machine's find (issue 43), whole: the identity preset, all steps on one page, a block with a −0
    over one of the identity's zeros pasted into W_V; the friend who opens the link sees the same page."""
    from tests import driving as D
    from tests.test_links import assert_round_trip

    at = D.open_app("", seed="337", causal="true", preset="Identity (W = I)", step="3", all_steps="true",
                    w="K1.1:2.07;K1.3:100.0;K2.1:0.125;K2.2:-0.5;K2.3:1e-07;K3.1:0.626;K3.3:-1.888")
    at.session_state["editor"] = True
    at = at.run()
    at.selectbox(key="edit-paste-into").set_value("W_V")
    at.text_area(key="edit-paste").input("0.404 -0.5 2.998\n-0.5 0 0.125\n-0 -2.724 0")
    at = at.button(key="edit-paste-apply").click().run()
    at.selectbox(key="query").select_index(1)
    at = at.run()
    assert_no_exception(at)
    assert_round_trip(at)
