"""Predict-then-reveal exercises generated from a trace: the same sentence and seed give the same set.

Pure functions: the expected answers come from the engine's trace, never from the page.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from attention import AttentionTrace
from viz import arithmetic
from viz.labels import format_number, token_labels


@dataclass(frozen=True)
class Question:
    key: str  # stable within one lesson state; part of the widget key
    prompt: str  # plain text (escape before Markdown)
    options: tuple[str, ...]  # the choices; empty for a number answer
    answer: str | float
    explanation: str  # why, with the numbers on the page
    also: tuple[str, ...] = ()  # other choices that are exactly as right (keys tied with the answer)

    def is_correct(self, response: str | float | None) -> bool:
        if response is None:
            return False
        if self.options:
            return response == self.answer or response in self.also
        return abs(float(response) - float(self.answer)) <= 0.005 + 1e-9  # "to two decimals"


def lesson_id(trace: AttentionTrace) -> str:
    """A short id of the lesson state the questions are about."""
    text = f"{trace.sentence}\x00{trace.seed}\x00{trace.d_model}\x00{trace.d_k}\x00{trace.causal}\x00{trace.preset}"
    return hashlib.blake2b(text.encode(), digest_size=4).hexdigest()


def most_attended(row: np.ndarray) -> tuple[int, ...]:
    """The keys with the largest weight in a row of α: one, or several that tie exactly
    (equal keys, for example a repeated word without positional encodings)."""
    top = float(row.max())
    return tuple(int(j) for j in np.flatnonzero(row >= top - 1e-12 * max(1.0, top)))


def clear_at_shown_precision(row: np.ndarray) -> bool:
    """Whether the table, at two decimals, shows every key that is not tied with the best as smaller."""
    best = most_attended(row)
    shown_top = format_number(float(row.max()))
    return all(format_number(float(a)) != shown_top for j, a in enumerate(row) if j not in best)


def make_questions(trace: AttentionTrace) -> list[Question]:
    """Questions about this trace: the most attended key (only for a row whose answer the table shows
    clearly; every exactly tied key is right), one α to two decimals, the shape of Q, and what the
    causal mask does to the first token."""
    n, labels = trace.n, token_labels(trace.tokens)
    lid = lesson_id(trace)
    rng = np.random.default_rng(int(lid, 16))
    i, j = int(rng.integers(n)), int(rng.integers(n))
    questions = []
    clear = [r for r in range(n) if clear_at_shown_precision(trace.weights[r])]
    if clear:
        r = clear[int(rng.integers(len(clear)))] if i not in clear else i
        questions.append(_most_question(trace, r, lid, labels))
    questions.append(Question(
        key=f"{lid}-alpha", prompt=f"What is α for query “{labels[i]}” and key “{labels[j]}”, to two decimals?",
        options=(), answer=round(float(trace.weights[i, j]), 2),
        explanation=_alpha_written_out(trace, i, j),
    ))
    shapes = dict.fromkeys([f"{n} × {trace.d_k}", f"{n} × {trace.d_model}", f"{trace.d_model} × {trace.d_k}",
                            f"{n} × {n}", f"{trace.d_k} × {n}"])
    questions.append(Question(
        key=f"{lid}-shape", prompt="What shape is Q?", options=tuple(shapes), answer=f"{n} × {trace.d_k}",
        explanation=f"Q = X·W_Q: [{n} × {trace.d_model}]·[{trace.d_model} × {trace.d_k}] = [{n} × {trace.d_k}], "
                    f"one query of d_k = {trace.d_k} numbers per token.",
    ))
    first = labels[0]
    questions.append(Question(
        key=f"{lid}-mask",
        prompt=f"With the causal mask on, what does the output of the first token, “{first}”, become?",
        options=("its own value vector v_1", "the average of all the value vectors", "the zero vector",
                 "the same as without the mask"),
        answer="its own value vector v_1",
        explanation=f"The first token may attend only to itself, so α_1,1 = 1 and every other weight is 0: "
                    f"out_1 = 1·v_1 = [{', '.join(format_number(x) for x in trace.v[0])}].",
    ))
    return questions


def _alpha_written_out(trace: AttentionTrace, i: int, j: int) -> str:
    """α_ij = e^(z − m) / Σ e^(z − m) with the row's numbers, at decimals that give the shown α (3 at least;
    "≈" where none do): ``viz.arithmetic``'s rule."""
    e, total = trace.exp_scores[i, j], trace.exp_scores[i].sum()
    d = int(arithmetic.decimals_for(lambda d: arithmetic.quotient_adds_up(e, total, trace.weights[i, j], max(d, 3)),
                                    ()))
    places = max(abs(d), 3)
    return (f"α_{i + 1},{j + 1} = e^(z − m) / Σ e^(z − m) = {format_number(e, places)} / {format_number(total, places)}"
            f" {arithmetic.relation(d)} {format_number(trace.weights[i, j])}.")


def _most_question(trace: AttentionTrace, i: int, lid: str, labels: list[str]) -> Question:
    row = trace.weights[i]
    best = most_attended(row)
    top = format_number(float(row[best[0]]))
    explanation = f"Row {i + 1} of α is [{', '.join(format_number(a) for a in row)}]; the largest weight, {top}, "
    if len(best) == 1:
        explanation += f"is on “{labels[best[0]]}” (column {best[0] + 1})."
    else:
        names = " and ".join(f"“{labels[j]}” (column {j + 1})" for j in best)
        words = {trace.tokens[j] for j in best}
        why = (f"they are the same word, “{trace.tokens[best[0]]}”, and without positional encodings equal words "
               "have equal embeddings, so equal keys and equal scores" if len(words) == 1 and
               trace.positional_encoding is None else "their keys give this query exactly the same score")
        explanation += f"is on {names}, an exact tie: {why}. Each of them is a right answer."
    return Question(
        key=f"{lid}-most", prompt=f"Which key does the query “{labels[i]}” (row {i + 1}) attend to most?",
        options=tuple(labels), answer=labels[best[0]], also=tuple(labels[j] for j in best[1:]),
        explanation=explanation,
    )
