"""Issue 47, class mode: a question carries the numbers it asks about (the lesson is hidden while it is open), as
the lesson's table shows them, and an answer worked out from those shown numbers counts.

Over a family of lessons (sentences, seeds, the causal mask, positional encodings, d_k), each question is checked
against the trace itself, not against the builder's own text: the shown numbers are the trace's row at two decimals,
and a learner who works from them (the softmax of the shown scores; the largest shown score or weight) is right.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import attention as A
from viz import classmode as V
from viz.exercises import MASK_OPTIONS, QUESTION_STEPS, head_questions, make_questions, questions_for_step
from viz.labels import token_labels

SENTENCES = ["This forum is awesome", "the cat sat on the mat", "a b", "the the the", "I",
             "an unusually long sentence with many different words in it for twelve"]
NEEDS_NUMBERS = {"most": "Z", "alpha": "Z", "value": "α"}  # a question's kind -> the matrix whose row it asks about
TWO_DECIMALS = re.compile(r"−?\d+\.\d\d")


def value_of(cell: str) -> float:
    """A shown cell as the learner reads it: a number at two decimals, or −∞ (a masked score)."""
    if cell == "−∞":
        return -math.inf
    assert TWO_DECIMALS.fullmatch(cell), cell  # the lesson's tables show two decimals
    return float(cell.replace("−", "-"))


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(SENTENCES), st.integers(0, 100_000), st.booleans(), st.booleans(),
       st.sampled_from([1, 2, 4, 8]))
@example("This forum is awesome", 42, False, False, 4)  # the app's default lesson (the question)
def test_every_question_that_needs_numbers_shows_them_as_the_trace_has_them_and_they_give_a_right_answer(
        sentence, seed, causal, positional, d_k):
    trace = A.trace_self_attention(sentence, seed=seed, causal=causal, positional=positional, d_k=d_k)
    labels = token_labels(trace.tokens)
    for q in make_questions(trace):
        kind = q.key.rsplit("-", 1)[1]
        record = V.question_record(q)
        shown = V.shown_of(record)  # as the class stores it (JSON) and shows it
        if kind not in NEEDS_NUMBERS:
            # the shape question's numbers are in its prompt; the mask question asks what the mask does
            assert shown is None, q.key
            if kind == "shape":
                n, d_model, _, d_k_ = map(int, re.findall(r"\d+", q.prompt))  # X [n × d_model], W_Q [d_model × d_k]
                assert (n, d_model, d_k_) == (trace.n, trace.d_model, trace.d_k) and q.answer == f"{n} × {d_k_}"
            else:
                assert kind == "mask" and q.answer == MASK_OPTIONS[0]
            continue
        assert shown is not None, f"{q.key} asks about numbers it does not show"
        i = int(re.search(r"row (\d+)", q.prompt).group(1)) - 1
        assert shown.title.startswith(f"Row {i + 1} of {NEEDS_NUMBERS[kind]} ") and labels[i] in shown.title
        assert shown.row == labels[i] and list(shown.columns) == labels
        matrix = trace.masked_scores if NEEDS_NUMBERS[kind] == "Z" else trace.weights
        cells = []
        for j, cell in enumerate(shown.values):
            if not trace.mask[i, j]:
                assert cell == ("−∞" if NEEDS_NUMBERS[kind] == "Z" else "—"), (q.key, j, cell)
                cells.append(-math.inf)
                continue
            value = value_of(cell)
            assert abs(value - float(matrix[i, j])) <= 0.005 + 1e-9, (q.key, j, cell, matrix[i, j])
            cells.append(value)
        # the text alternative says the same numbers, key by key
        assert all(f"“{c}” {v}" in shown.text() for c, v in zip(shown.columns, shown.values, strict=True))
        if kind == "alpha":  # a learner's α from the shown scores, to two decimals, counts
            j = labels.index(re.search(r"for the key “(.+?)” to two", q.prompt).group(1))
            top = max(cells)
            e = [math.exp(z - top) for z in cells]
            worked = round(e[j] / sum(e), 2)
            assert q.is_correct(worked) and V.is_right(record, f"{worked:.2f}"), (worked, q.low, q.high)
        else:  # the largest shown number: every key that shows it is a right answer
            best = [labels[j] for j, c in enumerate(cells) if c == max(cells)]
            assert all(q.is_correct(b) and V.is_right(record, b) for b in best), (best, q.answer, q.also)


def test_a_stored_question_whose_numbers_are_not_well_formed_shows_none_and_labels_stay_text():
    """A stored question is data from anyone: a record with a missing or mistyped part shows no numbers; a label
    with Markdown in it is a cell's text, not a link."""
    trace = A.trace_self_attention("[x](http://e.org) | b", seed=1)
    q = next(q for q in make_questions(trace) if q.shown is not None)
    record = V.question_record(q)
    table = V.numbers_table(V.shown_of(record))
    assert "](http" not in table and table.count("\n") == 2  # one header, one rule, one row
    for broken in ({**record["shown"], "values": record["shown"]["values"][:-1]}, {**record["shown"], "row": 3},
                   {**record["shown"], "columns": "abc"}, "row 1", None):
        assert V.shown_of({**record, "shown": broken}) is None


