"""The phonebook lookup: a hand-computed soft lookup, T → 0, edits, and the page."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention.phonebook import (
    DEFAULT_BOOK,
    clean_entries,
    digit_vectors,
    digits,
    lookup,
    name_embedding,
    name_ngrams,
)
from tests.test_pages import assert_no_exception, run_app, set_widget, table

PAGE = "lessons/phonebook.py"


def test_soft_lookup_matches_a_hand_computed_example():
    # Two entries; the query equals the first name, so its score is 1 (unit vectors).
    names, phones = ["Ana", "Bob"], ["10", "32"]
    r = lookup(names, phones, "Ana", temperature=0.5)
    s_bob = float(name_embedding("Ana") @ name_embedding("Bob"))  # no shared trigram: 0
    assert r.scores[0] == pytest.approx(1.0) and s_bob == 0.0
    # α = softmax([1, 0] / 0.5) = [e²/(e²+1), 1/(e²+1)]
    a = math.e**2 / (math.e**2 + 1)
    np.testing.assert_allclose(r.weights, [a, 1 - a])
    # values are digit vectors [1, 0] and [3, 2]: soft = a·[1, 0] + (1 - a)·[3, 2]
    np.testing.assert_allclose(r.soft, [a * 1 + (1 - a) * 3, (1 - a) * 2])
    assert r.exact and r.hard_index == 0


def test_as_temperature_goes_to_zero_soft_becomes_hard():
    names, phones = [n for n, _ in DEFAULT_BOOK], [p for _, p in DEFAULT_BOOK]
    for query in ["Jindrich", "Anna", "Dietrich", "zzz"]:
        cold = lookup(names, phones, query, temperature=1e-4)
        if np.sort(cold.scores)[-1] - np.sort(cold.scores)[-2] > 1e-2:  # a unique best key
            np.testing.assert_allclose(cold.soft, cold.hard, atol=1e-6)


def test_hard_lookup_prefers_an_exact_match_and_else_the_best_score():
    names, phones = [n for n, _ in DEFAULT_BOOK], [p for _, p in DEFAULT_BOOK]
    assert lookup(names, phones, "  anna ").exact  # case and spaces don't matter
    r = lookup(names, phones, "Jindrich")  # the default query is not in the book…
    assert not r.exact and r.names[r.hard_index] == "Jindřich"  # …but its closest spelling is


def test_similar_spellings_have_similar_keys():
    jindrich = name_embedding("Jindrich")
    assert jindrich @ name_embedding("Jindřich") > jindrich @ name_embedding("Anna")
    assert name_ngrams("Jan") == ["#ja", "jan", "an#"]
    np.testing.assert_allclose(np.linalg.norm(name_embedding("Heinrich")), 1.0)


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
    frame = at.get_by_key("table-pb-lookup").table[0].value
    r = lookup([n for n, _ in DEFAULT_BOOK], [p for _, p in DEFAULT_BOOK], "Jindrich", temperature=0.2)
    np.testing.assert_allclose(frame["weight α"].astype(float), r.weights, atol=0.0005 + 1e-9)
    assert any("Jindřich" in m.value for m in at.markdown if "Hard answer" in m.value)
    at = set_widget(at, "pb_temperature", 0.01)
    np.testing.assert_allclose(table(at, "pb-answers")[1], r.hard, atol=0.01)  # soft ≈ hard at T = 0.01
    at = set_widget(at, "pb_query", "Anna")
    assert any("an exact match" in m.value and "Anna" in m.value for m in at.markdown)
    at = set_widget(at, "pb_query", "   ")
    assert_no_exception(at)
    assert "Type a name" in at.info[0].value
