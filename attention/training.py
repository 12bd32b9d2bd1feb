"""Train one attention layer on a small synthetic task, with a hand-written backward pass.

The model (h heads, d_k = d_model / h, a causal mask, no residual):

    X = E[tokens] + P                                   [n, d_model]   E, P fixed (seeded, sinusoidal)
    α^h = softmax(mask(X W_Q^h (X W_K^h)ᵀ / √d_k))        [n, n]         one per head
    O = concat_h(α^h · X W_V^h)                          [n, d_model]
    logits = O · W_O + b                                [n, C]         C answer classes
    loss = mean over the positions that have an answer of −log softmax(logits)_answer

W_Q, W_K, W_V, W_O and the read-out's bias b are learned; the embeddings are fixed. b is the same at
every position, so alone it can only learn the best constant answer; whatever the model gets right
beyond the no-search strategies (``baselines``) came through the attention layer: where it looks
(W_Q, W_K) and what it brings back (W_V, W_O).
``gradients`` returns ∂loss/∂θ for every learned θ; tests check them against central finite
differences, and ``tests/by_hand/torch_checks.py`` against PyTorch's autograd.

The held-out set is drawn first, distinct sequences; a training batch never holds one of them (a
held-out sequence drawn for training is drawn again), so "never trained on" holds by construction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from attention.core import causal_mask, softmax_
from attention.embeddings import sinusoidal_positional_encoding
from attention.messages import N_
from attention.projections import Projections
from attention.trace import AttentionTrace, Embedded, trace_attention

Array = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
NO_ANSWER = -1  # a position whose answer is not asked (not in the loss, not in the accuracy)
OPTIMIZERS = ("adam", "sgd")
HEADS = (1, 2, 3, 4)
LEARNING_RATES = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
RUN_LENGTHS = (50, 100, 200, 300, 500, 1000, 2000)
SNAPSHOTS = 30  # about this many saved states per run, evenly spaced (plus step 0)
HELD_OUT = 512  # distinct sequences never trained on; accuracy and α are measured on them
ADAM_BETAS, ADAM_EPS = (0.9, 0.999), 1e-8


# ---------------------------------------------------------------------------------------------
# The tasks


class Batch(NamedTuple):
    tokens: IntArray  # [B, n] ids into the task's vocabulary
    answers: IntArray  # [B, n] the class each position must give, NO_ANSWER where none is asked


@dataclass(frozen=True)
class Task:
    """A synthetic task that needs attention: which token to look at depends on the sequence."""

    name: str
    title: str  # English, marked N_ (attention.messages): the page translates it, as rule and looks_at
    rule: str  # what the model must do, in one sentence
    vocabulary: tuple[str, ...]  # the tokens
    classes: tuple[str, ...]  # the answers' names
    length: int  # n, tokens per sequence
    sample: Callable[[np.random.Generator, int], Batch] = field(repr=False)
    table: Callable[[np.random.Generator, int], Array] = field(repr=False)  # the [V, d_model] embeddings
    looks_at: str  # which key the answer needs, for the page
    needed: Callable[[IntArray], IntArray] = field(repr=False)  # [B, n] tokens -> the key each answer needs
    no_search: tuple[tuple[str, Callable[[IntArray], npt.NDArray[np.float64]]], ...] = field(repr=False)
    # (name, tokens [B, n] -> the chance [B, n] that a strategy which needs no search gives the right answer)


LETTERS = tuple("abcdefgh")


def _sample_previous(rng: np.random.Generator, size: int) -> Batch:
    """Random letters; position i (from the 2nd on) must name the letter at i − 1."""
    tokens = rng.integers(0, len(LETTERS), (size, 8))  # [B, n]
    answers = np.full_like(tokens, NO_ANSWER)
    answers[:, 1:] = tokens[:, :-1]
    return Batch(tokens, answers)


FIRST_LETTERS = LETTERS[:4]  # few letters, so that most sequences repeat some


def _sample_first(rng: np.random.Generator, size: int) -> Batch:
    """Random letters; position i must name the position where its letter first occurs."""
    tokens = rng.integers(0, len(FIRST_LETTERS), (size, 8))  # [B, n]
    same = tokens[:, :, None] == tokens[:, None, :]  # [B, n, n]: token i equals token j
    answers = same.argmax(axis=2)  # the first j with the same letter (j ≤ i, since j = i matches)
    return Batch(tokens, answers)


NAMES, DIGITS, PAIRS = tuple("abcdef"), tuple("0123456789"), 4
LOOKUP_VOCABULARY = tuple(f"{n}={d}" for n in NAMES for d in DIGITS) + tuple(f"?{n}" for n in NAMES)


def _sample_lookup(rng: np.random.Generator, size: int) -> Batch:
    """Four pairs "name=digit" with different names, then "?name": the last token must give that digit."""
    names = np.argsort(rng.random((size, len(NAMES))), axis=1)[:, :PAIRS]  # [B, 4] distinct names
    digits = rng.integers(0, len(DIGITS), (size, PAIRS))  # [B, 4]
    asked = rng.integers(0, PAIRS, size)  # [B] which pair is asked for
    rows = np.arange(size)
    query = len(NAMES) * len(DIGITS) + names[rows, asked]  # the id of "?name"
    tokens = np.concatenate([names * len(DIGITS) + digits, query[:, None]], axis=1)  # [B, 5]
    answers = np.full_like(tokens, NO_ANSWER)
    answers[:, -1] = digits[rows, asked]
    return Batch(tokens, answers)


def _letters_table(letters: tuple[str, ...]) -> Callable[[np.random.Generator, int], Array]:
    def table(rng: np.random.Generator, d_model: int) -> Array:
        return rng.standard_normal((len(letters), d_model))  # one N(0, 1) vector per letter

    return table


def _lookup_table(rng: np.random.Generator, d_model: int) -> Array:
    """"b=7" is e(b) + e(7): the name part is what a query should match, the digit part what to bring
    back. "?b" is e(b) + e(?)."""
    name, digit = rng.standard_normal((len(NAMES), d_model)), rng.standard_normal((len(DIGITS), d_model))
    ask = rng.standard_normal(d_model)
    pairs = (name[:, None, :] + digit[None, :, :]).reshape(-1, d_model)  # [60, d_model], "a=0", "a=1", …
    return np.concatenate([pairs, name + ask])  # [66, d_model]


# Which key each answer needs (the key that holds it), and strategies that need no search: what a
# head gets by looking at itself, at the token before, or everywhere alike. Each gives, per position,
# the chance that it answers right (a tie between equally common answers is a fair draw); the verdict
# asks for clearly more than the best of them (``baselines``).


def _needed_previous(tokens: IntArray) -> IntArray:
    needed = np.broadcast_to(np.arange(tokens.shape[1]) - 1, tokens.shape).copy()  # [B, n]: the key i − 1
    needed[:, 0] = NO_ANSWER
    return needed


def _needed_first(tokens: IntArray) -> IntArray:
    return (tokens[:, :, None] == tokens[:, None, :]).argmax(axis=2)  # [B, n]: the first j with the same letter


def _needed_lookup(tokens: IntArray) -> IntArray:
    needed = np.full_like(tokens, NO_ANSWER)
    names = tokens[:, :PAIRS] // len(DIGITS)  # [B, 4] the entries' names
    asked = tokens[:, -1] - len(NAMES) * len(DIGITS)  # [B] the name after "?"
    needed[:, -1] = (names == asked[:, None]).argmax(axis=1)  # the entry with that name
    return needed


def _mode_chance(values: IntArray, answer: IntArray) -> Array:
    """[B, m] values, [B] answers -> [B]: the chance that "the most common value" is the answer."""
    counts = np.stack([np.bincount(row, minlength=values.max() + 1) for row in values])  # [B, values]
    modes = counts == counts.max(axis=1, keepdims=True)  # the answer is always one of the values here
    return modes[np.arange(len(values)), answer] / modes.sum(axis=1)


def _own_token(tokens: IntArray) -> Array:
    chance = np.zeros(tokens.shape)
    chance[:, 1:] = tokens[:, 1:] == tokens[:, :-1]  # the answer at i is token i − 1
    return chance


def _most_common_so_far(tokens: IntArray) -> Array:
    chance = np.zeros(tokens.shape)
    for i in range(1, tokens.shape[1]):
        chance[:, i] = _mode_chance(tokens[:, : i + 1], tokens[:, i - 1])
    return chance


def _own_position(tokens: IntArray) -> Array:
    return (_needed_first(tokens) == np.arange(tokens.shape[1])).astype(float)  # right where the letter is new


def _entry_before(tokens: IntArray) -> Array:
    chance = np.zeros(tokens.shape)
    digits = tokens[:, :PAIRS] % len(DIGITS)  # [B, 4]
    chance[:, -1] = digits[:, -1] == digits[np.arange(len(tokens)), _needed_lookup(tokens)[:, -1]]
    return chance


def _most_common_digit(tokens: IntArray) -> Array:
    chance = np.zeros(tokens.shape)
    digits = tokens[:, :PAIRS] % len(DIGITS)  # [B, 4]
    chance[:, -1] = _mode_chance(digits, digits[np.arange(len(tokens)), _needed_lookup(tokens)[:, -1]])
    return chance


# (each strategy's name says how an attention head could follow it: looking at itself, at the token before, or
# everywhere alike; whole messages, so that a language words each)
TASKS = {
    task.name: task
    for task in (
        Task("previous", N_("Copy the previous token"),
             N_("At every position from the 2nd on, name the token just before."),
             LETTERS, LETTERS, 8, _sample_previous, _letters_table(LETTERS), N_("the token just before"),
             _needed_previous, ((N_("its own token (looking at itself)"), _own_token),
                                (N_("the most common letter so far (looking everywhere alike)"),
                                 _most_common_so_far))),
        Task("lookup", N_("Look up a value (a tiny phonebook)"),
             N_("Four entries name=digit, then ?name: give the digit stored under that name."),
             LOOKUP_VOCABULARY, DIGITS, PAIRS + 1, _sample_lookup, _lookup_table, N_("the entry with the same name"),
             _needed_lookup, ((N_("the last entry's digit (looking at the token before)"), _entry_before),
                              (N_("the most common stored digit (looking everywhere alike)"), _most_common_digit))),
        Task("first", N_("Find the first occurrence"),
             N_("At every position, give the position where this token occurs first."),
             FIRST_LETTERS, tuple(str(i + 1) for i in range(8)), 8, _sample_first, _letters_table(FIRST_LETTERS),
             N_("the first token equal to it"), _needed_first,
             ((N_("its own position (looking at itself)"), _own_position),)),
    )
}


def held_out_set(task: Task, seed: int) -> Batch:
    """HELD_OUT distinct sequences of ``task`` (a stream of their own from the seed), in the order drawn."""
    rng = np.random.default_rng([seed, 3])
    kept: dict[bytes, int] = {}  # sequence -> its row in the draws
    draws = []
    while len(kept) < HELD_OUT:
        batch = task.sample(rng, HELD_OUT)
        offset = sum(len(d.tokens) for d in draws)
        draws.append(batch)
        for r, row in enumerate(batch.tokens):
            if len(kept) < HELD_OUT:
                kept.setdefault(row.tobytes(), offset + r)
    tokens = np.concatenate([d.tokens for d in draws])
    answers = np.concatenate([d.answers for d in draws])
    rows = list(kept.values())
    return Batch(tokens[rows], answers[rows])


def sequence_keys(tokens: IntArray) -> set[bytes]:
    """One hashable key per sequence (row of ``tokens`` [B, n])."""
    return {row.tobytes() for row in np.ascontiguousarray(tokens)}


def training_batch(task: Task, rng: np.random.Generator, size: int, held_out: set[bytes]) -> Batch:
    """``size`` fresh sequences, none of them held out: a held-out sequence drawn here is drawn again."""
    tokens, answers = task.sample(rng, size)
    redo = [r for r in range(size) if tokens[r].tobytes() in held_out]
    while redo:
        again = task.sample(rng, len(redo))
        tokens[redo], answers[redo] = again.tokens, again.answers
        redo = [r for r in redo if tokens[r].tobytes() in held_out]
    return Batch(tokens, answers)


def baselines(task: Task, held: Batch) -> tuple[tuple[str, float], ...]:
    """Held-out accuracy of the strategies that need no search: always the most common answer, and the
    task's own (``Task.no_search``)."""
    asked = held.answers != NO_ANSWER  # [B, n]
    answers = held.answers[asked]
    constant = (N_("always the most common answer"), float(np.bincount(answers).max() / answers.size))
    return (constant, *((name, float(np.mean(chance(held.tokens)[asked]))) for name, chance in task.no_search))


