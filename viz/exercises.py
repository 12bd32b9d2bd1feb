"""Predict-then-reveal questions generated from a trace: the same lesson state gives the same set (the same keys,
options and answers in every language; their words in the running one).

Each question belongs to a step of the walkthrough (``step``): it asks what the numbers on screen at that
step let a learner reason out, and a later step (``reveals``) shows the answer. Nothing asks a learner to
guess a seeded random number before it is shown:

- step 3 (X is [n × d_model], W_Q is [d_model × d_k]): what shape is Q?
- step 6 (the scaled scores Z, masked ones −∞): which key will the softmax give the largest weight (softmax
  keeps the order of a row), and one α computed from row i of Z (its numbers are rounded, so every answer
  that rounded scores can give counts); and what the causal mask makes of the first token's output;
- step 7 (α): whose value vector gets the largest share of the output (out_i = Σ_j α_ij v_j).

A question with one possible answer is not asked: nothing about a row whose query sees a single key (α is 1
on it), no mask question on a one-token sentence, no choice whose every option is right (``asks_something``).

Pure functions: the expected answers come from the engine's trace, never from the page.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, replace

import numpy as np

from attention import AttentionTrace
from viz import arithmetic
from viz.i18n import N_, listed, nt, numbers, sentences, t
from viz.labels import format_number, token_labels

# the mask question's options as the class stores them (English); a page shows each through the catalogs
MASK_OPTIONS = (N_("its own value vector v_1"), N_("the average of all the value vectors"), N_("the zero vector"),
                N_("the same as without the mask"))


@dataclass(frozen=True)
class Shown:
    """The numbers a question asks about, as the lesson's table shows them: one row of a matrix (issue 47: a class
    answers with the lesson hidden, so the question carries its numbers). Taken from the trace, never recomputed."""

    title: str  # "Row 1 of Z (the query “This”)": which numbers, as the prompt names them
    row: str  # the row's label (the query)
    columns: tuple[str, ...]  # the keys' labels
    values: tuple[str, ...]  # as the table shows them: two decimals, "−∞" for a masked score, "—" for a masked α

    def text(self) -> str:
        """The table as one sentence (its text alternative, and a narrow screen's reading of it)."""
        cells = "; ".join(t("“{key}” {value}", key=c, value=v) for c, v in zip(self.columns, self.values, strict=True))
        return t("{title}, key by key: {cells}.", title=self.title, cells=cells)


@dataclass(frozen=True)
class Question:
    key: str  # stable within one lesson state; part of the widget key
    prompt: str  # plain text (escape before Markdown)
    options: tuple[str, ...]  # the choices; empty for a number answer
    answer: str | float
    explanation: str  # why, with the numbers on the page
    also: tuple[str, ...] = ()  # other choices that are exactly as right (keys tied with the answer)
    step: int = 0  # the walkthrough step whose numbers it asks about (0: any)
    reveals: int = 0  # the step that shows the answer
    low: float | None = None  # a number answer: every value from ``low`` to ``high`` counts (to two decimals)
    high: float | None = None
    shown: Shown | None = None  # the numbers it asks about, when the prompt does not hold them

    def is_correct(self, response: str | float | None) -> bool:
        if response is None:
            return False
        if self.options:
            return response == self.answer or response in self.also
        value = float(response)
        if not np.isfinite(value):
            return False
        low = float(self.answer) if self.low is None else self.low
        high = float(self.answer) if self.high is None else self.high
        return low - 0.005 - 1e-9 <= value <= high + 0.005 + 1e-9  # "to two decimals"

    def counted(self) -> tuple[str, str]:
        """A number question's smallest and largest answers at two decimals that ``is_correct`` accepts, as
        written (the same text when one value counts; there is always one: the accepted span is 0.01 wide or more)."""
        low = float(self.answer) if self.low is None else self.low
        high = float(self.answer) if self.high is None else self.high
        right = [k for k in range(math.floor(low * 100) - 2, math.ceil(high * 100) + 3) if self.is_correct(k / 100)]
        return format_number(right[0] / 100), format_number(right[-1] / 100)

    def counts_text(self) -> str:
        """Which answers at two decimals count: "0.17 to 0.19" written as a range only when it is one (issue 47:
        "an answer from 0.18 to 0.18 counts")."""
        first, last = self.counted()
        return (t("an answer from {first} to {last} counts", first=first, last=last) if first != last
                else t("only {first} counts", first=first))


def lesson_id(trace: AttentionTrace) -> str:
    """A short id of the lesson state the questions are about: everything that changes an answer (the
    tokens, X, W_Q, W_K, W_V, the temperature and the mask), so a hand edit is a new lesson."""
    digest = hashlib.blake2b(digest_size=4)
    digest.update("\x00".join(trace.tokens).encode())
    for m in (trace.x, trace.w_q, trace.w_k, trace.w_v):
        digest.update((np.ascontiguousarray(m, dtype=np.float64) + 0.0).tobytes())  # + 0.0: −0 hashes as 0
    digest.update(f"{trace.temperature}\x00{trace.causal}".encode())
    return digest.hexdigest()


def most_attended(row: np.ndarray) -> tuple[int, ...]:
    """The keys with the largest weight in a row of α: one, or several that tie exactly
    (equal keys, for example a repeated word without positional encodings)."""
    top = float(row.max())
    return tuple(int(j) for j in np.flatnonzero(row >= top - 1e-12 * max(1.0, top)))


def clear_at_shown_precision(row: np.ndarray, allowed: np.ndarray | None = None) -> bool:
    """Whether a table at two decimals shows every key that is not tied with the best as smaller (masked keys,
    shown as −∞ or —, are never the best)."""
    allowed = np.ones(row.shape, dtype=bool) if allowed is None else allowed
    values = np.where(allowed, row, -np.inf)
    best = most_attended(values)
    shown_top = format_number(float(values.max()))
    return all(format_number(float(a)) != shown_top for j, a in enumerate(values) if j not in best and allowed[j])


def make_questions(trace: AttentionTrace) -> list[Question]:
    """Every question about this trace, in the order of their steps (class mode lists them all; the walkthrough
    asks each at its step: ``questions_for_step``)."""
    n, labels = trace.n, token_labels(trace.tokens)
    lid = lesson_id(trace)
    rng = np.random.default_rng(int(lid, 16))
    i, j = int(rng.integers(n)), int(rng.integers(n))
    # a row whose query sees one key only (a one-token sentence; the first row under the causal mask) has one
    # possible answer to every question about it: its α is 1 on that key
    rows = [r for r in range(n) if int(trace.mask[r].sum()) >= 2]
    if rows and i not in rows:
        i = rows[int(rng.integers(len(rows)))]
    if trace.causal:
        j = min(j, i)  # a key query i may see
    questions = [_shape_question(trace, lid)]
    # rows whose winner the two-decimal tables show: the scaled scores (step 6) and α (step 7) alike
    clear = [r for r in rows if clear_at_shown_precision(trace.masked_scores[r], trace.mask[r])
             and clear_at_shown_precision(trace.weights[r], trace.mask[r])]
    if clear:
        r = i if i in clear else clear[int(rng.integers(len(clear)))]
        questions.append(_winner_question(trace, r, lid, labels))
    if rows:
        questions.append(_alpha_question(trace, i, j, lid, labels))
    if n > 1:  # one token: the mask hides nothing, and every option but the zero vector is that token's v
        questions.append(_mask_question(trace, lid, labels))
    if clear:
        r = clear[int(rng.integers(len(clear)))]
        questions.append(_value_question(trace, r, lid, labels))
    if trace.head is not None:  # a head of a multi-head trace: each head has its own Q, K, Z, α and output, and two
        # heads' questions read alike (a class's history, an export) unless the prompt names the head
        questions = [replace(q, prompt=t("Head {head}: {question}", head=trace.head + 1, question=q.prompt))
                     for q in questions]
    return [q for q in questions if asks_something(q)]


def _shuffled(question: Question, basis: str) -> Question:
    """The question with its options in an order drawn from ``basis``, what the question is about written without
    words (so the same in every language, and the same for a question that reads the same word for word): a shape's
    or the mask's right option was always listed first, which a class learns (the truth audit). A choice of keys
    keeps the sentence's order."""
    seed = int.from_bytes(hashlib.blake2b(basis.encode(), digest_size=8).digest(), "big")
    order = np.random.default_rng(seed).permutation(len(question.options))
    return replace(question, options=tuple(question.options[k] for k in order))


def asks_something(question: Question) -> bool:
    """Whether a question has more than one possible answer: a number, or a choice with a wrong option (a
    choice between options that are all right, or of one option, is not asked)."""
    return not question.options or any(not question.is_correct(o) for o in question.options)


QUESTION_STEPS = frozenset({3, 6, 7})  # the steps make_questions asks at (tests/test_class_questions.py holds it)


def questions_for_step(trace: AttentionTrace, step: int) -> list[Question]:
    """The questions asked at ``step``: none at a step that has none, without making the others (a walkthrough run
    made all of them at every step: about a tenth of a step 1 edit's server time, 15.3–15.9 → 13.5–14.1 ms)."""
    if step not in QUESTION_STEPS:
        return []
    return [q for q in make_questions(trace) if q.step == step]


def _shape_question(trace: AttentionTrace, lid: str) -> Question:
    n, d_model, d_k = trace.n, trace.d_model, trace.d_k
    shapes = dict.fromkeys([f"{n} × {d_k}", f"{n} × {d_model}", f"{d_model} × {d_k}", f"{n} × {n}", f"{d_k} × {n}"])
    return _shuffled(Question(
        key=f"{lid}-shape", prompt=t("X is [{n} × {d_model}] and W_Q is [{d_model} × {d_k}]. What shape is Q = X·W_Q?",
                                     n=n, d_model=d_model, d_k=d_k)
        if trace.head is None else  # a head's W_Q is its columns of the page's [d_model × d_model] W_Q (the audit)
        t("X is [{n} × {d_model}], and this head's W_Q, {columns} of W_Q, is [{d_model} × {d_k}]. What shape is its "
          "Q = X·W_Q?", n=n, d_model=d_model, d_k=d_k, columns=columns_of(trace.head, d_k)),
        options=tuple(shapes), answer=f"{n} × {d_k}", step=3, reveals=4,
        explanation=nt("Q = X·W_Q: [{tokens} × {d_model}]·[{d_model} × {d_k}] = [{tokens} × {d_k}], one query of "
                       "d_k = {d_k} number per token.", "Q = X·W_Q: [{tokens} × {d_model}]·[{d_model} × {d_k}] = "
                       "[{tokens} × {d_k}], one query of d_k = {d_k} numbers per token.", d_k, tokens=n,
                       d_model=d_model, d_k=d_k),
    ), "|".join(shapes))


def columns_of(head: int, d_k: int) -> str:
    """Head ``head``'s columns of a [d_model × d_model] matrix (counted from 1): "columns 5–8", or "column 3"."""
    first = head * d_k + 1
    return t("column {first}", first=first) if d_k == 1 else t("columns {first}–{last}", first=first,
                                                                 last=first + d_k - 1)


def _tied(trace: AttentionTrace, best: tuple[int, ...], labels: list[str], what: str) -> str:
    names = listed([t("“{token}” (column {column})", token=labels[j], column=j + 1) for j in best])
    words = {trace.tokens[j] for j in best}
    why = (t("they are the same word, “{word}”, and without positional encodings equal words have equal embeddings, "
             "so equal keys and equal scores", word=trace.tokens[best[0]])
           if len(words) == 1 and trace.positional_encoding is None
           else t("their keys give this query exactly the same score") if what == "score"
           else t("their keys give this query exactly the same weight"))
    return t("on {names}, an exact tie: {why}. Each of them is a right answer.", names=names, why=why)


def _row_title(trace: AttentionTrace, i: int, labels: list[str], matrix: str) -> str:
    """Which row of which matrix (Z or α): "Row 2 of Z (the query “forum”)", "Row 2 of head 2's Z (…)" for a head of a
    multi-head trace (each head has its own Z and α)."""
    if trace.head is None:
        return t("Row {row} of {matrix} (the query “{query}”)", row=i + 1, matrix=matrix, query=labels[i])
    return t("Row {row} of head {head}'s {matrix} (the query “{query}”)", row=i + 1, head=trace.head + 1,
             matrix=matrix, query=labels[i])


def _z_row(trace: AttentionTrace, i: int, labels: list[str]) -> Shown:
    """Row i of the scaled scores Z as step 6's table shows it (masked keys −∞)."""
    z = np.where(trace.mask[i], trace.masked_scores[i], -np.inf)
    return Shown(_row_title(trace, i, labels, "Z"), labels[i], tuple(labels),
                 tuple(format_number(float(x)) for x in z))


def _alpha_row(trace: AttentionTrace, i: int, labels: list[str]) -> Shown:
    """Row i of α as step 7's table shows it (masked keys —)."""
    return Shown(_row_title(trace, i, labels, "α"), labels[i], tuple(labels),
                 tuple(format_number(float(a)) if ok else "—" for a, ok in zip(trace.weights[i], trace.mask[i],
                                                                              strict=True)))


def _winner_question(trace: AttentionTrace, i: int, lid: str, labels: list[str]) -> Question:
    """Step 6: which key wins α, from row i of the scaled scores (softmax keeps a row's order)."""
    z = np.where(trace.mask[i], trace.masked_scores[i], -np.inf)
    best = most_attended(z)
    shown = numbers([format_number(float(x)) for x in z])
    weight = format_number(float(trace.weights[i, best[0]]))
    explanation = t("Row {row} of Z is [{shown}]. The softmax keeps the order of a row (e^z grows with z), so the "
                    "largest scaled score, {score}, gets the largest weight: {which}", row=i + 1, shown=shown,
                    score=format_number(float(z[best[0]])),
                    which=t("“{token}” (column {column}), with α = {weight} in step 7.", token=labels[best[0]],
                            column=best[0] + 1, weight=weight) if len(best) == 1 else
                    t("{tie} Their weights in step 7 are equal, {weight} each.",
                      tie=_tied(trace, best, labels, "score"), weight=weight))
    return Question(
        key=f"{lid}-most", prompt=t("Which key will the softmax give the largest weight in row {row}, the query "
                                    "“{query}”?", row=i + 1, query=labels[i]),
        options=tuple(labels), answer=labels[best[0]], also=tuple(labels[j] for j in best[1:]), step=6, reveals=7,
        explanation=explanation, shown=_z_row(trace, i, labels),
    )


def _alpha_range(trace: AttentionTrace, i: int, j: int) -> tuple[float, float]:
    """The α_ij a learner gets from row i of Z as the table shows it (two decimals): each shown z stands for
    every value that rounds to it, and α_ij grows with z_ij and falls with the others, so the extremes are
    reached at the ends of the rounding intervals."""
    allowed = trace.mask[i]
    z = np.asarray(arithmetic.shown(np.where(allowed, trace.masked_scores[i], 0.0)), dtype=np.float64)

    def alpha(z_ij: float, others: float) -> float:
        row = np.where(allowed, z + others, -np.inf)
        row[j] = z_ij
        e = np.exp(row - row.max())
        return float(e[j] / e.sum())

    return alpha(z[j] - 0.005, +0.005), alpha(z[j] + 0.005, -0.005)


def _alpha_question(trace: AttentionTrace, i: int, j: int, lid: str, labels: list[str]) -> Question:
    """Step 6: one α computed from row i of Z."""
    low, high = _alpha_range(trace, i, j)
    return Question(
        key=f"{lid}-alpha",
        prompt=t("From row {row} of Z (the query “{query}”), compute α for the key “{key}” to two decimals: e^z of its "
                 "score over the sum of e^z of the row (masked keys, −∞, give 0).", row=i + 1, query=labels[i],
                 key=labels[j]),
        options=(), answer=float(arithmetic.shown(trace.weights[i, j])), low=low, high=high, step=6, reveals=7,
        shown=_z_row(trace, i, labels),
        explanation=t("{sum}. The table's scores are rounded to two decimals, so {counts}.",
                      sum=_alpha_written_out(trace, i, j),
                      counts=Question("", "", (), 0.0, "", low=low, high=high).counts_text()),
    )


def _alpha_written_out(trace: AttentionTrace, i: int, j: int) -> str:
    """α_ij = e^(z − m) / Σ e^(z − m) with the row's numbers, at decimals that give the shown α (3 at least;
    "≈" where none do): ``viz.arithmetic``'s rule."""
    e, total = trace.exp_scores[i, j], trace.exp_scores[i].sum()
    d = int(arithmetic.decimals_for(lambda d: arithmetic.quotient_adds_up(e, total, trace.weights[i, j], max(d, 3)),
                                    ()))
    places = max(abs(d), 3)
    return (f"α_{i + 1},{j + 1} = e^(z − m) / Σ e^(z − m) = {format_number(e, places)} / {format_number(total, places)}"
            f" {arithmetic.relation(d)} {format_number(trace.weights[i, j])}")  # the full stop: its message's (zh "。")


def _mask_question(trace: AttentionTrace, lid: str, labels: list[str]) -> Question:
    """Step 6: the first token's output under a causal mask (asked when there are two tokens or more). Options
    that are the same vector on this sentence (a repeated word without positional encodings) are all right."""
    v = trace.v  # [n, d_k]
    unmasked = np.exp(trace.scaled_scores[0] - trace.scaled_scores[0].max())
    vectors = {MASK_OPTIONS[0]: v[0], MASK_OPTIONS[1]: v.mean(axis=0), MASK_OPTIONS[2]: np.zeros_like(v[0]),
               MASK_OPTIONS[3]: (unmasked / unmasked.sum()) @ v}
    scale = 1e-9 * max(1.0, float(np.abs(v).max()))
    same = tuple(o for o in MASK_OPTIONS[1:] if np.allclose(vectors[o], v[0], rtol=0, atol=scale))
    explanation = t("The first token may attend only to itself, so α_1,1 = 1 and every other weight is 0: "
                    "out_1 = 1·v_1 = [{vector}].", vector=numbers([format_number(x) for x in v[0]]))
    if same:
        named = listed([t("“{option}”", option=t(o)) for o in same])  # apart: inside nt(), Babel's extractor lost both
        explanation = sentences(explanation, nt("On this sentence {options} is the same vector, so it is right too.",
                                                "On this sentence {options} are the same vector, so they are right "
                                                "too.", len(same), options=named))
    options = tuple(t(o) for o in MASK_OPTIONS)  # in the reader's language; a class stores them in English
    return _shuffled(Question(
        key=f"{lid}-mask",
        prompt=t("With the causal mask on, what does the output of the first token, “{token}”, become?",
                 token=labels[0]),
        options=options, answer=options[0], also=tuple(t(o) for o in same), step=6, reveals=8, explanation=explanation,
    ), "|".join([labels[0], *(arithmetic.text(float(x), 6) for x in v[0]), *same]))


def _value_question(trace: AttentionTrace, i: int, lid: str, labels: list[str]) -> Question:
    """Step 7: whose value vector gets the largest share of out_i."""
    row = np.where(trace.mask[i], trace.weights[i], -np.inf)
    best = most_attended(row)
    shown = numbers(["—" if not ok else format_number(float(a)) for a, ok in zip(trace.weights[i], trace.mask[i],
                                                                                 strict=True)])
    explanation = t("out_{row} = Σ_j α_{row},j v_j, and row {row} of α is [{shown}]: the largest weight, {weight}, is "
                    "{which}", row=i + 1, shown=shown, weight=format_number(float(trace.weights[i, best[0]])),
                    which=t("on “{token}” (column {column}), so its value vector gets the largest share.",
                            token=labels[best[0]], column=best[0] + 1)
                    if len(best) == 1 else _tied(trace, best, labels, "weight"))
    return Question(
        key=f"{lid}-value",
        prompt=t("Whose value vector gets the largest share of the output of the query “{query}” (row {row})?",
                 query=labels[i], row=i + 1),
        options=tuple(labels), answer=labels[best[0]], also=tuple(labels[j] for j in best[1:]), step=7, reveals=8,
        explanation=explanation, shown=_alpha_row(trace, i, labels),
    )


def head_questions(n: int, d_model: int, heads: int, lid: str) -> list[Question]:
    """The multi-head page's questions, asked before its numbers: the shapes a split into h heads gives."""
    d_k = d_model // heads
    one = dict.fromkeys([f"{n} × {d_k}", f"{n} × {d_model}", f"{d_model} × {d_k}", f"{n} × {n}"])
    concat = dict.fromkeys([f"{n} × {d_model}", f"{n} × {d_k}", f"{heads} × {n}", f"{n} × {heads * d_model}"])
    return [_shuffled(q, "|".join(q.options)) for q in (
        Question(key=f"{lid}-head-q", prompt=nt("d_model = {d_model} is split into h = {heads} head. What shape is "
                                                "one head's Q?", "d_model = {d_model} is split into h = {heads} heads. "
                                                "What shape is one head's Q?", heads, d_model=d_model, heads=heads),
                 options=tuple(one), answer=f"{n} × {d_k}",
                 explanation=nt("Each head gets d_k = d_model / h = {d_model} / {heads} = {d_k} column of W_Q, so its "
                                "Q = X·W_Q is [{tokens} × {d_model}]·[{d_model} × {d_k}] = [{tokens} × {d_k}].",
                                "Each head gets d_k = d_model / h = {d_model} / {heads} = {d_k} columns of W_Q, so its "
                                "Q = X·W_Q is [{tokens} × {d_model}]·[{d_model} × {d_k}] = [{tokens} × {d_k}].", d_k,
                                d_model=d_model, heads=heads, d_k=d_k, tokens=n)),
        Question(key=f"{lid}-concat", prompt=(t("The {heads} heads' outputs are put side by side. What shape is "
                                                "Concat(head outputs)?", heads=heads) if heads > 1 else
                                              t("With h = 1, the one head's output is the whole concatenation. What "
                                                "shape is Concat(head outputs)?")),
                 options=tuple(concat), answer=f"{n} × {d_model}",
                 explanation=(t("{heads} outputs of [{n} × {d_k}] side by side: [{n} × {heads} · {d_k}] = "
                                "[{n} × {d_model}], back to d_model columns, which W_O [{d_model} × {d_model}] mixes.",
                                heads=heads, n=n, d_k=d_k, d_model=d_model) if heads > 1 else
                              t("One output of [{n} × {d_k}]: [{n} × {heads} · {d_k}] = [{n} × {d_model}], back to "
                                "d_model columns, which W_O [{d_model} × {d_model}] mixes.", heads=heads, n=n, d_k=d_k,
                                d_model=d_model))),
    ) if asks_something(q)]
