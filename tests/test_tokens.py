"""The tokenizer on the examples a learner types, its limits, and properties over any text."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attention import MAX_CHARS, MAX_TOKENS, SentenceError, token_ids, tokenize


@pytest.mark.parametrize(
    "sentence,tokens",
    [
        ("This forum is awesome!", ["This", "forum", "is", "awesome", "!"]),
        ("This forum is awesome", ["This", "forum", "is", "awesome"]),
        ("  spaced\tout\n ", ["spaced", "out"]),
        ("don't stop, dogs' bones", ["don't", "stop", ",", "dogs", "'", "bones"]),
        ("Wait...what?!", ["Wait", ".", ".", ".", "what", "?", "!"]),
        ("我喜欢你", ["我", "喜", "欢", "你"]),  # CJK: one token per character
        ("مرحبا بالعالم", ["مرحبا", "بالعالم"]),  # right-to-left words stay whole
        ("naïve café", ["naïve", "café"]),
        ("cafe\u0301", ["café"]),  # the decomposed é is normalised, not split off
        ("👩\u200d💻 codes 🇨🇿 👍🏽", ["👩\u200d💻", "codes", "🇨🇿", "👍🏽"]),  # emoji sequences stay whole
        ("<script>", ["<", "script", ">"]),
        ("$\\frac{}{}$", ["$", "\\", "frac", "{", "}", "{", "}", "$"]),
        ("a\x00b\u200bc", ["a", "b", "c"]),  # control and zero-width characters separate
    ],
)
def test_examples(sentence, tokens):
    assert tokenize(sentence) == tokens


@pytest.mark.parametrize("sentence", ["", "   ", "\n\t", "\u200b"])
def test_empty_sentence_says_so(sentence):
    with pytest.raises(SentenceError, match="empty"):
        tokenize(sentence)


def test_limits_say_what_to_do():
    assert len(tokenize("a " * MAX_TOKENS)) == MAX_TOKENS
    with pytest.raises(SentenceError, match=f"65 tokens.*at most {MAX_TOKENS}"):
        tokenize("a " * (MAX_TOKENS + 1))
    with pytest.raises(SentenceError, match="10,000 characters"):
        tokenize("x" * 10_000)
    assert tokenize("x" * MAX_CHARS) == ["x" * MAX_CHARS]


def test_token_ids_share_an_id_for_repeated_tokens():
    assert token_ids(["the", "cat", "sat", "on", "the", "mat"]) == [0, 1, 2, 3, 0, 4]


@given(st.text(max_size=300))
def test_any_text_gives_tokens_or_a_sentence_error(text):
    # Every input either tokenizes or raises the one error the page knows how to show.
    try:
        tokens = tokenize(text)
    except SentenceError:
        return
    assert 1 <= len(tokens) <= MAX_TOKENS
    for t in tokens:
        assert t and not any(ch.isspace() for ch in t)
    # Nothing visible is lost or invented: the tokens are the normalised text minus separators
    # (a zero-width joiner is kept only inside an emoji, so it is left out of the comparison).
    separators = {"Cc", "Cf", "Cs", "Co", "Cn"}
    visible = [ch for ch in unicodedata.normalize("NFC", text)
               if not ch.isspace() and unicodedata.category(ch) not in separators]
    assert "".join(tokens).replace("\u200d", "") == "".join(visible)
