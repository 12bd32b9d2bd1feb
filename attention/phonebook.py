"""The phonebook lookup: attention as a soft dictionary lookup.

    query  = the name you search for        q   = e(query)          [dim]
    keys   = the names in the book          K   = [e(name_j)]       [m, dim]
    values = the phone numbers              V   = [digits(phone_j)] [m, L]

    hard lookup: the exact match, or argmax_j q·k_j if there is none
    soft lookup: softmax(q·Kᵀ / T) · V

e() is a fixed embedding of spelling: the counts of the name's character trigrams, one coordinate
per trigram that occurs in the book or the query (no hashing), scaled to unit length. So q·k_j is
the cosine of two count vectors, and it is above 0 exactly when the two names share a trigram
("Jindrich" and "Jindřich" share five). A real model learns its own embedding.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from attention.core import softmax
from attention.messages import N_, Message, message
from attention.tokens import visible

Array = npt.NDArray[np.float64]
NGRAM = 3
TIE = 1e-12  # scores this close to the best count as tied (equal counts can differ in the last bit)


def fold(name: str) -> str:
    """The form names are compared in: NFC, case-folded, without surrounding spaces."""
    return unicodedata.normalize("NFC", name.strip()).casefold()


def name_ngrams(name: str, n: int = NGRAM) -> list[str]:
    """Character n-grams of "#name#", case-folded: "Jan" → ["#ja", "jan", "an#"]."""
    text = "#" + fold(name) + "#"
    return [text[i : i + n] for i in range(max(1, len(text) - n + 1))]


def name_vectors(names: list[str]) -> tuple[list[str], Array]:
    """e(name) for each name: trigram counts over the trigrams of all ``names``, unit length.

    Every name has at least one trigram, so no vector is zero. Two vectors' dot product is the
    cosine of their counts: 1 for the same trigrams in the same proportions, 0 for none shared.

    Returns
    -------
    vocabulary : the trigrams, sorted, one a coordinate;  vectors : ndarray [len(names), len(vocabulary)]
    """
    counts = [Counter(name_ngrams(n)) for n in names]
    vocabulary = sorted(set().union(*counts))
    column = {g: c for c, g in enumerate(vocabulary)}
    v = np.zeros((len(names), len(vocabulary)))
    for row, count in enumerate(counts):
        for gram, times in count.items():
            v[row, column[gram]] = times
    return vocabulary, v / np.linalg.norm(v, axis=1, keepdims=True)


def shared_ngrams(a: str, b: str) -> list[str]:
    """The trigrams two names have in common, in the order they occur in ``a``."""
    theirs = set(name_ngrams(b))
    return [g for g in dict.fromkeys(name_ngrams(a)) if g in theirs]


def digits(phone: str) -> list[int]:
    """The digits of a phone number, in order, in any script: "+420 601-234" → [4, 2, 0, 6, 0, 1, 2, 3, 4];
    Arabic-Indic "٦٠١" and fullwidth "６０１" → [6, 0, 1]. Superscripts such as "²" are not digits."""
    return [unicodedata.decimal(ch) for ch in phone if ch.isdecimal()]


def digit_vectors(phones: list[str]) -> Array:
    """Phone numbers as vectors of digits, right-padded with 0 to the longest number.

    Returns
    -------
    ndarray, shape [m, L] with L the most digits of any number
    """
    rows = [digits(p) for p in phones]
    length = max((len(r) for r in rows), default=0)
    return np.array([r + [0] * (length - len(r)) for r in rows], dtype=np.float64).reshape(len(rows), length)


@dataclass(frozen=True)
class Lookup:
    """Every step of one phonebook lookup."""

    query: str
    names: tuple[str, ...]  # m keys
    phones: tuple[str, ...]  # m values, as typed
    q: Array  # e(query)   [dim]
    keys: Array  # K   [m, dim]
    values: Array  # V, digit vectors   [m, L]
    scores: Array  # q·k_j, cosine similarities   [m]
    temperature: float  # T
    weights: Array  # softmax(scores / T)   [m]
    soft: Array  # Σ_j α_j v_j, the blended answer   [L]
    best: tuple[int, ...]  # every key with the best score (more than one on a tie)
    hard_index: int  # the first exact match, or else the first best-scoring key
    exact: bool  # whether the hard lookup found the name exactly (case-insensitive)

    @property
    def hard(self) -> Array:
        """The hard lookup's answer: one value vector, [L]."""
        return self.values[self.hard_index]

    @property
    def cold(self) -> Array:
        """lim_{T→0} of the soft answer: the average of the best keys' values, [L]."""
        return self.values[list(self.best)].mean(axis=0)


