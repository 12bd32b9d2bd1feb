"""Sentence → tokens: words and punctuation, Unicode-aware.

    "This forum is awesome!"  ->  This | forum | is | awesome | !

Rules (decided here, documented in the README):
- text is NFC-normalised first, so "é" typed two ways is one token;
- a word is a run of letters, digits, "_" and combining marks; an apostrophe between two word
  characters stays inside the word ("don't", "it's");
- every other visible character is a token of its own (punctuation, symbols, emoji), except that
  emoji joiners, variation selectors, skin tones and flag pairs stay with their emoji;
- Chinese, Japanese and Korean ideographs and kana are one token per character, as BERT does,
  because those scripts put no spaces between words;
- white space and invisible control characters separate tokens and are dropped.
"""

from __future__ import annotations

import re
import unicodedata

from attention.messages import N_, Message

MAX_TOKENS = 64
MAX_CHARS = 1000

_APOSTROPHES = "'\u2019"
_ZWJ = "\u200d"


class SentenceError(ValueError):
    """A sentence that cannot be shown; the message tells the learner what to change: ``message``, which a page
    writes in the reader's language (``str(error)`` is its English)."""

    def __init__(self, text: str, **values: object) -> None:
        self.message = Message(text, values)
        super().__init__(str(self.message))


def _is_cjk(ch: str) -> bool:
    """Han ideographs, kana and Hangul syllables: one token per character."""
    cp = ord(ch)
    return (
        0x4E00 <= cp <= 0x9FFF  # CJK unified ideographs
        or 0x3400 <= cp <= 0x4DBF  # extension A
        or 0x20000 <= cp <= 0x2FA1F  # extensions B.. and compatibility supplement
        or 0xF900 <= cp <= 0xFAFF  # compatibility ideographs
        or 0x3040 <= cp <= 0x30FF  # hiragana and katakana
        or 0xAC00 <= cp <= 0xD7AF  # Hangul syllables
    )


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_" or unicodedata.category(ch).startswith("M")


def _is_separator(ch: str) -> bool:
    """White space and invisible format or control characters (a ZWJ inside an emoji is kept)."""
    return ch.isspace() or unicodedata.category(ch) in {"Cc", "Cf", "Cs", "Co", "Cn"}


def _joins_previous_symbol(prev: str, ch: str) -> bool:
    """Characters that belong to the emoji or symbol before them."""
    cp = ord(ch)
    if unicodedata.category(ch).startswith("M"):  # variation selectors, keycaps, accents
        return True
    if 0x1F3FB <= cp <= 0x1F3FF:  # skin-tone modifiers
        return True
    if prev.endswith(_ZWJ) or ch == _ZWJ:  # 👩‍💻 is woman + ZWJ + laptop
        return True
    # Regional indicators pair up into flags: 🇨 + 🇿 = 🇨🇿
    regional = range(0x1F1E6, 0x1F200)
    return cp in regional and len(prev) % 2 == 1 and all(ord(c) in regional for c in prev)


def tokenize(sentence: str) -> list[str]:
    """Split a sentence into word and punctuation tokens.

    Parameters
    ----------
    sentence : str
        Any user text.

    Returns
    -------
    list[str]
        1 to MAX_TOKENS tokens, in reading order.

    Raises
    ------
    SentenceError
        For an empty sentence, one over MAX_CHARS characters, or one over MAX_TOKENS tokens.
    """
    if len(sentence) > MAX_CHARS:
        raise SentenceError(N_("The sentence has {chars} characters; Attention Lab takes at most {most}. Shorten it "
                               "to a sentence or two."), chars=len(sentence), most=MAX_CHARS)
    text = unicodedata.normalize("NFC", sentence)
    tokens: list[str] = []
    current, kind = "", ""  # the token being built and its kind: "word", "symbol" or ""
    for ch in text:
        if kind == "symbol" and _joins_previous_symbol(current, ch):
            current += ch
            continue
        if kind == "word" and not _is_cjk(ch) and (_is_word_char(ch) or ch in _APOSTROPHES):
            current += ch  # an apostrophe is undone by _close if no letter follows it
            continue
        if current:
            tokens.extend(_close(current))
        current, kind = "", ""
        if _is_separator(ch):
            continue
        if _is_cjk(ch):
            tokens.append(ch)
        else:
            current, kind = ch, ("word" if _is_word_char(ch) else "symbol")
    if current:
        tokens.extend(_close(current))
    if not tokens:
        raise SentenceError(N_("The sentence is empty. Type a few words, for example “{example}”."),
                            example="This forum is awesome")
    if len(tokens) > MAX_TOKENS:
        raise SentenceError(N_("The sentence has {tokens} tokens; Attention Lab shows at most {most} so that every "
                               "number fits on screen. Shorten it."), tokens=len(tokens), most=MAX_TOKENS)
    return tokens


def _close(token: str) -> list[str]:
    """A word that ended on apostrophes gives them back as punctuation: "dogs'" → dogs | '."""
    word = token.rstrip(_APOSTROPHES)
    if word == token or not word or not _is_word_char(word[-1]):
        return [token]
    return [word, *token[len(word) :]]


def token_ids(tokens: list[str]) -> list[int]:
    """Vocabulary ids in order of first appearance: repeated tokens share an id.

    ["the", "cat", "the"] → [0, 1, 0]
    """
    vocabulary: dict[str, int] = {}
    return [vocabulary.setdefault(t, len(vocabulary)) for t in tokens]


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")  # Unicode's category Cc, exactly


def _symbol(match: re.Match) -> str:
    code = ord(match.group())
    return chr(0x2400 + code) if code < 0x20 else "␡" if code == 0x7F else "�"


def visible(text: str) -> str:
    """Control characters (NUL, tab, newline, …) as the visible symbols Unicode keeps for them (␀, ␉, ␊),
    so a name that holds one is shown, not mangled; everything else unchanged. (A regular expression:
    every label of every chart passes here, and most hold no control character.)"""
    return _CONTROL.sub(_symbol, text)
