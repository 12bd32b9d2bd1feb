"""The learner's language (issue 45): a text in the language of the session that reads it.

    t("Seed")                          →  "Semilla" for a session in Spanish
    t("Seed")                          →  "Graine" for one in French
    decimal("0.25")                    →  "0,25" in Spanish and French, "0.25" in English and Chinese

A message is its English text (gettext's convention): the code reads as English, and English needs no
catalog. The other languages' catalogs are gettext PO files, ``locales/<language>.po`` (a translator's
tools read and write them; Babel parses them), one file a language. Placeholders are ``str.format``'s
named fields, ``{n}``, and a catalog keeps every one of its message's (a test).

The language is the session's, never the process's: Streamlit runs every session's script in threads of
one process, and ``gettext.install()`` would make the last session's language everyone's. ``language()``
asks a source that ``ui/i18n.py`` sets to the running session's own setting (so a callback's or a fragment's
run reads it too); code outside a session (a builder's test, an export) says which language it wants with
``speaking(...)``, which holds for its thread only.

``qps`` is a pseudo-language for the tests (in no menu, though a link may name it): every message wrapped in ⟦…⟧
with its letters accented and a third longer, so a visible string that did not pass through ``t`` stands out,
and so does a layout that breaks when a text grows.
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path

from babel import Locale
from babel.lists import format_list
from babel.messages.pofile import read_po
from babel.numbers import format_decimal

from attention.messages import Message, Word

ENGLISH = "en"
PSEUDO = "qps"  # the pseudo-language of the tests (qps: "pseudo", the code Windows and Android use for one)
LANGUAGES = ("en", "es", "fr", "zh")  # every language with a catalog, English first
LOCALES = Path(__file__).resolve().parents[1] / "locales"
_FIELD = re.compile(r"\{[^{}]*\}")  # a str.format field: {n}, {value:.2f}
# what the pseudo-language leaves as it is: fields, a Markdown link's target, an icon's name, $…$ maths
_KEPT_AS_IS = re.compile(r"\{[^{}]*\}|\]\([^)]*\)|:material/[a-z_]+:|\$[^$]*\$")

_speaking: ContextVar[str | None] = ContextVar("speaking", default=None)
_source: list[Callable[[], str]] = [lambda: ENGLISH]


def set_source(source: Callable[[], str]) -> None:
    """Where ``language()`` reads the running session's language (ui/i18n.py: the session's setting)."""
    _source[0] = source


@contextmanager
def speaking(language: str) -> Iterator[None]:
    """This thread's texts in ``language`` until the block ends, whatever the session's setting."""
    token = _speaking.set(language)
    try:
        yield
    finally:
        _speaking.reset(token)


def language() -> str:
    """The language the running code writes in: ``speaking``'s, else the session's, else English."""
    chosen = _speaking.get() or _source[0]()
    return chosen if chosen in LANGUAGES or chosen == PSEUDO else ENGLISH


@cache
def _read(language: str):
    """A language's PO file as Babel reads it, once a process (catalogs are data, the same for every session); None
    for English and for a language without a catalog. A language of LANGUAGES whose file is missing is an install's
    fault: said (FileNotFoundError)."""
    if language not in LANGUAGES or language == ENGLISH:
        return None
    with (LOCALES / f"{language}.po").open("rb") as f:
        return read_po(f, locale=language)


@cache
def catalog(language: str) -> dict[str, str]:
    """A language's translations, English message → its text. A message missing, or left empty, is not in it."""
    messages = _read(language) or ()
    return {m.id: m.string for m in messages if m.id and isinstance(m.id, str) and m.string and not m.fuzzy}


@cache
def plurals(language: str) -> tuple[dict[str, tuple[str, ...]], Callable[[int], int]]:
    """A language's plural messages, English singular → its forms, and which form a count takes (the catalog's
    Plural-Forms rule: French says "1 élève, 0 élève, 2 élèves"; Chinese has one form)."""
    messages = _read(language)
    if messages is None:
        return {}, lambda n: int(n != 1)
    forms = {m.id[0]: tuple(m.string) for m in messages
             if isinstance(m.id, tuple) and not m.fuzzy and all(m.string)}
    return forms, gettext.c2py(messages.plural_expr)


def nt(singular: str, plural: str, n: int, /, **values: object) -> str:
    """The form of a message a count takes, in the running language: ``nt("{n} student", "{n} students", 3)``; its
    ``{n}`` is the count, its other fields ``values`` (gettext's ngettext, with str.format's fields)."""
    lang = language()
    if lang == PSEUDO:
        text = pseudo(singular if n == 1 else plural)
    else:
        forms, form_of = plurals(lang)
        chosen = forms.get(singular)
        text = (singular if n == 1 else plural) if chosen is None else chosen[min(form_of(n), len(chosen) - 1)]
    return text.format(n=n, **values)


def t(message: str, /, **values: object) -> str:
    """``message`` (English) in the running language, its ``{fields}`` filled with ``values``; a message the
    language's catalog lacks is written in English (and the catalog test names it)."""
    lang = language()
    text = pseudo(message) if lang == PSEUDO else catalog(lang).get(message, message)
    return text.format(**values) if values else text


def bound(function: Callable[..., str]) -> Callable[..., str]:
    """``function`` fixed to the running language: a widget's format_func whose labels come from the catalogs gives
    the same labels wherever it is called (Streamlit calls it in the session's run; its testing harness, AppTest,
    calls it again in the test's own thread to read the widget's value, where no session's language is known)."""
    lang = language()

    def in_language(*args: object) -> str:
        with speaking(lang):
            return function(*args)
    return in_language


