"""Truth audit 13's breaking inputs (the registry's new sentences), held.

- The downloads' caption said CSV labels are the tables' labels; a token that starts with =, +, - or @ is written
  after a ' (a spreadsheet would run it as a formula): the caption says so, and the CSV does exactly that.
- The hand editor's caption says an edit lasts while d_model, d_k, the preset and the seed stay the same; a class's
  student following the teacher lost an edit to the teacher's Next, silently. The page replaces it when it takes the
  class's lesson (whose link holds the teacher's matrices): at each change while following, on going back while
  exploring. A student is now told so.
- The head view's help said "a line's opacity is its weight": a line's opacity is 0.15 + 0.85 α and a weight of
  0.005 or less has no line. It says the larger a weight, the darker and thicker its line, none at 0.005 or less.
"""

from __future__ import annotations

import csv
import io
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from attention import trace_self_attention
from tests import test_classmode_pages as C
from tests.test_classmode_pages import database as database  # the class pages' fixture: one SQLite file
from viz import exports as X
from viz import heads as H

SIGNS = ("=", "+", "-", "@")
CLASS_NOTE = "In a class, your page replaces these edits when it next takes your teacher's lesson."


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["-2", "=x", "@me", "+1", "cat", "=SUM(A1)", "é", "😀", "猫", "-"]), min_size=1,
                max_size=6), st.sampled_from(["X", "Q", "scores", "scaled scores", "weights", "output"]))
def test_a_csv_label_is_the_tables_with_a_quote_in_front_of_a_formulas_sign(words, name):
    trace = trace_self_attention(" ".join(words), seed=1, causal=True)
    frame = X.matrix(trace, name)
    rows = list(csv.reader(io.StringIO(X.to_csv(frame))))
    written = [row[0] for row in rows[1:]]
    shown = [str(label) for label in frame.index]
    assert written == [("'" + label) if label.startswith(SIGNS) else label for label in shown]
    # and numbers at full precision (as the caption says): every cell parses back to the trace's number
    for row, values in zip(rows[1:], frame.to_numpy(), strict=True):
        assert [float(cell) for cell in row[1:]] == [float(v) for v in values]


def edited_at_step_3(database, mode: str):
    """A class on the walkthrough's step 3 in ``mode``; Ann, its student, pastes 5 into W_Q."""
    teacher, secret, code = C.start_class(step="3")
    teacher = C.on(teacher, "lessons/walkthrough.py")
    teacher.session_state["step"] = 3  # W_Q, W_K, W_V: the step with the hand editor
    teacher = teacher.run()
    database.set_mode(secret, mode)
    ann = C.stay(C.stay(C.join(C.ANN, code)).run())
    ann.session_state["editor"] = True
    ann = ann.run()
    assert CLASS_NOTE in [caption.value for caption in ann.caption]  # said beside the editor, before any edit
    ann.text_area(key="edit-paste").set_value("5")
    ann = ann.button(key="edit-paste-apply").click().run()
    assert ann.session_state["_matrix_edits"].edited
    return teacher, ann


def test_an_exploring_students_edit_stays_until_the_page_takes_the_teachers_lesson_again(database):
    teacher, ann = edited_at_step_3(database, "explore")
    teacher.session_state["step"] = 4  # the teacher's Next: the exploring student's page does not take it
    teacher.run()
    ann = C.stay(ann.run())
    assert ann.session_state["_matrix_edits"].edited
    ann = C.stay(ann.button(key="cm_go_back").click().run())  # "Back to my teacher's lesson"
    assert not ann.session_state["_matrix_edits"].edited


def test_a_following_students_edit_is_replaced_by_the_next_lesson_and_said_so(database):
    teacher, ann = edited_at_step_3(database, "follow")
    teacher.session_state["step"] = 4  # the teacher's Next: d_model, d_k, the preset and the seed unchanged
    teacher.run()
    ann = C.stay(ann.run())
    assert not ann.session_state["_matrix_edits"].edited  # the class's lesson, as the note said
    alone = C.browser("d" * 32, "lessons/walkthrough.py", step="3")  # a learner in no class is not told it
    alone.session_state["editor"] = True
    captions = [caption.value for caption in alone.run().caption]
    assert any(c.startswith("Click a cell") for c in captions) and CLASS_NOTE not in captions  # the editor, no note


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["the", "cat", "sat", "on", "a", "mat", "😀", "猫"]), min_size=1,
                max_size=12).map(" ".join), st.integers(0, 2**16), st.booleans(), st.booleans())
def test_the_larger_a_weight_the_darker_and_thicker_its_line_and_none_at_0_005_or_less(sentence, seed, causal, pick):
    trace = trace_self_attention(sentence, seed=seed, causal=causal)
    view = H.lines_view(trace.weights[None], trace.tokens, highlight=0 if pick else None)[0]
    drawn = [(float(w), float(o)) for w, o in re.findall(r'<line class="link"[^>]* stroke-width="([\d.]+)" '
                                                          r'stroke-opacity="([\d.]+)"', view.markup)]
    queries = [0] if pick else range(trace.n)
    weights = [trace.weights[i, j] for i in queries for j in range(trace.n) if trace.weights[i, j] > 0.005]
    assert len(drawn) == len(weights)  # none at 0.005 or less (and a masked key's α is 0)
    for (w1, o1), a1 in zip(drawn, weights, strict=True):
        for (w2, o2), a2 in zip(drawn, weights, strict=True):
            if a1 > a2 + 0.01:  # beyond the drawing's rounding (widths at 0.01 px, opacities at 0.001)
                assert w1 > w2 and o1 > o2
