"""The engine's words a page shows: marked here, translated above.

``attention/`` is below the catalogs (``viz.i18n``) and never imports them; it marks the English it hands to the
pages (a task's name and rule, a strategy's name) with ``N_``, which the catalog test's extractor reads, and the
page translates it where it shows it (``viz.i18n.t``). gettext's ``gettext_noop``: the message is unchanged here.
A message with numbers in it (a phonebook's row left out, a sentence too long) is a ``Message``: its English with
``{fields}`` and their values, so that a page writes it, and its numbers, in the reader's language
(``viz.i18n.said``).
"""

from typing import NamedTuple


def N_(message: str) -> str:
    """``message``, unchanged: named here so that every catalog must hold it."""
    return message


class Word(str):
    """A message's value that is itself an ``N_``-marked message (a model's title, its licence): the English here, the
    reader's language where the page writes the message (``viz.i18n.said`` translates it)."""


class Message(NamedTuple):
    """A message to the learner: its English ``text`` (marked with ``N_``) with ``{fields}``, and their ``values``
    (a whole number is a count, written with its thousands grouped; a tuple of them is a list; a ``Word`` is
    translated)."""

    text: str
    values: dict[str, object]

    def __str__(self) -> str:
        """The message in English, as a log or a test reads it: "The sentence has 1,200 characters; …" (a tuple of
        numbers listed: "1, 2 and 3")."""
        return self.text.format(**{k: _english(v) for k, v in self.values.items()})


def _english(value: object) -> object:
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, tuple):
        items = [str(_english(v)) for v in value]
        return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)
    return value


def message(text: str, **values: object) -> Message:
    """``Message(text, values)``: ``message(N_("Row {row} has no name."), row=3)``."""
    return Message(text, values)
