"""Figures and tables of the phonebook lookup: pure functions of an ``attention.phonebook.Lookup``."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from attention.phonebook import Lookup, shared_ngrams, visible
from viz import arithmetic, svg
from viz.i18n import decimal, listed, sentences, t
from viz.labels import format_number, markdown_text
from viz.scaling import RAW_COLOUR, SCALED_COLOUR

MAX_BAR_LABELS = 20


def key_bars(result: Lookup, *, soft: bool) -> svg.Svg:
    """One bar per name in the book: its score q·k (hard) or its weight α (soft)."""
    names = [visible(n) for n in result.names]
    if soft:
        y, axis = result.weights, "α"
        title = t("soft: weights α = softmax(q·k / {temperature})", temperature=decimal(f"{result.temperature:g}"))
        colour = svg.colours("weights", result.weights)
    else:
        y, title, axis = result.scores, t("hard: scores q·k (the chosen key in vermillion)"), "q·k"
        colour = [RAW_COLOUR if j == result.hard_index else "#bbbbbb" for j in range(len(names))]
    numbers = [format_number(v) for v in y] if len(names) <= MAX_BAR_LABELS else None  # the table has them all
    fig = svg.bars(names, [svg.Series(axis, y.tolist(), colour, numbers)], title=title, x_title=t("key (name)"),
                   y_title=axis, y_range=(min(0.0, float(np.min(y)) * 1.2), max(1.0, float(np.max(y))) * 1.2))
    if soft:
        return fig
    # the vermillion bar is no cue in words: the text alternative names the chosen key
    return dataclasses.replace(fig, alt=sentences(fig.alt, t("The chosen key: “{name}”.",
                                                             name=names[result.hard_index])))


def answers_figure(result: Lookup) -> svg.Svg:
    """The hard answer (one number's digits) and the soft answer (the blend), digit by digit."""
    positions = [t("digit {position}", position=c + 1) for c in range(result.values.shape[1])]
    hard_name = visible(result.names[result.hard_index])
    return svg.bars(positions, [
        svg.Series(t("hard: {name}'s number", name=hard_name), result.hard.tolist(), RAW_COLOUR,
                   [format_number(v, 0) for v in result.hard]),
        svg.Series(t("soft: Σ α_j v_j"), result.soft.tolist(), SCALED_COLOUR,
                   [format_number(v, 1) for v in result.soft], outline=True),  # filled and outlined: no colour needed
    ], title=t("The answers, digit by digit"), x_title="", y_title=t("digit"), y_range=(0.0, 11.0), show_legend=True)


def lookup_frame(result: Lookup) -> pd.DataFrame:
    """The book with each key's shared trigrams, score and weight: the numbers behind both bar charts."""
    return pd.DataFrame({  # its headers in the reader's language (the table is shown, never downloaded)
        t("name (key)"): list(result.names),
        t("number (value)"): list(result.phones),
        # with the query; the header says less so that the table fits a tablet's page (the lesson explains)
        t("shared letter triples"): [" ".join(shared_ngrams(n, result.query)) or t("none") for n in result.names],
        t("score q·k"): result.scores,
        t("weight α"): result.weights,
    })


def answers_frame(result: Lookup) -> pd.DataFrame:
    """Rows: digit positions; columns: the hard answer and the soft answer (a column each, so that
    a long number adds rows, not columns past a tablet's page)."""
    return pd.DataFrame(
        # the hard answer is one number's digits: whole numbers, shown without decimals
        {t("hard: {name}", name=result.names[result.hard_index]): np.rint(result.hard).astype(int),
         t("soft: Σ α_j v_j"): result.soft},
        index=pd.Index([t("digit {position}", position=c + 1) for c in range(result.values.shape[1])],
                       name=t("position")),
    )


def weight_decimals(result: Lookup) -> int:
    """The decimals the weights α are shown with (3 at least): as many as it takes for Σ_j α_j v_j of the
    shown α and the book's digits to give the soft answer as shown, at two decimals, in every position
    (``viz.arithmetic``'s rule; negative where no decimals do: the answer then says ≈). The digits are
    whole numbers, exact at any decimals."""
    d = arithmetic.together(lambda d: arithmetic.products_add_up(result.weights, result.values.T, result.soft,
                                                                  max(d, 3)))
    return max(abs(d), 3) * (1 if d > 0 else -1)


def soft_answer(result: Lookup) -> str:
    """The soft answer written out (Markdown), at the two decimals of the answers table."""
    shown = " ".join(format_number(d) for d in result.soft)
    decimals = weight_decimals(result)
    values = {"relation": arithmetic.relation(decimals), "shown": shown, "decimals": abs(decimals)}
    if len(result.names) == 1:
        return t("**Soft answer**: Σ α_j v_j {relation} [{shown}], the book's one number (its α is 1: the table below "
                 "has it to {decimals} decimals).", **values)
    return t("**Soft answer**: Σ α_j v_j {relation} [{shown}], a blend of every number in the book (its α are in the "
             "table below, to {decimals} decimals: multiply each by the digits of its name's number and add).",
             **values)


def hard_answer(result: Lookup, rows: list[int] | None = None) -> str:
    """How the hard lookup chose, and what T → 0 does, as Markdown (user text escaped). ``rows``: each name's row in
    the learner's table (``attention.phonebook.Book.rows``), as the messages about left-out rows count them; by
    default the book's own order."""
    rows = rows or list(range(1, len(result.names) + 1))
    name = markdown_text(result.names[result.hard_index])
    number = markdown_text(result.phones[result.hard_index])
    query = markdown_text(visible(result.query.strip()))
    row = rows[result.hard_index]
    found = {"query": query, "name": name, "row": row, "number": number}  # a message takes the fields it names
    if result.scores.max() <= 0:
        if len(result.names) == 1:
            return t("**Hard answer** (no name shares a letter triple with “{query}”, so its one score is 0; the hard "
                     "lookup has nothing to go on and takes the first row): **{name}** (row {row}), {number}. The "
                     "soft lookup, with one name, gives its number at every temperature.", **found)
        return t("**Hard answer** (no name shares a letter triple with “{query}”, so every score is 0 and all {n} "
                 "names tie; the hard lookup has nothing to go on and takes the first row): **{name}** (row {row}), "
                 "{number}. With every score equal, the soft lookup is the plain average of all the numbers, at every "
                 "temperature.", n=len(result.names), **found)
    text = (t("**Hard answer** (an exact match): **{name}** (row {row}), {number}.", **found) if result.exact else
            t("**Hard answer** (no exact match, so the best score wins): **{name}** (row {row}), {number}.", **found))
    if len(result.best) > 1:
        tied = listed([t("“{name}” (row {row})", name=markdown_text(result.names[j]), row=rows[j])
                       for j in result.best])
        # the limit T → 0 is the tied numbers' average: the hard answer's own number where their digits are all alike
        alike = all(np.array_equal(result.values[j], result.hard) for j in result.best)
        text = sentences(
            text, t("{n} names tie for the best score: {tied}.", n=len(result.best), tied=tied),
            t("The hard lookup takes the first exact match.") if result.exact else
            t("The hard lookup takes the first of them in the book."),
            t("As T → 0 the soft lookup shares the weight equally among them, so it tends to the average of their "
              "numbers, which have the same digits: the hard answer.") if alike else
            t("As T → 0 the soft lookup shares the weight equally among them, so it tends to the average of their "
              "numbers, not to the hard answer."))
    return text
