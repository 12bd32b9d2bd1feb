"""The truth audit of the languages' work (issue 45, 2026-12-05): the inputs that broke an English sentence, each now a
test that it holds (the audit's table is in the issue's closing note)."""

from __future__ import annotations

import re
import unicodedata

import numpy as np

from attention import trace_self_attention
from attention.phonebook import clean_book, lookup
from ui.view import panel
from viz import exports as X
from viz import figures as F
from viz import phonebook as P
from viz import tables as T


def test_a_tie_with_an_exact_match_says_the_hard_lookup_takes_the_exact_match():
    """"Annana" and "Ananna" share every letter triple: a tie at the best score, and the exact match is row 2."""
    r = lookup(["Annana", "Ananna"], ["111", "222"], "Ananna")
    text = P.hard_answer(r)
    assert r.hard_index == 1 and r.best == (0, 1) and r.exact
    assert "takes the first exact match" in text and "first of them in the book" not in text
    assert "**Ananna** (row 2)" in text


def test_tied_names_with_one_number_tend_to_the_hard_answer_and_say_so():
    r = lookup(["Jan", "jan"], ["123", "123"], "Jan")
    assert np.array_equal(r.cold, r.hard)  # the T → 0 limit is the hard answer's number
    text = P.hard_answer(r)
    assert "not to the hard answer" not in text and "which have the same digits: the hard answer" in text
    r = lookup(["Jan", "jan"], ["123", "456"], "Jan")
    assert not np.array_equal(r.cold, r.hard) and "not to the hard answer" in P.hard_answer(r)


def test_the_hard_answer_numbers_rows_as_the_learners_table_and_its_warnings_do():
    """Row 1 ("Ann", no digits) is left out and said so as row 1: Bob is row 2 of the learner's table."""
    book = clean_book([("Ann", "none"), ("Bob", "123"), ("Bob", "456")])
    assert any("Row 1" in str(m) for m in book.messages) and book.rows == [2, 3]
    text = P.hard_answer(lookup(book.names, book.phones, "Bob"), book.rows)
    assert "**Bob** (row 2)" in text and "“Bob” (row 3)" in text and "(row 1)" not in text


def test_the_handouts_positional_row_says_what_x_is_when_they_are_off():
    for positional, said in ((False, "not added: X is the embeddings alone"), (True, "added to the embeddings")):
        page = X.handout_html(trace_self_attention("the cat sat", d_model=8, d_k=4, positional=positional))
        row = re.search(r"positional encodings \(P\).*?</tr>", page, re.S).group(0)
        assert said in row and ("on" if positional else "off") in row


def test_the_handouts_title_is_cut_between_characters_a_reader_sees_as_one():
    for tail in (" 👨\u200d👩\u200d👧 end", "🇨🇿🇨🇿🇨🇿", "e\u0301" * 6):
        sentence = "a" * 57 + tail
        title = re.search("<title>(.*?)</title>", X.handout_html(trace_self_attention(sentence, d_model=4, d_k=2)),
                          re.S).group(1)
        shown = title.split(": ", 1)[1].removesuffix("…")
        after = sentence[len(shown)]  # the first character left out: it does not belong to the last one kept
        assert sentence.startswith(shown) and len(shown) < 60, shown
        assert not unicodedata.category(after).startswith("M") and "\u200d" not in (after, shown[-1])
        assert len(re.findall("[\U0001F1E6-\U0001F1FF]", shown)) % 2 == 0  # a flag is two letters, kept whole


def test_a_charts_title_in_the_view_is_its_drawn_title_whatever_its_tokens_hold():
    trace = trace_self_attention("time: now", d_model=4, d_k=2)
    fig = F.weighted_sum_figure(trace, 1)
    data = panel("sum", T.weighted_sum_frame(trace, 1), fig)
    assert data["figure"]["title"] == fig.title and fig.title.startswith("Σⱼ αᵢⱼ·vⱼ for query “:”")


def test_the_hard_lookups_chart_names_its_chosen_key_in_words():
    r = lookup(["Jan", "Jon"], ["1", "2"], "Jan")
    assert "The chosen key: “Jan”." in P.key_bars(r, soft=False).alt
    assert "chosen key" not in P.key_bars(r, soft=True).alt


def test_small_and_large_numbers_are_written_as_a_reader_writes_them():
    """The RoPE caption wrote "1.4e-05" and a colour bar at 999.6 "1e+03" (".2g" and ".3g")."""
    from viz import i18n, svg
    from viz.labels import significant

    assert significant(1.43e-5) == "1.4 × 10⁻⁵" and significant(0.25) == "0.25" and significant(123.0) == "1.2 × 10²"
    with i18n.speaking("es"):
        assert significant(1.43e-5) == "1,4 × 10⁻⁵" and significant(-0.25) == "−0,25"
    assert svg._short(999.6) == "1,000" and svg._short(0.5) == "0.5"


def test_the_soft_answer_of_a_book_of_one_name_is_that_number():
    r = lookup(["Anna"], ["601 234"], "Anna")
    assert "the book's one number (its α is 1" in P.soft_answer(r) and "blend" not in P.soft_answer(r)
