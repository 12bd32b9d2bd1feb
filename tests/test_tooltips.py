"""Every written-out sum a view can show adds up at the precision it shows (issue 32: "one rule for
written-out arithmetic").

The tooltips are written by static/tooltip.js, run here in Node on the server's own payloads
(viz/provenance.py), for every cell of every panel of the walkthrough's steps; the Σ table of step 8 is
read as the learner reads it. The inputs: sentences from one token to 64, repeated words, the claims'
families; every seed, size, mask, temperature and preset; hand-edited matrices with exact halves
(0.125, 0.5), the editor's bounds (±100) and tiny numbers. The numbers are checked by tests/written.py,
a calculator that only reads the text.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import Projections, SentenceError, trace_self_attention
from tests import svg_reading as R
from tests import written
from tests.claims.families import SENTENCES
from tests.table_reading import cell_text
from ui import view
from viz import figures as F
from viz import provenance as P
from viz import tables as T
from viz.labels import token_labels

WORDS = ["the", "cat", "sat", "a", "x", "Jindřich", "!", "🤗"]
sentences = st.one_of(
    st.sampled_from(SENTENCES),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join),
    st.just("w " * 64).map(str.strip),  # 64 tokens, all one word
    st.sampled_from(["hello", "a a", "x x x x x x x x"]),  # one token; repeats, whose weights are exact halves
)
ENTRIES = st.one_of(st.floats(-3, 3), st.sampled_from([0.0, 0.125, -0.125, 0.5, 1.0, -1.0, 0.005, 100.0, -100.0, 1e-7]))


@st.composite
def traces(draw):
    d_model = draw(st.sampled_from([2, 4, 8, 16]))
    d_k = draw(st.integers(1, 16))
    options = {"d_model": d_model, "d_k": d_k, "seed": draw(st.integers(0, 999_999)),
               "positional": draw(st.booleans()), "causal": draw(st.booleans()),
               "temperature": draw(st.sampled_from([1.0, 1.0, 0.5, 2.0, 0.05])),
               "preset": draw(st.sampled_from(["random", "identity"]))}
    if draw(st.booleans()):  # hand-edited matrices
        shape = (d_model, d_k)
        options["projections"] = Projections(*(np.array(draw(st.lists(ENTRIES, min_size=d_model * d_k,
                                                                     max_size=d_model * d_k))).reshape(shape)
                                               for _ in range(3)))
    try:
        return trace_self_attention(draw(sentences), **options)
    except SentenceError:
        return trace_self_attention("This forum is awesome", **options)


def walkthrough_panels(t) -> list[dict]:
    """Every panel of the walkthrough's steps that writes arithmetic, as ui/walkthrough.py builds it."""
    qk = ("query", "key")
    panels = [view.panel(name, T.token_by_dim_frame(t, m), tip=P.projection(t, name), names=("token", "dimension"))
              for name, m in (("q", t.q), ("k", t.k), ("v", t.v))]
    if t.positional_encoding is not None:
        panels.append(view.panel("x", T.token_by_dim_frame(t, t.x), tip=P.embedding_sum(t)))
    panels += [
        view.panel("scores", T.query_key_frame(t, t.scores), tip=P.scores(t), names=qk),
        view.panel("scaled", T.query_key_frame(t, t.masked_scores), tip=P.scaled(t), names=qk, masked="−∞"),
        view.panel("weights", T.query_key_frame(t, t.weights, weights=True), tip=P.weights(t), names=qk),
        view.panel("output", T.token_by_dim_frame(t, t.output), tip=P.output(t), names=("query", "dimension")),
    ]
    for i in {0, t.n - 1}:
        decimals = T.weighted_sum_decimals(t, i)
        panels.append(view.panel(f"weighted-sum-{i}", T.weighted_sum_frame(t, i), decimals=decimals,
                                 tip={"kind": "column", "dec": decimals[0].tolist()}))
    return panels


def check_every_tooltip(panels: list[dict]) -> dict[str, int]:
    """Check every cell's written-out arithmetic; count the lines checked by relation."""
    counts = {"=": 0, "≈": 0}
    for cells in written.tooltip_texts(panels):
        for row in cells:
            for lines in row:
                for line in lines:
                    found = written.check(line["text"])
                    if found:
                        counts[found[0]] += 1
    return counts


@settings(max_examples=40)
@given(traces())
def test_every_tooltip_of_every_step_adds_up_at_the_precision_it_shows(t):
    panels = walkthrough_panels(t)
    counts = check_every_tooltip(panels)
    assert counts["="] > 0  # the check read something: the scores of at least one cell are written out


