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

import numpy as np
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