def examples(task: Task, seed: int, count: int = 3) -> Batch:
    """The first ``count`` held-out sequences of ``task`` with their answers, to show: never trained on."""
    held = held_out_set(task, seed)
    return Batch(held.tokens[:count], held.answers[:count])


# ---------------------------------------------------------------------------------------------
# The model and its gradients


@dataclass(frozen=True)
class Parameters:
    """Everything that is learned. h heads, d_k = d_model / h, C classes."""

    w_q: Array  # [h, d_model, d_k]
    w_k: Array  # [h, d_model, d_k]
    w_v: Array  # [h, d_model, d_k]
    w_o: Array  # [h·d_k, C]
    b: Array  # [C]

    def items(self):
        return [(f.name, getattr(self, f.name)) for f in fields(self)]

    def map(self, fn: Callable[..., Array], *others: Parameters) -> Parameters:
        """A Parameters whose every array is fn(this array, the same array of each of ``others``)."""
        return Parameters(**{name: fn(a, *(getattr(o, name) for o in others)) for name, a in self.items()})


PARAMETER_NAMES = tuple(f.name for f in fields(Parameters))


def initial_parameters(rng: np.random.Generator, d_model: int, heads: int, classes: int) -> Parameters:
    """Entries ~ N(0, 1/d_model) (as ``random_projections``), b = 0: α starts close to uniform."""
    if d_model % heads:
        raise ValueError(f"The number of heads ({heads}) must divide d_model ({d_model}).")
    d_k = d_model // heads
    scale = 1 / np.sqrt(d_model)
    w_q, w_k, w_v = (rng.standard_normal((heads, d_model, d_k)) * scale for _ in range(3))
    return Parameters(w_q, w_k, w_v, rng.standard_normal((heads * d_k, classes)) * scale, np.zeros(classes))