def test_a_one_column_head_is_named_by_its_column():
    """The second audit: "columns 3–3 of W_Q" and "= 1 columns" for d_k = 1 (d_model 4 in 4 heads)."""
    mh = A.trace_multi_head("the cat sat on the mat", n_heads=4, d_model=4, seed=3)
    shapes = [q for k, head in enumerate(mh.heads) for q in make_questions(head) if q.key.endswith("-shape")]
    assert [re.search(r"this head's W_Q, (column \d+) of W_Q", q.prompt)[1] for q in shapes] == \
        [f"column {k}" for k in range(1, 5)]
    said = " ".join(q.prompt + q.explanation for q in head_questions(6, 4, 4, "x"))
    assert "1 columns" not in said and "= 1 column of W_Q" in said


def test_one_head_is_one_head_in_the_multi_head_pages_questions():
    """The audit: "split into h = 1 heads", "The 1 heads' outputs", "1 outputs of"."""
    for q in head_questions(5, 8, 1, "x"):
        assert not re.search(r"\b1 (heads|outputs)\b", q.prompt + q.explanation), (q.prompt, q.explanation)


def test_the_multi_head_pages_shape_questions_hold_their_numbers_in_the_prompt():
    """Their answers are shapes worked out from d_model and h, which the prompts state (no table needed)."""
    for q in head_questions(5, 8, 2, "x"):
        assert q.shown is None and ("d_model = 8" in q.prompt or "2 heads" in q.prompt)


def _texts(fig) -> list[ET.Element]:
    return [e for e in ET.fromstring(fig.markup).iter() if e.tag.endswith("text")]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(SENTENCES), st.integers(0, 10_000), st.booleans(), st.booleans(),
       st.lists(st.integers(0, 40), min_size=1, max_size=12))
