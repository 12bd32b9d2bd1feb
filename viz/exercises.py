"""Predict-then-reveal exercises generated from a trace: the same sentence and seed give the same set.

Pure functions: the expected answers come from the engine's trace, never from the page.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from attention import AttentionTrace
from viz.labels import format_number, token_labels


@dataclass(frozen=True)
class Question:
    key: str  # stable within one lesson state; part of the widget key
    prompt: str  # plain text (escape before Markdown)
    options: tuple[str, ...]  # the choices; empty for a number answer
    answer: str | float
    explanation: str  # why, with the numbers on the page

    def is_correct(self, response: str | float | None) -> bool:
        if response is None:
            return False
        if self.options:
            return response == self.answer
        return abs(float(response) - float(self.answer)) <= 0.005 + 1e-9  # "to two decimals"


def lesson_id(trace: AttentionTrace) -> str:
    """A short id of the lesson state the questions are about."""
    text = f"{trace.sentence}\x00{trace.seed}\x00{trace.d_model}\x00{trace.d_k}\x00{trace.causal}\x00{trace.preset}"
    return hashlib.blake2b(text.encode(), digest_size=4).hexdigest()


def make_questions(trace: AttentionTrace) -> list[Question]:
    """Four questions about this trace: the most attended key, one α to two decimals, the shape of Q,
    and what the causal mask does to the first token."""
    n, labels = trace.n, token_labels(trace.tokens)
    lid = lesson_id(trace)
    rng = np.random.default_rng(int(lid, 16))
    i, j = int(rng.integers(n)), int(rng.integers(n))
    row = trace.weights[i]
    best = int(np.argmax(row))
    questions = [
        Question(
            key=f"{lid}-most", prompt=f"Which key does the query “{labels[i]}” (row {i + 1}) attend to most?",
            options=tuple(labels), answer=labels[best],
            explanation=f"Row {i + 1} of α is [{', '.join(format_number(a) for a in row)}]; the largest weight, "
                        f"{format_number(row[best])}, is on “{labels[best]}” (column {best + 1}).",
        ),
        Question(
            key=f"{lid}-alpha", prompt=f"What is α for query “{labels[i]}” and key “{labels[j]}”, to two decimals?",
            options=(), answer=round(float(trace.weights[i, j]), 2),
            explanation=f"α_{i + 1},{j + 1} = e^(s − m) / Σ e^(s − m) = {format_number(trace.exp_scores[i, j], 3)} / "
                        f"{format_number(trace.exp_scores[i].sum(), 3)} = {format_number(trace.weights[i, j])}.",
        ),
    ]
    shapes = dict.fromkeys([f"{n} × {trace.d_k}", f"{n} × {trace.d_model}", f"{trace.d_model} × {trace.d_k}",
                            f"{n} × {n}", f"{trace.d_k} × {n}"])
    questions.append(Question(
        key=f"{lid}-shape", prompt="What shape is Q?", options=tuple(shapes), answer=f"{n} × {trace.d_k}",
        explanation=f"Q = X·W_Q: [{n} × {trace.d_model}]·[{trace.d_model} × {trace.d_k}] = [{n} × {trace.d_k}], "
                    f"one query of d_k = {trace.d_k} numbers per token.",
    ))
    first = labels[0]
    questions.append(Question(
        key=f"{lid}-mask", prompt=f"With the causal mask on, what does the output of the first token, “{first}”, become?",
        options=("its own value vector v_1", "the average of all the value vectors", "the zero vector",
                 "the same as without the mask"),
        answer="its own value vector v_1",
        explanation=f"The first token may attend only to itself, so α_1,1 = 1 and every other weight is 0: "
                    f"out_1 = 1·v_1 = [{', '.join(format_number(x) for x in trace.v[0])}].",
    ))
    return questions