class Forward(NamedTuple):
    """What the forward pass keeps for the backward pass."""

    x: Array  # [B, n, d_model]
    q: Array  # [B, h, n, d_k]
    k: Array  # [B, h, n, d_k]
    v: Array  # [B, h, n, d_k]
    weights: Array  # α   [B, h, n, n]
    heads_out: Array  # concat_h(α^h V^h)   [B, n, h·d_k]
    probabilities: Array  # softmax(logits)   [B, n, C]


def forward(params: Parameters, x: Array) -> Forward:
    """logits = concat_h(softmax(mask(Q^h K^hᵀ/√d_k)) V^h)·W_O + b, returned as probabilities."""
    batch, n, _ = x.shape
    heads, _, d_k = params.w_q.shape
    q = np.einsum("bnd,hde->bhne", x, params.w_q)  # [B, n, d_model] · [h, d_model, d_k] -> [B, h, n, d_k]
    k = np.einsum("bnd,hde->bhne", x, params.w_k)  # [B, h, n, d_k]
    v = np.einsum("bnd,hde->bhne", x, params.w_v)  # [B, h, n, d_k]
    z = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)  # [B, h, n, d_k] @ [B, h, d_k, n] -> [B, h, n, n]
    z[..., ~causal_mask(n)] = -np.inf  # query i may look at keys j ≤ i
    weights = softmax_(z)  # [B, h, n, n]
    heads_out = np.swapaxes(weights @ v, 1, 2).reshape(batch, n, heads * d_k)  # [B, n, h·d_k]
    logits = heads_out @ params.w_o + params.b  # [B, n, C]
    return Forward(x, q, k, v, weights, heads_out, softmax_(logits))