def test_the_projectors_answers_chart_is_wide_and_its_labels_large_and_whole(sentence, seed, causal, revealed,
                                                                              counts):
    """Issue 47: after the reveal the projector's chart was ~200 px wide with 11–12 px labels. Its chart is now as
    wide as the projector's page (1,000 px or more) and every text in it is 28 px or larger; every option is
    written whole (a mask option is a phrase), a count a row; a right option is marked ✓, not by colour alone."""
    trace = A.trace_self_attention(sentence, seed=seed, causal=causal)
    for q in (q for q in make_questions(trace) if q.options):
        record = V.question_record(q)
        answers = [o for o, c in zip(q.options, counts * len(q.options), strict=False) for _ in range(c)]
        fig = V.projector_tally_figure(record, answers, revealed)
        assert fig.width >= 1000, fig.width
        texts = _texts(fig)
        assert all(float(t.get("font-size", 13)) >= 28 for t in texts), sorted({t.get("font-size") for t in texts})
        written = ["".join(t.itertext()) for t in texts]
        for option in (r.name for r in V.projector_rows(record, answers, revealed) if not r.folded):
            mark = "✓ " if revealed and V.is_right(record, option) else ""
            assert mark + option in written, (option, written)
            assert str(sum(a == option for a in answers)) in written


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 64), st.lists(st.integers(0, 63), max_size=80), st.booleans(), st.data())
def test_the_projectors_chart_folds_the_options_nobody_chose_into_true_rows_and_fits_a_projector(
        n, picks, revealed, data):
    """Issue 47 (audit): a "which key" question on 64 tokens drew 64 rows, 3,666 px tall; and (this session's
    audit) a word repeated 63 times, 63 keys tied and all right, drew them all again, while with seven right
    options the wrong one 20 of 21 students chose was folded away. Whatever the options, the answers and the
    reveal: at most ``PROJECTOR_ROWS`` rows, 720 px or less; the most chosen option by name; every chosen option
    by name while there is room for them all and two folded rows; a folded row holds two options or more, of one
    kind (right, after the reveal, or not), and says how many, with their answers together, counted here from the
    answers themselves; every option in one row exactly."""
    options = [f"w{k}" for k in range(n)]
    right = data.draw(st.sets(st.sampled_from(options), min_size=1, max_size=3) | st.sets(st.sampled_from(options),
                      min_size=min(n, V.PROJECTOR_ROWS - 1), max_size=n))  # a few right, or many (keys tied)
    answer, *also = sorted(right)
    record = {"key": "x-most", "prompt": "?", "options": options, "answer": answer, "also": also,
              "explanation": "", "low": None, "high": None}
    answers = [options[p % n] for p in picks]
    rows = V.projector_rows(record, answers, revealed)
    height = float(re.search(r'<svg[^>]*\bheight="([\d.]+)"', str(V.projector_tally_figure(record, answers,
                                                                                         revealed))).group(1))
    assert len(rows) <= V.PROJECTOR_ROWS and height <= 720, (len(rows), height)
    named = [r.name for r in rows if not r.folded]
    assert len(set(named)) == len(named) and set(named) <= set(options)
    for r in rows:
        if not r.folded:
            assert r.count == answers.count(r.name) and r.right == (revealed and r.name in right)
    folded = [r for r in rows if r.folded]
    assert len(named) + sum(r.folded for r in folded) == n  # every option, once
    assert all(r.folded >= 2 for r in folded) and len(folded) <= (2 if revealed else 1)
    rest = [o for o in options if o not in named]
    for r in folded:
        kind = [o for o in rest if (revealed and o in right) == r.right]
        assert r.folded == len(kind) and r.count == sum(answers.count(o) for o in kind)
        other = any(q.right for q in rows if not q.folded) if r.right else len(rows) > 1  # others shown
        assert r.name == (f"{len(kind)} {'other ' * other}right options" if r.right else
                          f"{len(kind)} other options" if other else f"all {n} options")
    if answers:
        assert max(set(answers), key=answers.count) in named or max(map(answers.count, options)) == \
            sorted(map(answers.count, options))[-2]  # the most chosen by name (unless tied with another)
    if len(set(answers)) <= V.PROJECTOR_ROWS - 2:
        assert set(answers) <= set(named)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 64), st.lists(st.integers(0, 63), max_size=80), st.integers(0, 40), st.data())