def lookup(names: list[str], phones: list[str], query: str, *, temperature: float = 0.1) -> Lookup:
    """Look ``query`` up in the book both ways: hard (exact match or argmax) and soft (attention).

    As T → 0 the softmax puts all the weight on the best score, shared equally among the keys
    that tie for it, so the soft answer tends to ``cold``: the hard answer when one key is best.
    An exact match always has the best score (cosine 1), so it is among ``best``.

    Raises
    ------
    ValueError
        For an empty book, mismatched lists, or a temperature that is not positive.
    """
    if not names:
        raise ValueError("The phonebook is empty: add at least one name and number.")
    if len(names) != len(phones):
        raise ValueError(f"{len(names)} names but {len(phones)} numbers: every name needs one number.")
    if not temperature > 0:
        raise ValueError(f"The temperature must be positive, got {temperature}.")
    _, vectors = name_vectors([query, *names])  # [1 + m, dim]
    q, keys = vectors[0], vectors[1:]  # [dim], [m, dim]
    values = digit_vectors(phones)  # [m, L]
    scores = keys @ q  # [m, dim] @ [dim] -> [m]
    weights = softmax(scores / temperature)  # [m]
    best = tuple(int(j) for j in np.flatnonzero(scores >= scores.max() - TIE))
    matches = [j for j, n in enumerate(names) if fold(n) == fold(query)]
    return Lookup(
        query=query, names=tuple(names), phones=tuple(phones), q=q, keys=keys, values=values, scores=scores,
        temperature=float(temperature), weights=weights, soft=weights @ values, best=best,
        hard_index=matches[0] if matches else best[0], exact=bool(matches),
    )


DEFAULT_BOOK = (
    ("Jindřich", "601 234 567"),
    ("Jindra", "777 888 999"),
    ("Heinrich", "499 301 234"),
    ("Dietrich", "321 654 987"),
    ("Jiří", "603 550 110"),
    ("Anna", "212 121 212"),
    ("Jan", "909 808 707"),
)
# Each language's book and the name its lesson looks up (the others read DEFAULT_BOOK and "Jindrich"): a name typed
# without its accent, closest to the accented one, then a short form, names that share an ending or a beginning,
# and names that share nothing. Chinese keeps DEFAULT_BOOK: a Chinese name is two or three characters and each
# trigram of "#name#" holds two of them, so two-character names that differ in one character, or three-character
# names that differ in the middle one ("王小明", "王晓明"), share no trigram: a book of them could not show a near
# spelling being close (docs/decisions.md).
EXAMPLE_BOOKS = {
    "es": ("Sebastian", (
        ("Sebastián", "612 345 678"),
        ("Sebas", "699 111 222"),
        ("Sébastien", "633 250 410"),
        ("Cristian", "655 432 109"),
        ("Ana", "611 212 121"),
        ("Juan", "622 707 808"),
        ("Lucía", "644 909 303"),
    )),
    "fr": ("Francois", (
        ("François", "06 12 34 56 78"),
        ("Franck", "06 77 88 99 00"),
        ("Françoise", "06 49 30 12 34"),
        ("Francesco", "06 32 16 54 98"),
        ("Louis", "06 03 55 01 10"),
        ("Anne", "06 21 21 21 21"),
        ("Jean", "06 90 80 70 60"),
    )),
}