def loss_and_accuracy(fwd: Forward, answers: IntArray) -> tuple[float, float]:
    """loss = mean −log p(answer) over the asked positions; accuracy = share whose argmax is the answer."""
    asked = answers != NO_ANSWER  # [B, n]
    p = fwd.probabilities[asked, answers[asked]]  # [N]
    loss = float(-np.mean(np.log(np.maximum(p, 1e-300))))
    accuracy = float(np.mean(fwd.probabilities[asked].argmax(axis=-1) == answers[asked]))
    return loss, accuracy


def backward(params: Parameters, fwd: Forward, answers: IntArray) -> Parameters:
    """∂loss/∂θ for every θ, by the chain rule through the forward pass, last step first."""
    batch, n, _ = fwd.x.shape
    heads, _, d_k = params.w_q.shape
    asked = answers != NO_ANSWER  # [B, n]
    d_logits = fwd.probabilities.copy()  # ∂loss/∂logits = (p − onehot(answer)) / N on asked positions
    d_logits[asked, answers[asked]] -= 1
    d_logits[~asked] = 0
    d_logits /= asked.sum()  # [B, n, C]
    d_w_o = fwd.heads_out.reshape(batch * n, -1).T @ d_logits.reshape(batch * n, -1)  # [h·d_k, C]
    d_b = d_logits.sum(axis=(0, 1))  # [C]
    d_heads = np.swapaxes((d_logits @ params.w_o.T).reshape(batch, n, heads, d_k), 1, 2)  # [B, h, n, d_k]
    d_weights = d_heads @ np.swapaxes(fwd.v, -1, -2)  # ∂/∂α = ∂O·Vᵀ   [B, h, n, n]
    d_v = np.swapaxes(fwd.weights, -1, -2) @ d_heads  # ∂/∂V = αᵀ·∂O   [B, h, n, d_k]
    a = fwd.weights
    d_z = a * (d_weights - np.sum(d_weights * a, axis=-1, keepdims=True))  # softmax: α ⊙ (∂α − Σ_j ∂α_j α_j)
    d_z /= np.sqrt(d_k)  # z = q·k/√d_k; masked α are 0, so their ∂z are 0 too
    d_q = d_z @ fwd.k  # [B, h, n, n] @ [B, h, n, d_k] -> [B, h, n, d_k]
    d_k_ = np.swapaxes(d_z, -1, -2) @ fwd.q  # [B, h, n, d_k]
    grad = {name: np.einsum("bnd,bhne->hde", fwd.x, d) for name, d in (("w_q", d_q), ("w_k", d_k_), ("w_v", d_v))}
    return Parameters(grad["w_q"], grad["w_k"], grad["w_v"], d_w_o, d_b)