def test_a_students_device_reads_the_classs_result_counted_from_the_answers_themselves(n, picks, absent, data):
    """Issue 44: after the reveal each student reads the class's result as text, not only the projector's chart.
    Whatever the options and answers: how many answered of how many joined, how many were right (counted here from
    the answers and the right set), and every answer counted once: the counts written add up to the answers, each
    option named has its own count, a ✓ only beside right ones."""
    options = [f"w{k}" for k in range(n)]
    right = data.draw(st.sets(st.sampled_from(options), min_size=1, max_size=n))
    answer, *also = sorted(right)
    record = {"key": "x-most", "prompt": "?", "options": options, "answer": answer, "also": also,
              "explanation": "", "low": None, "high": None}
    answers = [options[p % n] for p in picks]
    joined = len(answers) + absent  # each answer is one student's; some joined and did not answer
    text = V.class_result_text(record, answers, joined)
    students = f"{joined} student{'' if joined == 1 else 's'}"
    if not answers:
        assert text == f"**The class:** nobody answered, of {students}."
        return
    good = sum(a in right for a in answers)
    percent = math.floor(Fraction(100 * good, len(answers)) + Fraction(1, 2))  # half up, exactly (Python's round()
    # halves to even: 1 of 8 is 12.5 %, which the screen, like every number on it, writes 13 %)
    share = ("0 %" if good == 0 else "100 %" if good == len(answers) else "< 1 %" if percent == 0
             else "> 99 %" if percent == 100 else f"{percent} %")
    assert text.startswith(f"**The class:** {len(answers)} of {students} answered; {good} of {len(answers)} "
                           f"({share}) right. Answers: ")
    items = text.split(" Answers: ", 1)[1].removesuffix(".").split(", ")
    counted = 0
    for item in items:
        name, count = re.fullmatch(r"(✓ )?(.+): (\d+)(?: together)?", item).group(0, 3)
        mark, name = item.startswith("✓ "), item.removeprefix("✓ ").rsplit(": ", 1)[0]
        counted += int(count)
        if name in options:
            assert int(count) == answers.count(name) and mark == (name in right)
        else:  # a folded row: "k other options", "k other right options"
            assert re.fullmatch(r"(all )?\d+ (other )?(right )?options", name) and mark == ("right" in name)
    assert counted == len(answers)


def test_a_share_on_a_half_rounds_up_as_every_number_on_screen_does():
    """Found by CI: 1 of 8 right is 12.5 %; Python's round() would write 12, the screen's rule writes 13."""
    record = {"key": "x", "prompt": "?", "options": ["w0", "w1"], "answer": "w1", "also": [],
              "explanation": "", "low": None, "high": None}
    assert "1 of 8 (13 %) right" in V.class_result_text(record, ["w0"] * 7 + ["w1"], 8)
    assert "3 of 8 (38 %) right" in V.class_result_text(record, ["w0"] * 5 + ["w1"] * 3, 8)


def test_a_number_questions_result_on_a_students_device_is_the_spread_and_the_right_share():
    question = {"prompt": "α?", "options": [], "answer": 0.4125, "low": 0.41, "high": 0.415, "explanation": ""}
    assert V.class_result_text(question, ["0.41", "0.42", "0.43", "0.40", "0.42"], 7) == (
        "**The class:** 5 of 7 students answered; 3 of 5 (60 %) right. Guesses from 0.40 to 0.43, median 0.42.")


@pytest.mark.parametrize("n, tied", [(9, 9), (9, 8), (12, 11), (12, 8), (64, 63)])
def test_after_the_reveal_tied_right_options_fold_into_one_right_row_and_no_row_holds_one_option(n, tied):
    """This session's review and audit: a word repeated nine times ties nine keys, every one right. Revealed, the
    chart drew the nine and a tenth row "0 other options"; with 63 tied, 64 rows (3,666 px). The right options
    nobody chose fold into one right row ("✓ 60 other right options"); an option left alone is shown by name."""
    options = [f"w{k}" for k in range(n)]
    record = {"key": "x-most", "prompt": "?", "options": options, "answer": options[0], "also": options[1:tied],
              "explanation": "", "low": None, "high": None}
    rows = V.projector_rows(record, options[:3], revealed=True)
    assert len(rows) <= V.PROJECTOR_ROWS
    assert [r.name for r in rows[:3]] == options[:3] and all(r.right for r in rows[:3])
    wrong = options[tied:]
    assert rows[3:] == [V.ProjectorRow(f"{tied - 3} other right options", 0, True, tied - 3)] + (
        [V.ProjectorRow(wrong[0], 0, False)] if len(wrong) == 1 else
        [V.ProjectorRow(f"{len(wrong)} other options", 0, False, len(wrong))] if wrong else [])
    svg_text = str(V.projector_tally_figure(record, options[:3], revealed=True))
    assert f"✓ {tied - 3} other right options" in svg_text


