"""The phonebook lookup: attention as a soft dictionary lookup.

    query  = the name you search for        q   = e(query)          [dim]
    keys   = the names in the book          K   = [e(name_j)]       [m, dim]
    values = the phone numbers              V   = [digits(phone_j)] [m, L]

    hard lookup: the exact match, or argmax_j q·k_j if there is none
    soft lookup: softmax(q·Kᵀ / T) · V

e() is a fixed embedding of spelling: hashed character trigrams, so names that share letter runs
("Jindrich", "Jindřich", "Heinrich") get similar vectors. A real model learns its own embedding.
"""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from attention.core import softmax

Array = npt.NDArray[np.float64]
NAME_DIM = 64
NGRAM = 3


def name_ngrams(name: str, n: int = NGRAM) -> list[str]:
    """Character n-grams of "#name#", case-folded: "Jan" → ["#ja", "jan", "an#"]."""
    text = "#" + unicodedata.normalize("NFC", name.strip()).casefold() + "#"
    return [text[i : i + n] for i in range(max(1, len(text) - n + 1))]


def name_embedding(name: str, dim: int = NAME_DIM) -> Array:
    """e(name) = normalise(Σ_g ±onehot(hash(g) mod dim)) over the name's trigrams g.

    Each trigram is hashed (BLAKE2b) to one coordinate and a sign, so the vector is deterministic
    and two names are as close as the trigrams they share. Unit length, so q·k is the cosine.

    Returns
    -------
    ndarray, shape [dim]
    """
    v = np.zeros(dim)
    for gram in name_ngrams(name):
        h = int.from_bytes(hashlib.blake2b(gram.encode(), digest_size=8).digest(), "little")
        v[h % dim] += 1.0 if (h >> 32) & 1 else -1.0
    norm = np.linalg.norm(v)
    return v / norm if norm else v


def digits(phone: str) -> list[int]:
    """The digits of a phone number, in order: "+420 601-234" → [4, 2, 0, 6, 0, 1, 2, 3, 4]."""
    return [int(ch) for ch in phone if ch.isdigit() and ch.isascii()]


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
    hard_index: int  # the exact match, or the best-scoring key
    exact: bool  # whether the hard lookup found the name exactly (case-insensitive)

    @property
    def hard(self) -> Array:
        """The hard lookup's answer: one value vector, [L]."""
        return self.values[self.hard_index]


def lookup(names: list[str], phones: list[str], query: str, *, temperature: float = 0.1) -> Lookup:
    """Look ``query`` up in the book both ways: hard (exact match or argmax) and soft (attention).

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
    q = name_embedding(query)  # [dim]
    keys = np.stack([name_embedding(n) for n in names])  # [m, dim]
    values = digit_vectors(phones)  # [m, L]
    scores = keys @ q  # [m, dim] @ [dim] -> [m]
    weights = softmax(scores / temperature)  # [m]
    wanted = unicodedata.normalize("NFC", query.strip()).casefold()
    matches = [j for j, n in enumerate(names) if unicodedata.normalize("NFC", n.strip()).casefold() == wanted]
    hard_index = matches[0] if matches else int(np.argmax(scores))
    return Lookup(
        query=query, names=tuple(names), phones=tuple(phones), q=q, keys=keys, values=values, scores=scores,
        temperature=float(temperature), weights=weights, soft=weights @ values, hard_index=hard_index,
        exact=bool(matches),
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


def clean_entries(rows: list[tuple[object, object]]) -> tuple[list[str], list[str], list[str]]:
    """The usable rows of an edited phonebook, and a message for each row that was left out.

    A row needs a name and a number with at least one digit. Duplicate names are kept (a lookup
    blends their numbers) but reported.

    Returns
    -------
    names, phones, messages
    """
    names: list[str] = []
    phones: list[str] = []
    messages: list[str] = []
    seen: dict[str, int] = {}
    for row, (name, phone) in enumerate(rows, start=1):
        name = "" if name is None or (isinstance(name, float) and np.isnan(name)) else str(name).strip()
        phone = "" if phone is None or (isinstance(phone, float) and np.isnan(phone)) else str(phone).strip()
        if not name and not phone:
            continue  # an empty new row
        if not name:
            messages.append(f"Row {row} has a number but no name, so it was left out.")
            continue
        if not digits(phone):
            messages.append(f"Row {row} (“{name}”) has no digits in its number, so it was left out.")
            continue
        folded = name.casefold()
        if folded in seen:
            messages.append(
                f"“{name}” appears twice (rows {seen[folded]} and {row}): a lookup that finds it blends both numbers."
            )
        else:
            seen[folded] = row
        names.append(name)
        phones.append(phone)
    return names, phones, messages
