"""The hand editor's parsing: good cells apply, bad cells are refused by name, the last good matrix stays."""

from __future__ import annotations

import numpy as np
import pytest

from ui.matrix_editor import BOUND, cell_text, matrix_text, parse_edits

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
    [("abc", "“abc” is not a number"), ("", "is empty"), ("nan", "NaN"), ("inf", "infinity"), ("-1e9", "beyond the bound")],
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
