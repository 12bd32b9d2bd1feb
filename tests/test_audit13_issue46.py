"""Truth audit 13's breaking inputs (the registry's new sentences), held.

- The downloads' caption said CSV labels are the tables' labels; a token that starts with =, +, - or @ is written
  after a ' (a spreadsheet would run it as a formula): the caption says so, and the CSV does exactly that.
- The hand editor's caption says an edit lasts while d_model, d_k, the preset and the seed stay the same; a class's
  student following the teacher lost an edit to the teacher's Next, silently. The class's next lesson replaces it
  (the page shows the class's lesson, whose link holds the teacher's matrices): a student is now told so.
"""

from __future__ import annotations

import csv
import io

from hypothesis import given, settings
from hypothesis import strategies as st

from attention import trace_self_attention
from tests import test_classmode_pages as C
from tests.test_classmode_pages import database as database  # the class pages' fixture: one SQLite file
from viz import exports as X

SIGNS = ("=", "+", "-", "@")
CLASS_NOTE = "In a class, the next lesson your teacher's page sends to yours replaces these edits."


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


def test_a_following_students_edit_is_replaced_by_the_next_lesson_and_said_so(database):
    teacher, _secret, code = C.start_class(step="3")
    teacher = C.on(teacher, "lessons/walkthrough.py")
    teacher.session_state["step"] = 3  # W_Q, W_K, W_V: the step with the hand editor
    teacher = teacher.run()
    ann = C.stay(C.stay(C.join(C.ANN, code)).run())
    ann.session_state["editor"] = True
    ann = ann.run()
    assert CLASS_NOTE in [caption.value for caption in ann.caption]  # said beside the editor, before any edit
    ann.text_area(key="edit-paste").set_value("5")
    ann = ann.button(key="edit-paste-apply").click().run()
    assert ann.session_state["_matrix_edits"].edited
    teacher.session_state["step"] = 4  # the teacher's Next: d_model, d_k, the preset and the seed unchanged
    teacher.run()
    ann = C.stay(ann.run())
    assert not ann.session_state["_matrix_edits"].edited  # the class's lesson, as the note said
    alone = C.browser("d" * 32, "lessons/walkthrough.py", step="3")  # a learner in no class is not told it
    alone.session_state["editor"] = True
    captions = [caption.value for caption in alone.run().caption]
    assert any(c.startswith("Click a cell") for c in captions) and CLASS_NOTE not in captions  # the editor, no note