def gradients(params: Parameters, x: Array, answers: IntArray) -> tuple[float, Parameters]:
    """(loss, ∂loss/∂θ for every learned θ) on inputs x [B, n, d_model] with ``answers`` [B, n]."""
    fwd = forward(params, x)
    return loss_and_accuracy(fwd, answers)[0], backward(params, fwd, answers)


# ---------------------------------------------------------------------------------------------
# Optimisers


def sgd_step(params: Parameters, grad: Parameters, lr: float) -> Parameters:
    """θ ← θ − η·∂loss/∂θ."""
    return params.map(lambda p, g: p - lr * g, grad)


class AdamState(NamedTuple):
    m: Parameters  # running mean of the gradients
    v: Parameters  # running mean of their squares
    t: int  # steps taken


def adam_step(params: Parameters, grad: Parameters, lr: float, state: AdamState) -> tuple[Parameters, AdamState]:
    """Adam (Kingma & Ba 2015): θ ← θ − η·m̂/(√v̂ + ε), m̂ and v̂ the bias-corrected running moments."""
    (b1, b2), t = ADAM_BETAS, state.t + 1
    m = state.m.map(lambda m, g: b1 * m + (1 - b1) * g, grad)
    v = state.v.map(lambda v, g: b2 * v + (1 - b2) * g * g, grad)
    new = params.map(lambda p, m_, v_: p - lr * (m_ / (1 - b1**t)) / (np.sqrt(v_ / (1 - b2**t)) + ADAM_EPS), m, v)
    return new, AdamState(m, v, t)


# ---------------------------------------------------------------------------------------------
# A training run


@dataclass(frozen=True)
class TrainingConfig:
    task: str = "previous"
    heads: int = 1
    optimizer: str = "adam"
    learning_rate: float = 0.01
    steps: int = 300
    seed: int = 42
    d_model: int = 12  # divisible by 1, 2, 3 and 4 heads
    batch: int = 64


@dataclass(frozen=True)
class Run:
    """Everything a page shows of one training run; the same config always gives the same run."""

    config: TrainingConfig
    task: Task
    table: Array  # the fixed embeddings E   [V, d_model]
    positional: Array  # P   [n, d_model]
    held_out: Batch  # HELD_OUT distinct sequences, none of them in any training batch
    losses: Array  # the loss on each step's training batch, before that step's update   [steps done]
    snapshot_steps: tuple[int, ...]  # the steps whose parameters were kept (0 = before training)
    snapshots: tuple[Parameters, ...]
    held_out_loss: Array  # [snapshots]
    held_out_accuracy: Array  # [snapshots]
    baselines: tuple[tuple[str, float], ...]  # (strategy that needs no search, its held-out accuracy)
    stopped_at: int | None  # the step where the loss or the parameters stopped being finite (training stopped)

    @property
    def best_guess(self) -> float:
        """The accuracy of always giving the held-out set's most common answer."""
        return self.baselines[0][1]

    @property
    def best_baseline(self) -> tuple[str, float]:
        """The strategy that needs no search with the highest held-out accuracy."""
        return max(self.baselines, key=lambda b: b[1])

    def inputs(self, tokens: IntArray) -> Array:
        """X = E[tokens] + P   [B, n, d_model]."""
        return self.table[tokens] + self.positional