def test_the_reported_cell_this_this_adds_up_now():
    """Issue 32: step 5, cell This/This wrote 2.12·(−1.39) + 0.78·1.02 + (−0.74)·0.28 + (−1.07)·1.52 = −4.00."""
    t = trace_self_attention("This forum is awesome", d_model=8, d_k=4, seed=42)
    panel = view.panel("scores", T.query_key_frame(t, t.scores), tip=P.scores(t), names=("query", "key"))
    line = written.tooltip_texts([panel])[0][0][0][1]["text"]
    relation, _exact, shown = written.check(line)
    assert relation == "=" and shown == cell_text(panel["values"][0][0], panel)


@settings(max_examples=60)
@given(traces(), st.data())
def test_the_sum_table_of_step_8_adds_up_column_by_column_as_shown(t, data):
    """Step 8's "Σ = output" table: the terms of a column, as the table shows them, add up to its Σ row as
    shown; the heatmap beside it, where it writes numbers, writes the same text in every cell."""
    i = data.draw(st.integers(0, t.n - 1))
    decimals = T.weighted_sum_decimals(t, i)
    panel = view.panel("ws", T.weighted_sum_frame(t, i), decimals=decimals)
    text = [[cell_text(v, panel, r, c) for c, v in enumerate(row)] for r, row in enumerate(panel["values"])]
    for c in range(t.d_k):
        terms, total = [row[c] for row in text[:-1]], text[-1][c]
        exact = sum(written.value(x) for x in terms)
        if decimals[0, c] > 0:  # "adds up": strictly inside the shown total's rounding interval
            assert written.rounds_to(exact, total), (terms, total)
        else:  # "≈" only where six decimals don't add up either
            assert all(written.decimals(x) == 6 for x in terms)
    fig = F.weighted_sum_figure(t, i)
    if R.numbers(fig):  # where they fit the page (svg.MAX_CHART_WIDTH); otherwise the table alone has them
        assert R.cell_texts(fig, (t.n + 1, t.d_k)).tolist() == text
    else:
        assert "each cell shows its number" not in fig.alt


@settings(max_examples=20)
@given(st.lists(st.tuples(st.one_of(st.floats(-1e6, 1e6, allow_nan=False), st.integers(-10**7, 10**7).map(
    lambda k: k / 10**6), st.integers(-999, 999).map(lambda k: k / 8)), st.integers(0, 6)), min_size=1,
    max_size=200))