def test_the_projectors_status_and_results_are_large_and_read_at_4_5_to_1_in_both_themes():
    """Issue 47: the projector's status line was a 12 px grey caption. Its status, results and the question's numbers
    are 1.75 rem (28 px) in the theme's text colours, whose contrast on Streamlit's light and dark backgrounds is
    computed here from the colours the page's CSS uses (WCAG AA: 4.5:1 for text)."""
    from tests.test_view import STREAMLIT_DARK, contrast
    from ui import classmode as C

    light, dark = re.search(r"color: light-dark\((#[0-9a-f]{6}), (#[0-9a-f]{6})\)", C.PROJECTOR_CSS).groups()
    assert (light, dark) == C.PROJECTOR_TEXT
    assert contrast(light, (255, 255, 255)) >= 4.5
    assert all(contrast(dark, background) >= 4.5 for background in STREAMLIT_DARK)
    rule = re.search(r"\.st-key-projector-status p,[^{]*\{([^}]*)\}", C.PROJECTOR_CSS).group(1)
    assert float(re.search(r"font-size: ([\d.]+)rem", rule).group(1)) * 16 >= 24  # large text, from afar


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(SENTENCES), st.integers(0, 10_000), st.sampled_from([1, 2, 4]), st.booleans())
def test_a_heads_numbers_are_titled_with_that_heads_number_and_the_walkthroughs_with_none(sentence, seed, h, causal):
    """Issue 47 (audit): "Row i of Z" on multi-head attention did not say whose Z. Head k's rows are titled "Row i of
    head k's Z/α", k counted from 1 as the page's "Head" menu does; a single-head lesson's name no head. And (issue 44's
    third audit) each head's question says whose it is from its first words: two heads' questions read alike in a
    class's history and export, where the numbers' box is not shown."""
    mh = A.trace_multi_head(sentence, n_heads=h, seed=seed, causal=causal)
    for k, head in enumerate(mh.heads):
        for q in make_questions(head):
            assert q.prompt.startswith(f"Head {k + 1}: ") and not q.prompt.startswith(f"Head {k + 1}: Head"), q.prompt
            if q.key.endswith("-shape"):  # the page's W_Q is [d_model × d_model]: the head's is its columns
                d_k = mh.d_k
                assert f"this head's W_Q, columns {k * d_k + 1}–{(k + 1) * d_k} of W_Q, is [{mh.d_model} × {d_k}]" \
                    in q.prompt, q.prompt
            shown = V.shown_of(V.question_record(q))
            if shown is not None:
                assert re.fullmatch(rf"Row \d+ of head {k + 1}'s [Zα] \(the query “.+”\)", shown.title), shown.title
                assert shown.text().startswith(shown.title)
    for q in make_questions(A.trace_self_attention(sentence, seed=seed, causal=causal)):
        assert not q.prompt.startswith("Head")
        shown = V.shown_of(V.question_record(q))
        assert shown is None or re.fullmatch(r"Row \d+ of [Zα] \(the query “.+”\)", shown.title)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(SENTENCES), st.integers(0, 10_000), st.booleans(),
       st.sampled_from(["step", "shown", "key", None]))