def said(message: Message) -> str:
    """An engine's message (``attention.messages``) in the running language, its counts written as the language
    groups thousands (``whole``), a tuple of them as the language lists them (``listed``), its words (``Word``)
    translated."""
    def written(value: object) -> object:
        if isinstance(value, tuple):
            return listed([str(written(v)) for v in value])
        if isinstance(value, Word):
            return t(value)
        return whole(value) if isinstance(value, int) else value
    return t(message.text, **{k: written(v) for k, v in message.values.items()})


def N_(message: str) -> str:
    """A message named where it is defined and translated where it is shown (``t(NAMES[key])``): unchanged here,
    but the catalog test finds it (gettext's ``gettext_noop``)."""
    return message


@cache
def _decimal_sign(lang: str) -> str:
    """The sign between a number's whole part and its decimals in ``lang``: "," in Spanish and French, "." in English
    and Chinese (Unicode's CLDR, through Babel)."""
    return Locale.parse(ENGLISH if lang == PSEUDO else lang).number_symbols["latn"]["decimal"]


def decimal(number: str) -> str:
    """A number written with "." (as every builder writes one) with the running language's decimal sign."""
    sign = _decimal_sign(language())
    return number if sign == "." else number.replace(".", sign)


def numbers(items: list[str]) -> str:
    """Numbers written one after another inside brackets: "0.12, 0.34", and "0,12; 0,34" where the decimal sign is a
    comma (a comma between them would read as one number's: "0,12, 0,34"); French puts a no-break space before ";"."""
    lang = language()
    return ("\u00a0; " if lang == "fr" else "; " if _decimal_sign(lang) == "," else ", ").join(items)  # French: a space


def clauses(items: list[str]) -> str:
    """Clauses one after another, apart by semicolons as the running language writes them: "a; b", French "a\u00a0; b",
    Chinese "a；b"."""
    lang = language()
    return ("\u00a0; " if lang == "fr" else "；" if lang == "zh" else "; ").join(items)


def enumeration(items: list[str]) -> str:
    """Short items (tokens, labels) listed with the running language's separator: "a, b, c", Chinese "a、b、c"."""
    return ("、" if language() == "zh" else ", ").join(items)


def percent(number: str) -> str:
    """A percentage's number (its digits, or "< 1") with the running language's percent sign: "33 %" in English (as
    this app's English writes it), with a no-break space in Spanish and French, "33%" in Chinese (CLDR's patterns)."""
    if language() in (ENGLISH, PSEUDO):
        return f"{number} %"
    return _percent_pattern(language()).replace("#,##0", number)


@cache
def _percent_pattern(lang: str) -> str:
    return Locale.parse(lang).percent_formats[None].pattern  # "#,##0\xa0%" in es and fr, "#,##0%" in zh


def whole(number: int) -> str:
    """A whole number with the running language's grouping of thousands: 2,000 in English, 2 000 in French; 2000 but
    20.000 in Spanish (CLDR's minimum grouping of two digits, which Babel does not apply: done here)."""
    if abs(number) < 10 ** (3 + _MIN_GROUPING.get(language(), 1) - 1) and abs(number) >= 1000:
        return str(number)
    return format_decimal(number, locale=_babel_locale())


def grouped(number: float, decimals: int) -> str:
    """A number at ``decimals`` decimals (already rounded as it is shown), with the running language's grouping of
    thousands and decimal sign: 1,234.5 in English, 1 234,5 in French, 1234,5 but 12.345,5 in Spanish."""
    text = f"{number:.{decimals}f}"
    whole_part, _, part = text.partition(".")
    sign = "-" if whole_part.startswith("-") else ""
    grouped_whole = whole(abs(int(whole_part)))
    return sign + grouped_whole + (decimal("." + part) if part else "")


_MIN_GROUPING = {"es": 2}  # CLDR's minimumGroupingDigits where it is not 1 (of the languages with a catalog)


def sentences(*texts: str) -> str:
    """Sentences one after another, as the running language writes them: a space between them, none in Chinese
    (its full stop "。" is its own space)."""
    return ("" if language() == "zh" else " ").join(text for text in texts if text)


def listed(items: list[str], style: str = "and") -> str:
    """Items joined as the running language joins a list (``style``: "and" or "or"): "a, b and c" in English (this
    app's texts use no serial comma), "a, b y c", "a, b et c", "a、b和c" (CLDR's, through Babel)."""
    lang = language()
    if lang in (ENGLISH, PSEUDO) and len(items) > 1:
        word = f" {style} " if lang == ENGLISH else pseudo(f" {style} ")
        return ", ".join(items[:-1]) + word + items[-1]
    return format_list(items, style="standard" if style == "and" else "or", locale=_babel_locale())


def _babel_locale() -> str:
    lang = language()
    return ENGLISH if lang == PSEUDO else lang


def html_lang() -> str:
    """The running language as a page declares it (``<html lang>``, BCP 47): "zh-Hans" for Simplified Chinese, the
    pseudo-language as the private-use "qps"."""
    lang = language()
    return "zh-Hans" if lang == "zh" else lang


_ACCENTED = str.maketrans("aceinorsuyACEINORSUYtTlLgG", "åçéîñöŕšüýÅÇÉÎÑÖŔŠÜÝţŢļĻĝĜ")


def pseudo(message: str) -> str:
    """The pseudo-language's text of ``message``: "Seed" → "⟦Šééd·⟧", its letters accented and a third longer; its
    ``{fields}``, a Markdown link's target, an icon's name and $…$ maths left as they are."""
    parts = _KEPT_AS_IS.split(message)
    kept = _KEPT_AS_IS.findall(message)
    out = parts[0].translate(_ACCENTED)
    for as_is, part in zip(kept, parts[1:], strict=True):
        out += as_is + part.translate(_ACCENTED)
    stretch = "·" * (len(message) // 3)
    return f"⟦{out}{stretch}⟧"
