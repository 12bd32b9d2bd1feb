"""The app as a state machine (issue 32): a learner moves between lessons and sets any control to any value it
can take (sentences from one token to 64, repeated words, text that can't be shown; every seed, size, mask,
preset, step, query and head; hand-edited cells pasted into the editor), a friend now and then opens the link,
and after every step the invariants hold:

- no exception;
- every written-out sum a tooltip, the Σ table or a row-sums caption shows adds up at the precision shown;
- what the walkthrough shows is the trace its link describes, and its questions are that trace's;
- "measured on your input" sentences hold on the input (attention from its parts);
- the link reopens the same numbers, texts and controls (``friend_opens_the_link``).

``make test`` runs a few hundred steps. For a longer run by hand (docs/developers.md):
``ATTENTION_LAB_STATES=long .venv/bin/python -m pytest tests/test_states.py``.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from attention import Projections, preset_projections, trace_self_attention
from attention.tokens import SentenceError
from tests import driving as D
from tests import written
from tests.table_reading import cell_text, values_of, view_panels
from tests.test_links import assert_round_trip
from ui.links import SETTINGS
from ui.matrix_editor import decode_edits
from viz import arithmetic as A
from viz.exercises import questions_for_step
from viz.labels import format_number

LONG = os.environ.get("ATTENTION_LAB_STATES") == "long"
pytestmark = pytest.mark.timeout(7200 if LONG else 1200)  # a few hundred steps: ~2 min idle, more on a busy machine
PAGES = ["", "", "", "multihead", "relevance", "parts", "cross", "scaling"]  # the walkthrough most often
ENTRIES = st.one_of(st.floats(-3, 3).map(lambda x: round(x, 3)),
                    st.sampled_from(["0.125", "-0.5", "100", "-100", "1e-7", "0", "2.5"]))


def setting(at, key: str, default=None):
    value = at.query_params.get(key)
    return default if value is None else SETTINGS[key].read(value if isinstance(value, str) else value[-1])


def walkthrough_trace(at):
    """The trace the walkthrough's link describes, rebuilt here from the link alone (as a friend's page would)."""
    sentence = setting(at, "sentence", SETTINGS["sentence"].default)
    d_model, d_k = setting(at, "d_model", 8), setting(at, "d_k", 4)
    seed, preset = setting(at, "seed", 42), setting(at, "preset", "random")
    options = {"d_model": d_model, "d_k": d_k, "seed": seed, "positional": setting(at, "positional", False),
               "causal": setting(at, "causal", False), "preset": preset}
    if "w" in at.query_params:
        matrices = [np.array(m, dtype=np.float64) for m in preset_projections(preset, d_model, d_k, seed)]
        cells, _ = decode_edits(at.query_params["w"], (d_model, d_k))
        for name, r, c, value in cells:
            matrices[("W_Q", "W_K", "W_V").index(name)][r, c] = value
        options["projections"] = Projections(*matrices)
    return trace_self_attention(sentence, **options)


class Learner(RuleBasedStateMachine):
    @initialize(page=st.sampled_from(PAGES))
    def open(self, page):
        self.at = D.open_app(page)
        self.steps = 0

    def run(self, at) -> None:
        self.at = at
        self.steps += 1

    @rule(page=st.sampled_from(PAGES))
    def go_to_another_lesson(self, page):
        self.at.switch_page(D.SCRIPTS[page])
        self.run(self.at.run())

    @rule(data=st.data())
    def set_a_control(self, data):
        self.run(D.act(self.at, data))

    @precondition(lambda self: D.page_of(self.at) == "")
    @rule(data=st.data())
    def paste_cells_into_the_editor(self, data):
        """Step 3's paste box: a block of cells into W_Q, W_K or W_V (the grids are not drivable without a
        browser; the paste is the learner's other way in)."""
        at = self.at
        if any(s.key == "step" for s in at.selectbox):  # one step at a time: go to step 3 (all steps: it is there)
            at.selectbox(key="step").set_value(3)
        at.session_state["editor"] = True  # the learner opens "Edit W_Q, W_K, W_V by hand"
        at = at.run()
        if not at.button(key="edit-paste-apply"):
            self.run(at)
            return
        rows, cols = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
        block = "\n".join(" ".join(str(data.draw(ENTRIES)) for _ in range(cols)) for _ in range(rows))
        at.selectbox(key="edit-paste-into").set_value(data.draw(st.sampled_from(["W_Q", "W_K", "W_V"])))
        at.text_area(key="edit-paste").input(block)
        self.run(at.button(key="edit-paste-apply").click().run())

    @rule()
    def friend_opens_the_link(self):
        assert_round_trip(self.at)

    # ---- invariants, after every step ----------------------------------------------------------------

    @invariant()
    def nothing_raised(self):
        assert not self.at.exception, [e.value for e in self.at.exception]

    @invariant()
    def every_written_out_sum_adds_up(self):
        panels = [p for p in view_panels(self.at).values() if p.get("tip")]
        if not panels:
            return
        for cells in written.tooltip_texts(panels):
            for row in cells:
                for lines in row:
                    for line in lines:
                        written.check(line["text"])  # asserts "=" adds up, "≈" only at six decimals
        for key, panel in view_panels(self.at).items():
            if "weighted-sum" in key:  # step 8's Σ table: each column's terms add up to its Σ row as shown
                text = [[cell_text(v, panel, r, c) for c, v in enumerate(row)] for r, row in
                        enumerate(values_of(panel))]
                for c, d in enumerate(panel["decimals"][0]):
                    if d > 0:
                        assert written.rounds_to(sum(written.value(row[c]) for row in text[:-1]), text[-1][c])

    @invariant()
    def row_sums_name_the_rows_whose_cells_do_not_add_to_one(self):
        caption = next((c.value for c in self.at.caption if c.value.startswith("Every row of α sums to 1")), None)
        panel = view_panels(self.at).get("weights")
        if caption is None or panel is None:
            return
        for label, row in zip(panel["rows"], values_of(panel), strict=True):
            total = sum(written.value(cell_text(v, panel)) for v in row if v is not None)
            said = f"“{re.escape(label)}” to"
            assert (re.search(said, caption.replace("\\", "")) is not None) == (total != 1) or "more" in caption

    @invariant()
    def the_walkthrough_shows_its_links_trace_and_asks_its_questions(self):
        if D.page_of(self.at) != "" or self.at.exception:
            return
        try:
            trace = walkthrough_trace(self.at)
        except SentenceError:
            return
        panels = view_panels(self.at)
        for key, m in (("q", trace.q), ("scores", trace.scores), ("weights", trace.weights),
                       ("output", trace.output)):
            if key in panels:
                shown = np.array([[np.nan if v is None else v for v in row] for row in values_of(panels[key])])
                expected = np.where(trace.mask, m, np.nan) if key == "weights" else m
                np.testing.assert_allclose(shown, A.held(expected) / 1e6 if key != "weights" else
                                           np.where(trace.mask, A.held(m) / 1e6, np.nan), atol=1e-6, err_msg=key)
        asked = {r.key for r in self.at.radio if r.key.startswith("ex-")} | \
            {n.key for n in self.at.number_input if n.key.startswith("ex-")}
        step = setting(self.at, "step", 1)
        if setting(self.at, "all_steps", False) or setting(self.at, "present", False):
            return
        assert asked == {f"ex-{q.key}" for q in questions_for_step(trace, step)}

    @invariant()
    def the_parts_sentences_hold_on_the_tables_shown(self):
        if D.page_of(self.at) != "parts":
            return
        info = " ".join(i.value for i in self.at.info)
        found = re.search(r"moved by up to (\d+\.\d+)", info)
        panels = view_panels(self.at)
        outputs = [p for k, p in panels.items() if k.startswith("parts-output-")]
        if found and len(outputs) == 2:
            diffs = [abs(written.value(cell_text(a, outputs[1])) - written.value(cell_text(b, outputs[0])))
                     for ra, rb in zip(values_of(outputs[1]), values_of(outputs[0]), strict=True)
                     for a, b in zip(ra, rb, strict=True)]
            assert written.value(found.group(1)) == max(diffs)


TestLearner = Learner.TestCase
TestLearner.settings = settings(
    max_examples=100 if LONG else 20, stateful_step_count=60 if LONG else 30, deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


def test_format_number_is_what_the_tables_show():
    """The invariants read numbers as the tables show them (tests.table_reading.cell_text): the same digits."""
    assert format_number(0.125) == "0.13" and cell_text(0.125, {"decimals": 2}) == "0.13"