def test_the_browser_writes_every_number_with_the_servers_digits(pairs):
    """A table drawn in the browser and a heatmap drawn on the server show one number with the same digits:
    static/tooltip.js's formatNumber is viz.arithmetic's rule (exact eighths such as 0.125 included, where
    toFixed and Python's format disagree). The browser gets the number as the server sends it
    (viz.arithmetic.number)."""
    import json
    import subprocess

    from viz.arithmetic import number, text

    sent = [(number(x), d) for x, d in pairs]
    done = subprocess.run(["node", str(written.ROOT / "tests" / "js" / "format_numbers.mjs")],
                          input=json.dumps(sent), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [text(x, d) for x, d in pairs]


@settings(max_examples=25)
@given(traces(), st.data())
def test_an_empty_cell_of_a_chosen_querys_row_names_that_query(t, data):
    """Step 8's α row and output row, for the query the learner chose (ui/walkthrough.py): each cell's tooltip names
    the query by its number in the sentence, and under the causal mask an empty cell says which key it hides from
    which query. Before, the row alone was "query 1" whatever the choice: "the causal mask hides key 4 from query
    1" under the row of query 3."""
    i = data.draw(st.integers(0, t.n - 1))
    labels = token_labels(t.tokens)
    rows = [view.panel("alpha-row", T.one_row(T.query_key_frame(t, t.weights, weights=True), i),
                       names=("query", "key"), masked="—"),
            view.panel("output-row", T.one_row(T.token_by_dim_frame(t, t.output), i),
                       names=("query", "dimension"))]
    for panel, cells in zip(rows, written.tooltip_texts(rows), strict=True):
        assert panel["rowAt"] == [i + 1]
        for c, lines in enumerate(cells[0]):
            head = lines[0]["text"]
            assert head.startswith(f"query {labels[i]} ·" if labels[i] == str(i + 1) else
                                   f"query “{labels[i]}” ({i + 1}) ·"), head
            if panel["values"][0][c] is None:
                assert t.causal and c > i, (i, c)  # an empty cell is the mask's: a key after the query
                assert lines[1]["text"] == (f"masked: the causal mask hides key {c + 1} from query {i + 1}, so its "
                                            "weight is exactly 0"), lines[1]["text"]


@pytest.mark.parametrize(("page", "query"), [
    ("lessons/walkthrough.py", {"all_steps": "true", "causal": "true", "query": "3"}),
    ("lessons/multihead.py", {"causal": "true"}),
    ("lessons/learn.py", {"lt_run": "true"}),
    ("lessons/real_model.py", {"rm_model": "SmolLM2 (SmolLM2-135M-Instruct, a Llama decoder)", "rm_step": "7"}),
], ids=["walkthrough", "multihead", "learn", "smollm2"])
def test_a_pages_empty_cells_are_a_causal_masks_unless_the_panel_says_what_they_are(page, query):
    """A cell's tooltip calls an empty cell the causal mask's unless its panel says otherwise (``blank``): on the
    pages whose panels have empty cells, each such cell is a key after its query (by the row's number in the
    sentence, ``rowAt``), or its panel says what it is (the learn page's step 0 has no batch loss)."""
    from streamlit.testing.v1 import AppTest

    from tests.table_reading import view_panels
    from tests.test_pages import APP, TIMEOUT, assert_no_exception
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update(query)
    at = at.switch_page(page).run()
    assert_no_exception(at)
    empty = {}
    for key, panel in view_panels(at).items():
        cells = [(r, c) for r, row in enumerate(panel["values"]) for c, v in enumerate(row) if v is None]
        if cells and "blank" not in panel:
            at_row = panel.get("rowAt") or list(range(1, len(panel["values"]) + 1))
            assert all(c + 1 > at_row[r] for r, c in cells), (key, cells)
            empty[key] = panel.get("rowAt")
    assert empty, "the page's causal mask left no empty cell: the test read nothing"
    if page == "lessons/walkthrough.py":
        assert empty["alpha-row"] == [3], empty  # the chosen query, the third, not the row's place
        panels = view_panels(at)  # named as the unit test above builds them: its tooltip says "query", "key"
        assert (panels["alpha-row"]["rowName"], panels["alpha-row"]["colName"]) == ("query", "key")
        assert (panels["output-row"]["rowName"], panels["output-row"]["colName"]) == ("query", "dimension")


CACHED_STEP = '''
import re

import numpy as np
from attention.projections import Projections
from attention.trace import Embedded, trace_cached_query
from ui.walkthrough import render_steps, steps_for
rng = np.random.default_rng({seed})
tokens = tuple(f"w{{k}}" for k in range({n}))
x = rng.normal(size=(1, 6))
P = Projections(*(rng.normal(size=(6, 4)) for _ in range(3)))
trace = trace_cached_query(Embedded("", tokens, 0, x, None, x), P, rng.normal(size=({n} - 1, 4)),
                           rng.normal(size=({n} - 1, 4)))
render_steps(trace, prefix="gen-", first=2, last=2)
render_steps(trace, prefix="gen-", first=4, last=len(steps_for(trace)))
'''


@pytest.mark.parametrize("n", [2, 5, 9])
def test_a_cached_steps_tooltips_name_the_token_read_by_its_number_in_the_sentence(n):
    """The cache page's step (ui/walkthrough.py's steps for a cached trace, as /generate draws them): its query is
    the token read, the n-th. Every panel of that one row names it "(n)" and writes its subscripts with n
    (x_n, q_n, s_n,j, z_n,j, α_n,j, row n's largest score), as the step's formula does; they said 1."""
    from streamlit.testing.v1 import AppTest

    from tests.table_reading import view_panels
    at = AppTest.from_string(CACHED_STEP.format(seed=n, n=n), default_timeout=120).run()
    assert not at.exception, [e.value for e in at.exception]
    panels = {k: p for k, p in view_panels(at).items() if len(p["values"]) == 1 and p["rows"] == [f"w{n - 1}"]}
    assert {"gen-x", "gen-q", "gen-scores", "gen-scaled", "gen-weights", "gen-output-row"} <= set(panels), panels
    for key, cells in zip(panels, written.tooltip_texts(list(panels.values())), strict=True):
        for lines in cells[0]:
            assert f"“w{n - 1}” ({n}) ·" in lines[0]["text"], (key, lines[0]["text"])
            for line in lines[1:]:
                found = re.findall(r"(?:\b[qszx]|α|out)_\{(\d+)|row (\d+)'s", line["text"])  # a query's, not k_j
                assert all(int(a or b) == n for a, b in found), (key, line["text"])


def test_the_browsers_copy_of_the_views_english_texts_is_the_servers_and_every_language_has_them_all():
    """tests/js/view_texts.json gives the Node tests (and explain_cells.mjs) the texts a view's data carries: the
    server's. In the pseudo-language every one of them comes marked from the catalogs (the browser holds no words)."""
    from ui.view import TEXTS, texts
    from viz.i18n import PSEUDO, speaking

    copy = json.loads((written.ROOT / "tests" / "js" / "view_texts.json").read_text(encoding="utf-8"))
    assert copy == texts()
    with speaking(PSEUDO):
        marked = texts()
    assert set(marked) == {*TEXTS, "sep", "decimal"} and all(marked[name].startswith("⟦") for name in TEXTS)
