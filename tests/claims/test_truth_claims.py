"""Issue 32's claims: sentences that write numbers a learner can check with a calculator, each checked over a
family of inputs as the learner would check it (tests/written.py reads the text; it never asks the rule
that chose the decimals)."""

from __future__ import annotations

import itertools
import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import SentenceError, trace_self_attention
from attention.phonebook import DEFAULT_BOOK, lookup
from attention.pretrained.common import Scan
from tests import written
from tests.claims.families import D_MODELS, SEEDS, SENTENCES
from tests.claims.test_parts_claims import family as parts_family
from viz import arithmetic as A
from viz import formulas as L
from viz import phonebook as PB
from viz import pretrained as PR
from viz import tables as T
from viz.exercises import make_questions
from viz.labels import format_number, token_labels
from viz.parts import what_changed


def traces():
    for sentence, d_model, seed, causal in itertools.product(SENTENCES, D_MODELS, SEEDS[:3], (False, True)):
        try:
            yield trace_self_attention(sentence, d_model=d_model, d_k=max(1, d_model // 2), seed=seed, causal=causal)
        except SentenceError:
            continue


def test_row_sums_name_exactly_the_rows_whose_two_decimal_cells_do_not_add_up_to_one():
    """Step 7's and cross-attention's caption: "Every row of α sums to 1." then the rows whose cells, as the
    table shows them, add up to something else, with that sum; "So do the two-decimal cells" only when none."""
    named_some = named_none = 0
    for t in traces():
        labels = token_labels(t.tokens)
        text = T.row_sums_text(t.weights, labels, t.mask)
        assert text.startswith("Every row of α sums to 1.")
        assert np.allclose(t.weights.sum(axis=1), 1.0)
        off = {}
        for r in range(t.n):  # what a learner adds up: the cells the table writes (masked ones are "—")
            total = sum(written.value(format_number(a)) for a, ok in zip(t.weights[r], t.mask[r], strict=True) if ok)
            if total != 1:
                off[labels[r]] = total
        if not off:
            named_none += 1
            assert "So do the two-decimal cells of every row here." in text
            continue
        named_some += 1
        for label, total in list(off.items())[:4]:
            assert f"“{label}” to {format_number(float(total))}" in text
        assert "each cell is rounded on its own" in text
    assert named_some and named_none  # the family meets both cases


def test_the_scale_factor_is_written_with_equals_only_when_it_is_exact():
    """Step 6: z = s/√d_k "= 0.5 · s" for d_k 4, "≈ 0.354 · s" for d_k 8: "=" only where 1/√d_k·T is exact at
    the three decimals written."""
    for d_k, temperature in itertools.product(range(1, 17), (1.0, 0.5, 2.0, 0.05)):
        x = 1 / (np.sqrt(d_k) * temperature)
        written_factor = L.factor(x)
        relation, number = written_factor.split(" ")
        assert (relation == "=") == (written.value(number) == x)


@settings(max_examples=80)
@given(st.lists(st.sampled_from(DEFAULT_BOOK), min_size=1, max_size=6, unique=True),
       st.sampled_from(["Jindrich", "Jindřich", "Jan", "Marta", "zzz", "a"]),
       st.sampled_from([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0]))
def test_the_phonebooks_soft_answer_adds_up_from_the_weights_in_its_table(book, query, temperature):
    """"Soft answer: Σ α_j v_j = [...] (its α are in the table below, to N decimals: multiply each by its
    name's digits and add)": the table's α at N decimals, times the digits, add up to each shown digit."""
    names, phones = zip(*book, strict=True)
    result = lookup(list(names), list(phones), query, temperature=temperature)
    text = PB.soft_answer(result)
    relation, shown = re.search(r"Σ α_j v_j (=|≈) \[([^\]]*)\]", text).groups()
    places = int(re.search(r"to (\d+) decimals", text).group(1))
    assert places == abs(PB.weight_decimals(result)) >= 3
    alphas = [written.value(format_number(a, places)) for a in result.weights]
    sums = [sum(a * written.value(str(int(v))) for a, v in zip(alphas, result.values[:, c], strict=True))
            for c in range(len(shown.split()))]
    if relation == "=":
        assert all(written.rounds_to(exact, digit) for exact, digit in zip(sums, shown.split(), strict=True))
    else:  # "≈" only where six decimals don't give it either
        assert places == 6


@settings(max_examples=150)
@given(st.floats(1e-4, 1.0), st.floats(-3.0, 6.0), st.integers(0, 2**31 - 1))
def test_the_scans_sentence_writes_p_before_and_after_as_the_drop_gives_them(p, drop, seed):
    """"lowers its log-probability most, by D (p A → B)": A·e^(−D) gives B as shown, and the heads counted
    as lowering it "by more than 0.1" are those the map and the ranking show above 0.100."""
    rng = np.random.default_rng(seed)
    drops = rng.normal(0, 0.1, size=(3, 9))
    drops[1, 4] = max(drop, float(drops.max()) + 1e-6)
    scan = Scan(token=1, log_p=float(np.log(p)), layers=(0, 1, 2), drops=drops, seconds=1.0)
    text = PR.scan_text(scan, "x")
    d, before, near, after = re.search(r"by (−?\d+\.\d+) \(p (\d+\.\d+) → (≈ )?(\d+\.\d+)\)", text).groups()
    value = float(written.value(before)) * np.exp(-float(written.value(d)))
    if near:  # "≈" only where six decimals do not give it either
        assert written.decimals(d) == 6
    else:
        assert abs(value - float(after)) < 0.5 * 10.0 ** -written.decimals(after)
    helped = int(re.search(r"(\d+) lowers? it by more than 0.1", text).group(1))
    assert helped == sum(written.value(format_number(x, 3)) > written.value("0.1") for x in drops.ravel())


@settings(max_examples=200)
@given(st.floats(0, 1), st.sampled_from([0.5, 0.3, 0.25, 0.1]))
def test_a_measure_beside_its_threshold_shows_on_its_own_side(value, threshold):
    """A heads-with-a-job reading "0.497, below 0.5" (never "0.50, below 0.5"): the number as written is on
    the side of the threshold the sentence puts it."""
    shown = float(format_number(value, A.beside(value, threshold)))
    assert (shown < threshold) == (value < threshold)


def test_stage_two_says_the_largest_difference_between_the_two_output_tables_as_shown():
    """Attention from its parts, stage 2: "the output's entries moved by up to X (the largest difference between
    the two output tables)": X is what a learner gets subtracting the two tables' two-decimal cells."""
    for _sentence, _d_model, _seed, (one, two, _three) in parts_family():
        said = re.search(r"moved by up to (\d+\.\d+)", what_changed(one, two, 2)).group(1)
        cells = [[written.value(format_number(x)) for x in row] for row in two.output.tolist()]
        before = [[written.value(format_number(x)) for x in row] for row in one.output.tolist()]
        largest = max(abs(a - b) for ra, rb in zip(cells, before, strict=True) for a, b in zip(ra, rb, strict=True))
        assert written.value(said) == largest


def test_the_alpha_question_explains_its_answer_with_numbers_that_give_it():
    """"Predict first": α_ij = e^(z − m) / Σ e^(z − m) = a / b = α: the quotient of the shown numbers gives
    the shown α (or the line says ≈)."""
    checked = 0
    for t in traces():
        for q in make_questions(t):
            if q.key.endswith("-alpha"):
                written_out = q.explanation.split(". ")[0]  # then: which answers count, the scores being rounded
                relation, _exact, shown = written.check(written_out.rstrip("."))
                assert shown == format_number(float(q.answer)) or relation == "≈"
                checked += 1
    assert checked > 100
