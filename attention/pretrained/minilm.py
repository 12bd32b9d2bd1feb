"""all-MiniLM-L6-v2: a 6-layer BERT encoder (12 heads, d_model 384, d_head 32), forward in NumPy.

    h⁰ = LayerNorm(word[ids] + position[0 … n−1] + type[0])
    for each layer ℓ:
        Q, K, V = hˡ·W_Q + b_Q, hˡ·W_K + b_K, hˡ·W_V + b_V          split into 12 heads of 32
        α = softmax(Q·Kᵀ/√32)   (no mask: an encoder sees the whole sentence)
        a = LayerNorm(hˡ + concat(α·V)·W_O + b_O)
        hˡ⁺¹ = LayerNorm(a + GELU(a·W₁ + b₁)·W₂ + b₂)

Weights come from the package's ``model.safetensors`` (read by ``safetensors``' NumPy API; Hugging
Face stores a linear layer's weight as [out, in], transposed once here), the tokens from its
``tokenizer.json`` (read by ``tokenizers``, with its padding and truncation to 128 switched off).
LayerNorm's ε is 1e-12, as in the model's config. float32 throughout, as the model was trained.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import NamedTuple

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

from attention.core import softmax_
from attention.pretrained.common import (
    MODELS,
    Array,
    Attentions,
    check_head,
    check_length,
    check_sentence,
    gelu_,
    layer_norm,
    recent_forwards,
)
from attention.projections import Projections
from attention.trace import AttentionTrace, Embedded, trace_attention


class Layer(NamedTuple):
    w_qkv: Array  # [d_model, 3·d_model]: W_Q | W_K | W_V, as [in, out]
    b_qkv: Array  # [3·d_model]
    w_o: Array  # [d_model, d_model]
    b_o: Array
    ln1: tuple[Array, Array]  # γ, β of the LayerNorm after attention
    w_1: Array  # [d_model, 1536]
    b_1: Array
    w_2: Array  # [1536, d_model]
    b_2: Array
    ln2: tuple[Array, Array]


class Forward(NamedTuple):
    ids: list[int]
    tokens: list[str]
    inputs: list[Array]  # hˡ, the hidden state each layer's attention receives   [layers][n, d_model]
    weights: Array  # α   [layers, heads, n, n]
    embedding: Array  # the sentence embedding: the last layer's output, averaged, unit length   [d_model]


class MiniLM:
    info = MODELS["minilm"]

    def __init__(self, directory: Path) -> None:
        config = json.loads((directory / "config.json").read_text())
        self.eps = float(config["layer_norm_eps"])  # 1e-12; 1e-5 would be off by ~2e-3
        w = load_file(directory / "model.safetensors")
        self.word = w["embeddings.word_embeddings.weight"]  # [30522, 384]
        self.position = w["embeddings.position_embeddings.weight"]  # [512, 384]
        self.type0 = w["embeddings.token_type_embeddings.weight"][0]  # [384]
        self.ln_embed = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers = []
        for i in range(self.info.layers):
            p = f"encoder.layer.{i}."
            qkv = [w[f"{p}attention.self.{m}.weight"] for m in ("query", "key", "value")]  # [out, in] each
            self.layers.append(Layer(
                np.ascontiguousarray(np.concatenate(qkv).T),  # [in, 3·out]: one product makes Q, K and V
                np.concatenate([w[f"{p}attention.self.{m}.bias"] for m in ("query", "key", "value")]),
                np.ascontiguousarray(w[f"{p}attention.output.dense.weight"].T), w[f"{p}attention.output.dense.bias"],
                (w[f"{p}attention.output.LayerNorm.weight"], w[f"{p}attention.output.LayerNorm.bias"]),
                np.ascontiguousarray(w[f"{p}intermediate.dense.weight"].T), w[f"{p}intermediate.dense.bias"],
                np.ascontiguousarray(w[f"{p}output.dense.weight"].T), w[f"{p}output.dense.bias"],
                (w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"]),
            ))
        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self.tokenizer.no_padding()  # the shipped file pads and truncates to 128
        self.tokenizer.no_truncation()
        self.recent = recent_forwards(self.forward)  # what attentions and head_trace use

    def tokenize(self, sentence: str) -> tuple[list[int], list[str]]:
        """The model's WordPieces: lower-cased, accents stripped, [CLS] … [SEP], [UNK] for what the
        vocabulary lacks. Raises SentenceError for empty or too long text."""
        encoding = self.tokenizer.encode(check_sentence(sentence))
        check_length(encoding.tokens, "MiniLM")
        return list(encoding.ids), list(encoding.tokens)

    def unknown_words(self, sentence: str) -> list[str]:
        """The pieces of the sentence that became [UNK]: each a whole word (as BERT splits words: at
        spaces, and around punctuation and CJK characters), not the one character the vocabulary lacks."""
        encoding = self.tokenizer.encode(check_sentence(sentence))
        return [sentence[a:b] for token, (a, b) in zip(encoding.tokens, encoding.offsets, strict=True)
                if token == "[UNK]"]

    def forward(self, sentence: str) -> Forward:
        ids, tokens = self.tokenize(sentence)
        h = layer_norm(self.word[ids] + self.position[:len(ids)] + self.type0, *self.ln_embed, self.eps)  # [n, d]
        return self.run(ids, tokens, h, 0, frozenset())

    def run(self, ids: list[int], tokens: list[str], h: Array, start: int, off: frozenset[tuple[int, int]],
            before: Forward | None = None) -> Forward:
        """Layers ``start`` … 5 on h (what layer ``start`` receives), with the heads in ``off`` switched
        off; the layers before ``start`` are ``before``'s."""
        n = len(ids)
        inputs = list(before.inputs[:start]) if before else []
        weights = np.empty((self.info.layers, self.info.heads, n, n), dtype=np.float32)
        if before:
            weights[:start] = before.weights[:start]
        for index in range(start, self.info.layers):
            inputs.append(h)
            h, weights[index] = self.layer_forward(self.layers[index], h,
                                                   [head for layer, head in off if layer == index])
        pooled = h.mean(axis=0)  # sentence-transformers' mean pooling, then its Normalize layer
        return Forward(ids, tokens, inputs, weights, pooled / np.linalg.norm(pooled))

    def layer_forward(self, layer: Layer, h: Array, off: list[int]) -> tuple[Array, Array]:
        """One encoder layer on h [n, d]: (its output [n, d], α [heads, n, n]). The heads in ``off``
        are switched off: their α·V is set to zero before W_O."""
        n, d, heads, d_head = h.shape[0], self.info.d_model, self.info.heads, self.info.d_head
        qkv = h @ layer.w_qkv + layer.b_qkv  # [n, d] @ [d, 3d] -> [n, 3d]
        q, k, v = (qkv[:, i * d:(i + 1) * d].reshape(n, heads, d_head).transpose(1, 0, 2) for i in range(3))
        scores = q @ k.transpose(0, 2, 1)  # [heads, n, d_head] @ [heads, d_head, n] -> [heads, n, n]
        scores *= np.float32(1 / np.sqrt(d_head))
        alpha = softmax_(scores)  # [heads, n, n]
        heads_out = alpha @ v  # [heads, n, d_head]
        heads_out[off] = 0
        context = heads_out.transpose(1, 0, 2).reshape(n, d)  # [n, d]
        a = layer_norm(h + context @ layer.w_o + layer.b_o, *layer.ln1, self.eps)
        inner = a @ layer.w_1  # [n, 1536]
        inner += layer.b_1
        out = gelu_(inner) @ layer.w_2
        out += layer.b_2
        out += a
        return layer_norm(out, *layer.ln2, self.eps), alpha

    def ablated(self, sentence: str, off: frozenset[tuple[int, int]]) -> Forward:
        """The sentence's run with the heads in ``off`` switched off (their α·V zero before W_O): every
        later layer's α and the sentence embedding, as they become. The layers before the first head
        switched off are the original run's."""
        fwd = self.recent(sentence)
        for layer, head in off:
            check_head(self.info, layer, head)
        if not off:
            return fwd
        start = min(layer for layer, _ in off)
        return self.run(fwd.ids, fwd.tokens, fwd.inputs[start], start, off, before=fwd)

    def attentions(self, sentence: str) -> Attentions:
        """(the model's tokens, α of every head [layers, heads, n, n])."""
        fwd = self.recent(sentence)
        return Attentions(fwd.tokens, fwd.weights)

    def head_trace(self, sentence: str, layer: int, head: int) -> AttentionTrace:
        """One real head as the walkthrough's trace: X is the hidden state layer ``layer`` receives,
        W_Q, W_K, W_V [384 × 32] and b_Q, b_K, b_V [32] are the head's slices. Computed in float64
        from the float32 weights, so its α equals the forward's to about 1e-6."""
        check_head(self.info, layer, head)
        fwd = self.recent(sentence)
        x = fwd.inputs[layer].astype(np.float64)  # [n, d_model]
        d, d_head = self.info.d_model, self.info.d_head
        cols = [slice(i * d + head * d_head, i * d + (head + 1) * d_head) for i in range(3)]  # Q, K, V columns
        w = self.layers[layer].w_qkv.astype(np.float64)
        b = self.layers[layer].b_qkv.astype(np.float64)
        embedded = Embedded(sentence, tuple(fwd.tokens), 0, x, None, x)
        trace = trace_attention(embedded, Projections(*(w[:, c] for c in cols)), preset="pretrained",
                                biases=Projections(*(b[c] for c in cols)))
        return dataclasses.replace(trace, token_ids=tuple(fwd.ids), x_is=self.x_is(layer))

    @staticmethod
    def x_is(layer: int) -> str:
        """What layer ``layer`` (from 0) receives as X, in LaTeX with layers counted from 1 as on the page."""
        if layer == 0:
            return (r"\mathrm{LayerNorm}\big(E_{\text{word}}[\text{ids}] + E_{\text{position}} + "
                    r"E_{\text{segment}}\big)")
        return rf"h^{{({layer})}},\ \text{{the output of layer }} {layer}"