def test_a_question_stored_without_its_step_or_numbers_is_not_offered_and_borrows_only_its_own_lessons_numbers(
        sentence, seed, causal, dropped):
    """Issue 47 (audit): records stored before questions carried their step and numbers. Such a record is not
    ``current`` (the desk does not offer it); one that needs numbers shows those of the current record with its key
    (the same lesson state), never another lesson's, and none when there is no such record."""
    records = [V.question_record(q) for q in make_questions(A.trace_self_attention(sentence, seed=seed,
                                                                                  causal=causal))]
    other = [V.question_record(q) for q in make_questions(A.trace_self_attention(sentence + " too", seed=seed + 1,
                                                                                causal=causal))]
    for r in records:
        assert V.current(r)
        old = {k: v for k, v in r.items() if k != dropped}
        if dropped is not None:
            assert not V.current(old)
        if dropped == "key":  # no lesson writes a record without one: nothing to borrow by
            continue
        numberless = {k: v for k, v in old.items() if k != "shown"}
        want = V.shown_of(r)
        assert (want is not None) == V.needs_numbers(r)
        assert V.shown_for(numberless, records) == want
        assert V.shown_for(numberless, other) is None and V.shown_for(numberless, None) is None
        assert V.shown_for(numberless, [numberless]) is None  # a stale record lends nothing


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
                    max_leaves=12)
RECORD_KEYS = ("key", "prompt", "options", "answer", "also", "explanation", "step", "shown", "low", "high")


@settings(max_examples=200, deadline=None)
@given(st.one_of(JSON, st.fixed_dictionaries({}, optional={"questions": JSON | st.lists(
    st.dictionaries(st.sampled_from(RECORD_KEYS), JSON, max_size=10), max_size=3), "open_step": JSON,
    "page": JSON, "query": JSON})))
def test_whatever_a_stored_class_state_holds_the_desk_reads_it_without_failing(state):
    """Review of issue 47: the desk read a class's stored state (data from anyone) unchecked: questions that were
    a dict, a record whose prompt was a number, or an open step of "²" raised. Whatever the state holds, the
    questions it offers can be listed and labelled, and its open step is a whole step number or None."""
    older, offered, step = V.stored_questions(state)
    assert older >= 0
    assert step is None or (isinstance(step, int) and not isinstance(step, bool) and step > 0)
    for q in offered:
        assert isinstance(V.ask_label(q, True), str) and isinstance(q["key"], str)
        V.shown_for(q, state.get("questions"))
    if offered:
        V.ask_list(offered, step)


def test_only_a_question_an_earlier_version_stored_is_called_one():
    """This session's audit: the desk said "stored by an earlier version of the app, without the numbers" of
    records that are no questions at all (a number, a string, a record whose prompt is a number)."""
    record = V.question_record(make_questions(A.trace_self_attention("the cat sat", seed=1))[0])
    old = {k: v for k, v in record.items() if k not in ("step", "shown")}
    assert V.stored_questions({"questions": [1, "x", {**record, "prompt": 5}]}) == (0, [], None)
    assert V.stored_questions({"questions": [old, 1], "open_step": 3}) == (1, [], 3)
    assert V.stored_questions({"questions": [old, record], "open_step": True}) == (1, [record], None)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([*SENTENCES, "A", "😀 😀"]), st.integers(0, 100_000), st.booleans(),
       st.booleans(), st.sampled_from([1, 2, 4, 8]), st.sampled_from([None, 0, 3]))
def test_a_step_asks_the_questions_made_for_it_and_only_steps_that_have_some_make_them(sentence, seed, causal,
                                                                                      positional, d_k, head):
    """``questions_for_step`` skips the steps without questions (``QUESTION_STEPS``): every question is made for one of
    them, and each step asks exactly the questions made for it (a head's questions too)."""
    trace = A.trace_self_attention(sentence, seed=seed, causal=causal, positional=positional, d_k=d_k)
    if head is not None:
        trace = replace(trace, head=head)
    made = make_questions(trace)
    assert {q.step for q in made} <= QUESTION_STEPS
    for step in range(1, 9):
        assert questions_for_step(trace, step) == [q for q in made if q.step == step]