MAX_ENTRIES = 50  # a lookup over more names draws too many bars to read, and a pasted list can be huge


class Book(NamedTuple):
    """An edited phonebook's usable rows: names and numbers, a message for each row left out, and each name's row in
    the learner's table (counted from 1, as the messages count them)."""

    names: list[str]
    phones: list[str]
    messages: list[Message]  # English with fields: ``str(m)``, or ``viz.i18n.said(m)`` in the reader's language
    rows: list[int]


def clean_entries(rows: list[tuple[object, object]]) -> tuple[list[str], list[str], list[str]]:
    """``clean_book``'s names, numbers and messages (in English)."""
    names, phones, messages, _ = clean_book(rows)
    return names, phones, [str(m) for m in messages]


def _repeated(names: list[str], rows: list[int]) -> list[Message]:
    """A message for each name the lookup holds more than once (compared as ``fold`` compares them), in the order the
    names first occur: each copy gets the same score, so the hard lookup takes the first and the soft lookup weighs
    their numbers equally."""
    copies: dict[str, list[int]] = {}
    for name, row in zip(names, rows, strict=True):
        copies.setdefault(fold(name), []).append(row)
    out = []
    for held in copies.values():
        if len(held) == 2:
            out.append(message(N_("“{name}” appears twice (rows {first} and {row}): both get the same score, so the "
                                  "hard lookup returns the first (row {first}) and the soft lookup gives both numbers "
                                  "the same weight."), name=names[rows.index(held[1])], first=held[0], row=held[1]))
        elif len(held) > 2:
            out.append(message(N_("“{name}” appears {count} times (rows {rows}): they all get the same score, so the "
                                  "hard lookup returns the first (row {first}) and the soft lookup gives their numbers "
                                  "the same weight."), name=names[rows.index(held[0])], count=len(held),
                               rows=tuple(held), first=held[0]))
    return out


def clean_book(rows: list[tuple[object, object]]) -> Book:
    """The usable rows of an edited phonebook, and a message for each row that was left out.

    A row needs a name and a number with at least one digit. Duplicate names are kept and reported:
    they get the same score, so the hard lookup returns the first and the soft lookup weighs both
    numbers equally.

    Only the first MAX_ENTRIES usable rows are looked up; the message says which rows were left out
    (they stay in the learner's table).

    Returns
    -------
    names, phones, messages
    """
    names: list[str] = []
    phones: list[str] = []
    messages: list[Message] = []
    used_rows: list[int] = []
    for row, (name, phone) in enumerate(rows, start=1):
        name = "" if name is None or (isinstance(name, float) and np.isnan(name)) else visible(str(name).strip())
        phone = "" if phone is None or (isinstance(phone, float) and np.isnan(phone)) else visible(str(phone).strip())
        if not name and not phone:
            continue  # an empty new row
        if not name:
            messages.append(message(N_("Row {row} has a number but no name, so it was left out."), row=row))
            continue
        if not digits(phone):
            messages.append(message(N_("Row {row} (“{name}”) has no digits in its number, so it was left out."),
                                    row=row, name=name))
            continue
        names.append(name)
        phones.append(phone)
        used_rows.append(row)
    messages += _repeated(names[:MAX_ENTRIES], used_rows[:MAX_ENTRIES])
    if len(names) > MAX_ENTRIES:
        messages.append(message(N_("The phonebook holds {names} names; a lookup uses the first {most} (rows "
                                   "1–{last}). Rows {next} onwards stay in the table but are left out of the lookup."),
                                names=len(names), most=MAX_ENTRIES, last=used_rows[MAX_ENTRIES - 1],
                                next=used_rows[MAX_ENTRIES]))
        names, phones = names[:MAX_ENTRIES], phones[:MAX_ENTRIES]
    return Book(names, phones, messages, used_rows[:len(names)])