def snapshot_steps(steps: int) -> tuple[int, ...]:
    """0, then every ⌈steps / SNAPSHOTS⌉ steps, and always the last."""
    every = -(-steps // SNAPSHOTS)
    return tuple(sorted({*range(0, steps + 1, every), steps}))


def _beginning(config: TrainingConfig) -> tuple[Task, list[np.random.Generator], Array, Array, Parameters]:
    """A run before its first step: the task, its seed's random streams, the fixed embeddings E [V, d_model],
    the positions P [n, d_model] and the initial parameters (the same every time for the same config)."""
    task = TASKS[config.task]
    streams = [np.random.default_rng([config.seed, k]) for k in range(3)]
    table = task.table(streams[0], config.d_model)  # [V, d_model]
    positional = sinusoidal_positional_encoding(task.length, config.d_model)  # [n, d_model]
    params = initial_parameters(streams[1], config.d_model, config.heads, len(task.classes))
    return task, streams, table, positional, params


def train(config: TrainingConfig, on_progress: Callable[[int], None] | None = None,
          on_batch: Callable[[Batch], None] | None = None) -> Run:
    """Train ``config`` from its seed; ``on_progress(step)`` is called at every snapshot, ``on_batch``
    with every training batch.

    Four random streams from the seed: embeddings, initial parameters, training batches (fresh ones
    every step, never a held-out sequence), held-out set. Training stops early if the loss stops
    being finite.
    """
    if config.task not in TASKS:
        raise ValueError(f"The task must be one of {', '.join(TASKS)}, got {config.task!r}.")
    if config.optimizer not in OPTIMIZERS:
        raise ValueError(f"The optimizer must be one of {', '.join(OPTIMIZERS)}, got {config.optimizer!r}.")
    task, streams, table, positional, params = _beginning(config)
    held_out = held_out_set(task, config.seed)
    never = sequence_keys(held_out.tokens)
    held_x = table[held_out.tokens] + positional  # [HELD_OUT, n, d_model]
    zeros = params.map(np.zeros_like)
    adam = AdamState(zeros, zeros, 0)
    keep = snapshot_steps(config.steps)
    snapshots, held_loss, held_acc, losses = [], [], [], []
    stopped_at = None

    def save(step: int) -> bool:
        """Keep this step's parameters and their held-out numbers; False if they are no longer finite."""
        try:
            loss, accuracy = loss_and_accuracy(forward(params, held_x), held_out.answers)
        except ValueError:  # softmax got NaN or +inf: the parameters have blown up
            return False
        snapshots.append(params)
        held_loss.append(loss)
        held_acc.append(accuracy)
        if on_progress is not None:
            on_progress(step)
        return True

    save(0)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for step in range(1, config.steps + 1):
            batch = training_batch(task, streams[2], config.batch, never)
            if on_batch is not None:
                on_batch(batch)
            try:
                loss, grad = gradients(params, table[batch.tokens] + positional, batch.answers)
            except ValueError:  # as in save
                loss = np.nan
            if not np.isfinite(loss):
                stopped_at = step
                break
            losses.append(loss)
            if config.optimizer == "sgd":
                params = sgd_step(params, grad, config.learning_rate)
            else:
                params, adam = adam_step(params, grad, config.learning_rate, adam)
            if step in keep and not save(step):
                stopped_at = step
                break
    kept = tuple(s for s in keep if s < (stopped_at or config.steps + 1))
    return Run(config, task, table, positional, held_out, np.array(losses), kept, tuple(snapshots),
               np.array(held_loss), np.array(held_acc), baselines(task, held_out), stopped_at)


# ---------------------------------------------------------------------------------------------
# Reading a run


class Verdict(NamedTuple):
    kind: str  # "learned", "partly", "not learned" or "diverged"
    accuracy: float  # held-out accuracy at the last kept step
    baseline: tuple[str, float]  # the best strategy that needs no search, and its held-out accuracy
    first_loss: float  # held-out loss before training
    last_loss: float  # held-out loss at the last kept step
    unstable: bool  # the held-out loss rose well above where it started or where it had got to
    falling: bool  # the held-out loss fell steadily over the second half of the run (``steadily_falling``)


LEARNED = 0.95  # held-out accuracy from which a task counts as learned
PARTLY = 0.10  # "partly learned": at least this much above the best strategy that needs no search


def steadily_falling(steps: Array, losses: Array) -> bool:
    """Whether ``losses`` (at ``steps``) fell steadily over the second half of the run: a straight line
    fitted there falls, by more than three times the points' scatter around it. Two noisy points
    are not a trend."""
    half = steps >= steps[-1] / 2
    if half.sum() < 6:
        return False
    slope, offset = np.polyfit(steps[half], losses[half], 1)
    scatter = float(np.std(losses[half] - (slope * steps[half] + offset)))
    drop = -slope * (steps[half][-1] - steps[half][0])
    return bool(drop > 3 * scatter and drop > 0.01 * losses[half].mean())


def verdict(run: Run) -> Verdict:
    """Learned (≥ 95 % held-out accuracy), partly (10 points above the best strategy that needs no
    search), not learned, or diverged (the loss stopped being finite). Only the numbers decide."""
    accuracy = float(run.held_out_accuracy[-1])
    baseline = run.best_baseline
    if run.stopped_at is not None:
        kind = "diverged"
    elif accuracy >= LEARNED:
        kind = "learned"
    elif accuracy >= baseline[1] + PARTLY:
        kind = "partly"
    else:
        kind = "not learned"
    losses = run.held_out_loss
    unstable = bool(losses.max() > 1.2 * losses[0] or losses[-1] > 1.5 * losses.min())
    falling = steadily_falling(np.array(run.snapshot_steps, dtype=float), losses)
    return Verdict(kind, accuracy, baseline, float(losses[0]), float(losses[-1]), unstable, falling)


def example_tokens(run: Run, example: int) -> tuple[str, ...]:
    """The held-out sequence ``example`` as text."""
    return _tokens(run.task, run.held_out, example)


def _tokens(task: Task, held_out: Batch, example: int) -> tuple[str, ...]:
    return tuple(task.vocabulary[t] for t in held_out.tokens[example])


def head_trace(run: Run, snapshot: int, example: int, head: int) -> AttentionTrace:
    """Head ``head`` of the model at ``run.snapshots[snapshot]`` on held-out sequence ``example``, traced
    by the engine (the same trace as the walkthrough's: α, scores and output are its numbers)."""
    return _head_trace(run.task, run.table, run.positional, run.held_out, run.snapshots[snapshot], run.config.seed,
                       example, head)


def untrained_head_trace(config: TrainingConfig, example: int, head: int) -> AttentionTrace:
    """Head ``head`` before training on held-out sequence ``example``: what ``head_trace(train(config), 0, example,
    head)`` shows, without training (the run's beginning, replayed from its seed)."""
    task, _, table, positional, params = _beginning(config)
    return _head_trace(task, table, positional, held_out_set(task, config.seed), params, config.seed, example, head)


def _head_trace(task: Task, table: Array, positional: Array, held_out: Batch, params: Parameters, seed: int,
                example: int, head: int) -> AttentionTrace:
    tokens = _tokens(task, held_out, example)
    e = table[held_out.tokens[example]]  # [n, d_model]
    embedded = Embedded(" ".join(tokens), tokens, seed, e, positional, e + positional)
    projections = Projections(params.w_q[head], params.w_k[head], params.w_v[head])
    return trace_attention(embedded, projections, preset="trained", causal=True)


def predictions(run: Run, snapshot: int, example: int) -> IntArray:
    """The class the model at that snapshot gives at each position of held-out sequence ``example``   [n]."""
    x = run.inputs(run.held_out.tokens[example : example + 1])  # [1, n, d_model]
    return forward(run.snapshots[snapshot], x).probabilities[0].argmax(axis=-1)


def bilinear_form(params: Parameters, head: int) -> Array:
    """W_Q·W_Kᵀ / √d_k   [d_model, d_model]: z_ij = x_i·(W_Q W_Kᵀ/√d_k)·x_j, the form that decides the scores."""
    d_k = params.w_q.shape[2]
    return params.w_q[head] @ params.w_k[head].T / np.sqrt(d_k)


class ScorePart(NamedTuple):
    """One part of the learned scores, read in the task's terms: z_rc = a_r·B·b_cᵀ, B = W_Q·W_Kᵀ/√d_k."""

    name: str  # "positions", "letters" or "names"
    rows: list[str]  # the query-side ingredients a_r
    columns: list[str]  # the key-side ingredients b_c
    z: Array  # a_r·B·b_cᵀ   [rows, columns]
    allowed: npt.NDArray[np.bool_] | None  # where the causal mask lets the row's query see the column's key


def score_parts(run: Run, snapshot: int, head: int) -> list[ScorePart]:
    """The parts of z_ij = (e_i + p_i)·B·(e_j + p_j)ᵀ that the tasks are about.

    previous and first: the positions' part p_i·B·p_jᵀ (query position × key position, masked after
    the query) and the letters' part e_a·B·e_bᵀ; the cross terms e·B·p are left out.
    lookup: "?name" × "name=·", where "name=·" is that name's entries averaged over the ten digits.
    """
    form = bilinear_form(run.snapshots[snapshot], head)  # [d_model, d_model]
    task = run.task
    if task.name == "lookup":
        pairs = len(NAMES) * len(DIGITS)
        entries = run.table[:pairs].reshape(len(NAMES), len(DIGITS), -1).mean(axis=1)  # [6, d_model]
        z = run.table[pairs:] @ form @ entries.T  # [6, d_model] @ [d_model, d_model] @ [d_model, 6]
        return [ScorePart("names", [f"?{n}" for n in NAMES], [f"{n}=·" for n in NAMES], z, None)]
    p, e = run.positional, run.table  # [n, d_model], [V, d_model]
    positions = [str(i + 1) for i in range(task.length)]
    return [ScorePart("positions", positions, positions, p @ form @ p.T, causal_mask(task.length)),
            ScorePart("letters", list(task.vocabulary), list(task.vocabulary), e @ form @ e.T, None)]


def centred_rows(z: Array, allowed: npt.NDArray[np.bool_] | None = None) -> Array:
    """Each row minus its mean over the allowed cells (others: −inf). softmax(z_i + c) = softmax(z_i) for any
    constant c, so only differences within a row decide where a query looks."""
    allowed = np.ones(z.shape, dtype=bool) if allowed is None else allowed
    mean = np.sum(np.where(allowed, z, 0.0), axis=1, keepdims=True) / allowed.sum(axis=1, keepdims=True)
    return np.where(allowed, z - mean, -np.inf)


class NeededWeight(NamedTuple):
    """How much of a head's attention, on one held-out sequence, goes to the key each answer needs."""

    mean: float  # mean over the asked rows of α_i,needed(i)
    weights: tuple[float, ...]  # α_i,needed(i) of each asked row, whose mean ``mean`` is
    largest: int  # asked rows whose largest weight is on the needed key
    rows: int  # asked rows
    evenly: float  # the same mean if every row spread its weight evenly over the keys it may see


def needed_weight(run: Run, snapshot: int, example: int, head: int) -> NeededWeight:
    """α of ``head`` at ``run.snapshots[snapshot]`` on held-out sequence ``example``, read against
    ``Task.needed``: the key that holds each asked position's answer."""
    tokens = run.held_out.tokens[example : example + 1]  # [1, n]
    alpha = forward(run.snapshots[snapshot], run.inputs(tokens)).weights[0, head]  # [n, n]
    needed = run.task.needed(tokens)[0]  # [n]
    rows = np.flatnonzero(needed != NO_ANSWER)
    on_needed = alpha[rows, needed[rows]]
    largest = int(np.sum(alpha[rows].argmax(axis=1) == needed[rows]))
    return NeededWeight(float(on_needed.mean()), tuple(on_needed.tolist()), largest, len(rows),
                        float(np.mean(1 / (rows + 1))))


def score_split(run: Run, snapshot: int, example: int, head: int) -> dict[str, Array]:
    """z = x_i·B·x_jᵀ with x = e + p, split into its four parts on held-out sequence ``example``:
    e·B·eᵀ, e·B·pᵀ, p·B·eᵀ, p·B·pᵀ (each [n, n]; they add up to the head's scaled scores)."""
    form = bilinear_form(run.snapshots[snapshot], head)  # [d_model, d_model]
    e, p = run.table[run.held_out.tokens[example]], run.positional  # [n, d_model] each
    return {"e·B·eᵀ": e @ form @ e.T, "e·B·pᵀ": e @ form @ p.T, "p·B·eᵀ": p @ form @ e.T, "p·B·pᵀ": p @ form @ p.T}


def row_spread(z: Array, allowed: npt.NDArray[np.bool_]) -> float:
    """The largest spread (max − min) within a row, over the cells each row may see: what softmax sees."""
    high = np.where(allowed, z, -np.inf).max(axis=1)
    low = np.where(allowed, z, np.inf).min(axis=1)
    return float(np.max(high - low))
