"""Token labels for axes and tables, and escaping of user text for Markdown (``viz.svg`` escapes its own)."""

from __future__ import annotations

import math
import re
from collections import Counter

from viz import arithmetic
from viz.i18n import decimal

MAX_LABEL_CHARS = 14
MASKED_TEXT = "—"  # a masked weight, in heatmaps and tables alike; a masked score shows −∞
_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def token_labels(tokens: tuple[str, ...] | list[str]) -> list[str]:
    """One label a token, unique and short: a repeated token gets its position, "the (5)".

    Positions count from 1, as i and j do in the formulas. Long tokens are cut with "…", and two
    tokens whose cut labels coincide ("international…") get their positions too. Labels are plain
    text; escape them for the medium that shows them.
    """
    shorts = [t if len(t) <= MAX_LABEL_CHARS else t[: MAX_LABEL_CHARS - 1] + "…" for t in tokens]
    counts = Counter(shorts)
    labels = [f"{s} ({i + 1})" if counts[s] > 1 else s for i, s in enumerate(shorts)]
    if len(set(labels)) < len(labels):
        # Only tokens that already look like "x (2)" can collide with a numbered label. A label that
        # ends in its own position is unique, since that last "(i)" tells the positions apart.
        labels = [f"{s} ({i + 1})" for i, s in enumerate(shorts)]
    return labels


def count(n: int, noun: str) -> str:
    """``n`` and a noun with a regular plural, in agreement: "1 token", "2 tokens", "0 terms"."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def query_labels(trace) -> list[str]:
    """The labels of a trace's query rows: every token's, or a cached step's one new token's. Made over
    every token, so that a repeated token is numbered as it is everywhere else."""
    labels = token_labels(trace.tokens)
    return [labels[i] for i in trace.query_positions]


def queries_only(trace, rows: int) -> bool:
    """Whether a [rows × …] matrix of a trace holds its queries' rows only (a cached step's X, Q, S, α, output: the
    token read), not every token's (K, V; every matrix of a trace without a cache)."""
    positions = getattr(trace, "query_positions", None)
    return positions is not None and rows == len(positions) and rows != len(trace.tokens)


def row_labels(trace, rows: int) -> list[str]:
    """The labels of a [rows × …] matrix of a trace: its queries' (``queries_only``) or every token's."""
    return query_labels(trace) if queries_only(trace, rows) else token_labels(trace.tokens)


def dim_labels(d: int) -> list[str]:
    """Column names for the coordinates of a vector: "1" … "d"."""
    return [str(c + 1) for c in range(d)]


WORD_JOINER = "\u2060"  # invisible, zero width: splits a pattern without changing what is shown
# Streamlit's Markdown (remark-gfm) links a bare "https://…", "www.…" or "a@b.c" found in the text
# after escapes are read, and draws "--" as a dash; a word joiner inside each stops that (issue 26)
_LIVE_TEXT = re.compile(r"(?i)(?<=[a-z])(\\:)(?=\\/\\/)|(?<=www)(?=\\\.)|(\\@)|(\\-)(?=\\-)")


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def significant(x: float, digits: int = 2) -> str:
    """``x`` to ``digits`` significant digits as a reader writes it: 0.25, and 1.4 × 10⁻⁵ where ".2g" wrote "1.4e-05"
    (the reader's decimal sign, a true minus)."""
    mantissa, _, exponent = f"{x:.{digits - 1}e}".partition("e")
    text = f"{x:.{digits}g}"
    if "e" in text:
        text = f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"
    return decimal(text).replace("-", "−")


def markdown_text(text: str) -> str:
    """Backslash-escape every ASCII punctuation mark, so Markdown, links and $…$ maths stay literal,
    and put a word joiner into bare web and e-mail addresses and "--", which Streamlit's Markdown
    would otherwise turn into a link or a dash even when escaped.

    CommonMark allows a backslash before any ASCII punctuation, and Streamlit reads "\\$" as a
    plain dollar sign. Streamlit already shows HTML as text unless told otherwise.
    """
    escaped = "".join("\\" + ch if ch in _ASCII_PUNCTUATION else ch for ch in text)
    return _LIVE_TEXT.sub(lambda m: (m.group(0) or "") + WORD_JOINER, escaped)


def format_number(x: float, decimals: int = 2) -> str:
    """A matrix entry as shown on screen: fixed decimals (rounded as ``viz.arithmetic`` holds and shows
    every number, the same digits the browser writes), a true minus sign, −∞ for a masked score.

    -0.001 shows as 0.00, never as −0.00. The decimal sign is the running language's: 0,25 in French
    (``viz.i18n.decimal``).
    """
    if math.isinf(x) and x < 0:
        return "−∞"
    if math.isnan(x):
        return ""
    return decimal(arithmetic.text(float(x), decimals))
