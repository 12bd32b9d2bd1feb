"""The phonebook lookup: a hand-computed soft lookup, T → 0, edits, and the page."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention.phonebook import (
    DEFAULT_BOOK,
    MAX_ENTRIES,
    clean_entries,
    digit_vectors,
    digits,
    lookup,
    name_ngrams,
    name_vectors,
    shared_ngrams,
)
from tests.table_reading import shown_table
from tests.test_pages import assert_no_exception, run_app, set_widget, table
from viz import phonebook as P

PAGE = "lessons/phonebook.py"
BOOK_NAMES, BOOK_PHONES = [n for n, _ in DEFAULT_BOOK], [p for _, p in DEFAULT_BOOK]


def cosine(a: str, b: str) -> float:
    return float(np.prod(name_vectors([a, b])[1], axis=0).sum())


def test_soft_lookup_matches_a_hand_computed_example():
    # Two entries; the query equals the first name, so its score is 1 (unit vectors).
    names, phones = ["Ana", "Bob"], ["10", "32"]
    r = lookup(names, phones, "Ana", temperature=0.5)
    assert r.scores[0] == pytest.approx(1.0) and r.scores[1] == 0.0  # no shared trigram: 0
    # α = softmax([1, 0] / 0.5) = [e²/(e²+1), 1/(e²+1)]
    a = math.e**2 / (math.e**2 + 1)
    np.testing.assert_allclose(r.weights, [a, 1 - a])
    # values are digit vectors [1, 0] and [3, 2]: soft = a·[1, 0] + (1 - a)·[3, 2]
    np.testing.assert_allclose(r.soft, [a * 1 + (1 - a) * 3, (1 - a) * 2])
    assert r.exact and r.hard_index == 0


def test_cosine_of_trigram_counts_by_hand():
    # "Jan" = {#ja, jan, an#}; "Jana" = {#ja, jan, ana, na#}: 2 shared, cosine 2 / (√3 · √4)
    assert cosine("Jan", "Jana") == pytest.approx(2 / (math.sqrt(3) * math.sqrt(4)))
    # "Anna" = {#an, ann, nna, na#}; "Hana" = {#ha, han, ana, na#}: only "na#" shared
    assert cosine("Hana", "Anna") == pytest.approx(1 / 4) and shared_ngrams("Hana", "Anna") == ["na#"]
    # "aaa" = {#aa, aaa, aa#}, counts 1 each; "aaaa" = {#aa, aaa ×2, aa#}: (1 + 2 + 1) / (√3 · √6)
    assert cosine("aaa", "aaaa") == pytest.approx(4 / (math.sqrt(3) * math.sqrt(6)))


def test_what_hashing_got_wrong_is_gone():
    assert cosine("Honza", "Anna") == 0.0  # no shared trigram, no similarity
    assert cosine("Heinrich", "Anna") == 0.0  # never negative
    assert cosine("Jiřina", "Jiří") > cosine("Jiřina", "Dietrich")  # two shared trigrams beat none
    for short in ["Ui", "Az", "x", ""]:  # every name has a trigram, so a non-zero vector
        assert np.linalg.norm(name_vectors([short])[1][0]) == pytest.approx(1.0)


names_st = st.lists(st.text(alphabet="abcdeřAB ", min_size=1, max_size=6).filter(str.strip), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None)
@given(names_st, st.text(alphabet="abcdeřAB ", min_size=1, max_size=6))
def test_scores_depend_only_on_shared_trigrams(names, query):
    r = lookup(names, ["1"] * len(names), query)
    for name, score in zip(names, r.scores, strict=True):
        shared = set(name_ngrams(name)) & set(name_ngrams(query))
        assert (score > 0) == bool(shared)  # above 0 exactly when a trigram is shared
        assert 0.0 <= score <= 1.0 + 1e-12


@settings(max_examples=150, deadline=None)
@given(names_st, st.text(alphabet="abcdeřAB ", min_size=1, max_size=6), st.data())
def test_as_temperature_goes_to_zero_soft_tends_to_the_tied_average(names, query, data):
    phones = [data.draw(st.from_regex(r"\d{1,4}", fullmatch=True)) for _ in names]
    cold = lookup(names, phones, query, temperature=1e-6)
    best = np.flatnonzero(cold.scores == cold.scores.max())
    assert set(best) <= set(cold.best)
    np.testing.assert_allclose(cold.soft, cold.cold, atol=1e-6)  # the average of the tied numbers
    assert cold.hard_index in cold.best  # the hard answer is one of the best (an exact match is, too)
    if len(cold.best) == 1:
        np.testing.assert_allclose(cold.soft, cold.hard, atol=1e-6)  # no tie: soft becomes hard


def test_a_query_that_shares_nothing_ties_every_name():
    r = lookup(BOOK_NAMES, BOOK_PHONES, "zzz")
    assert np.all(r.scores == 0) and r.best == tuple(range(len(BOOK_NAMES)))
    np.testing.assert_allclose(r.weights, 1 / len(BOOK_NAMES))


def test_hard_lookup_prefers_an_exact_match_and_else_the_best_score():
    assert lookup(BOOK_NAMES, BOOK_PHONES, "  anna ").exact  # case and spaces don't matter
    r = lookup(BOOK_NAMES, BOOK_PHONES, "Jindrich")  # the default query is not in the book…
    assert not r.exact and r.names[r.hard_index] == "Jindřich"  # …but its closest spelling is
    assert shared_ngrams("Jindrich", "Jindřich") == ["#ji", "jin", "ind", "ich", "ch#"]


def test_a_duplicated_name_ties_and_the_message_says_what_happens():
    names, phones, messages = clean_entries([("Anna", "12"), ("Bob", "34"), ("anna", "56")])
    r = lookup(names, phones, "Anna", temperature=1e-6)
    assert r.best == (0, 2) and r.hard_index == 0  # the hard lookup returns the first
    np.testing.assert_allclose(r.weights[[0, 2]], 0.5)  # the soft lookup weighs both equally
    assert "hard lookup returns the first (row 1)" in messages[0] and "same weight" in messages[0]


def test_digits_and_digit_vectors():
    assert digits("+420 601-234") == [4, 2, 0, 6, 0, 1, 2, 3, 4]
    np.testing.assert_array_equal(digit_vectors(["12", "345"]), [[1, 2, 0], [3, 4, 5]])


def test_edits_give_messages_not_exceptions():
    names, phones, messages = clean_entries(
        [("Ana", "12"), ("", "34"), ("Bob", "no digits"), (None, None), ("ana", "56"), (float("nan"), "7")]
    )
    assert names == ["Ana", "ana"] and phones == ["12", "56"]
    assert any("Row 2" in m and "no name" in m for m in messages)
    assert any("Row 3" in m and "no digits" in m for m in messages)
    assert any("appears twice" in m for m in messages)
    assert clean_entries([]) == ([], [], [])
    with pytest.raises(ValueError, match="empty"):
        lookup([], [], "x")


def test_page_default_and_controls():
    at = run_app().switch_page(PAGE).run()
    assert_no_exception(at)
    frame = shown_table(at, "pb-lookup")
    r = lookup(BOOK_NAMES, BOOK_PHONES, "Jindrich", temperature=0.2)
    np.testing.assert_allclose(frame["weight α"].astype(float), r.weights, atol=0.0005 + 1e-9)
    assert any("Jindřich" in m.value for m in at.markdown if "Hard answer" in m.value)
    # Jindřich's number, 601 234 567, digit by digit as whole numbers, beside the soft blend
    assert list(shown_table(at, "pb-answers").iloc[:, 0]) == list("601234567")
    at = set_widget(at, "pb_temperature", 0.01)
    cold = lookup(BOOK_NAMES, BOOK_PHONES, "Jindrich", temperature=0.01)
    np.testing.assert_allclose(table(at, "pb-answers")[:, 1], cold.soft, atol=0.005 + 1e-9)  # the engine's blend
    np.testing.assert_allclose(cold.soft, r.hard, atol=0.1)  # already close to the hard answer at T = 0.01
    at = set_widget(at, "pb_query", "Anna")
    assert any("an exact match" in m.value and "Anna" in m.value for m in at.markdown)
    at = set_widget(at, "pb_query", "Qwxz")
    hard = next(m.value for m in at.markdown if "Hard answer" in m.value)
    assert "no name shares a letter triple" in hard and "all 7 names tie" in hard and "plain average" in hard
    at = set_widget(at, "pb_query", "Jiri")  # hashing tied three names here; now Jiří (two shared triples) is best
    hard = next(m.value for m in at.markdown if "Hard answer" in m.value)
    r = lookup(BOOK_NAMES, BOOK_PHONES, "Jiri", temperature=0.2)
    assert (f"{len(r.best)} names tie" in hard) == (len(r.best) > 1)
    at = set_widget(at, "pb_query", "   ")
    assert_no_exception(at)
    assert "Type a name" in at.info[0].value
    assert at.sidebar.code  # the rest of the app still runs: the share-link box is there


def test_numbers_in_any_script_and_names_with_control_characters():
    assert digits("٦٠١ ٢٣٤") == [6, 0, 1, 2, 3, 4]  # Arabic-Indic
    assert digits("６０１-２３") == [6, 0, 1, 2, 3]  # fullwidth
    assert digits("x²") == []  # a superscript is not a digit of a phone number
    names, phones, messages = clean_entries([("An\x00na", "١٢"), ("Bob\x1b[2J", "7"), ("Cy", "٣")])
    assert names == ["An␀na", "Bob␛[2J", "Cy"] and not messages  # shown, not mangled or dropped
    r = lookup(names, phones, "Anna")
    np.testing.assert_array_equal(r.values[0], [1, 2])


def test_a_huge_paste_is_cut_to_the_limit_with_a_message():
    rows = [(f"Name {i}", f"{i}") for i in range(1000)]
    names, _, messages = clean_entries(rows)
    assert len(names) == MAX_ENTRIES and names[-1] == f"Name {MAX_ENTRIES - 1}"
    assert any("1,000 names" in m and f"Rows {MAX_ENTRIES + 1} onwards" in m for m in messages)
    from tests.svg_reading import texts
    from viz.phonebook import key_bars
    fig = key_bars(lookup(names, ["1"] * len(names), "Name 3"), soft=True)
    assert texts(fig, "barlabel") == [] and len(texts(fig, "xtick")) == MAX_ENTRIES  # no 50 numbers; the table has them


@settings(max_examples=100, deadline=None)
@given(names_st, st.text(alphabet="abcdeřAB ", min_size=1, max_size=6), st.data(),
       st.sampled_from([0.05, 0.2, 1.0, 5.0]))
def test_the_soft_lookup_is_one_query_of_an_attention_head(names, query, data, temperature):
    """The model map's claim: the phonebook is one query of a head, with T where a head has √d_k."""
    from attention.core import scaled_dot_product_attention
    phones = [data.draw(st.from_regex(r"\d{1,4}", fullmatch=True)) for _ in names]
    r = lookup(names, phones, query, temperature=temperature)
    output, weights = scaled_dot_product_attention(r.q[None, :], r.keys, r.values, scale=1 / temperature)
    np.testing.assert_allclose(weights[0], r.weights, atol=1e-12)
    np.testing.assert_allclose(output[0], r.soft, atol=1e-9)


@pytest.mark.parametrize("temperature", [0.05, 0.5, 1.0, 5.0])
@pytest.mark.parametrize("query", ["zzz", "Anna", "x"])
def test_a_book_of_one_name_gives_its_number_at_every_temperature(query, temperature):
    """"The soft lookup, with one name, gives its number at every temperature": its one weight is 1 exactly, its
    soft answer the number's digits, whatever the query shares with the name."""
    r = lookup(["Anna"], ["601 234"], query, temperature=temperature)
    assert r.weights.tolist() == [1.0]
    np.testing.assert_array_equal(r.soft, r.values[0])
    if not r.scores.max() > 0:
        assert "its one score is 0" in P.hard_answer(r) and "gives its number" in P.hard_answer(r)
