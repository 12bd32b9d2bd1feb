"""SmolLM2-135M-Instruct: a 30-layer Llama decoder (9 query heads sharing 3 key/value heads, d_head 64,
RoPE with base 1e5, RMSNorm, SwiGLU, tied embeddings), forward in NumPy.

    h⁰ = E[ids]
    for each layer ℓ:
        a = RMSNorm(hˡ)·γ₁
        Q = a·W_Q [9 heads × 64], K = a·W_K, V = a·W_V [3 heads × 64]     (no biases)
        Q, K ← RoPE(Q, K): each pair of coordinates (c, c + 32) rotated by the angle p·θ_c
        query head h reads key/value head h // 3 (grouped-query attention)
        α = softmax(mask(Q·Kᵀ/8))   (causal: a token sees itself and the tokens before it)
        hˡ' = hˡ + concat(α·V)·W_O
        hˡ⁺¹ = hˡ' + (SiLU(m·W_gate) ⊙ m·W_up)·W_down,   m = RMSNorm(hˡ')·γ₂
    next-token logits = RMSNorm(h³⁰)·γ · Eᵀ

The weights and the vocabulary come from the package's GGUF file, read and dequantized (Q4_1,
Q8_0) by the ``gguf`` library. llama.cpp's converter stores W_Q and W_K with the rows of each head
permuted for its interleaved RoPE; ``unpermute`` puts them back in the model's true order, so each
head's columns are Hugging Face's, and RoPE is applied as Hugging Face does (rotate_half).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import NamedTuple

import numpy as np
from gguf import GGUFReader
from gguf.quants import dequantize
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

from attention.core import causal_mask, softmax, softmax_
from attention.pretrained.common import (
    MODELS,
    Array,
    Attentions,
    check_head,
    check_length,
    check_sentence,
    recent_forwards,
)
from attention.projections import Projections
from attention.tokens import visible
from attention.trace import AttentionTrace, Embedded, trace_attention

GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def byte_table() -> dict[str, int]:
    """GPT-2's byte-level alphabet: the printable character that stands for each byte (inverted).

    Written here because ``tokenizers`` applies it but does not expose it; the page needs it to show
    a token that is part of a multi-byte character (an emoji's first bytes) as its bytes."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[chr(b)] = b
        else:
            chars[chr(256 + extra)] = b
            extra += 1
    return chars


def unpermute(w: Array, heads: int) -> Array:
    """Undo llama.cpp's row permutation of W_Q or W_K ([heads·64, d_in], Hugging Face's [out, in])."""
    out, d_in = w.shape
    # the converter did w.reshape(heads, 2, 32, d_in).swapaxes(1, 2); this is its inverse
    return w.reshape(heads, out // heads // 2, 2, d_in).swapaxes(1, 2).reshape(out, d_in)


class Layer(NamedTuple):
    norm_attn: Array  # γ₁ [576]
    w_q: Array  # [576, 576] as [in, out], heads in the model's order
    w_k: Array  # [576, 192]
    w_v: Array  # [576, 192]
    w_o: Array  # [576, 576]
    norm_ffn: Array
    w_gate: Array  # [576, 1536]
    w_up: Array  # [576, 1536]
    w_down: Array  # [1536, 576]


class Forward(NamedTuple):
    ids: list[int]
    tokens: list[str]
    inputs: list[Array]  # RMSNorm(hˡ)·γ₁, what each layer's attention projects   [layers][n, 576]
    weights: Array  # α   [layers, heads, n, n]
    logits: Array  # the next-token logits after the last token   [vocabulary]


LAYER_PARTS = Layer._fields


def weights_from_gguf(path: Path, heads: int, kv_heads: int) -> tuple[dict[str, Array], dict]:
    """Every weight as float32 [in, out] (W_Q and W_K unpermuted), and the facts and vocabulary, from the GGUF."""
    reader = GGUFReader(path)
    fields = reader.fields
    tensors = {t.name: t for t in reader.tensors}

    def weight(name: str) -> Array:
        t = tensors[name]
        return dequantize(t.data, t.tensor_type).astype(np.float32, copy=False)  # [out, in]

    arrays = {"embedding": weight("token_embd.weight"), "norm_out": weight("output_norm.weight")}
    for i in range(len([n for n in tensors if n.endswith(".attn_q.weight")])):
        p = f"blk.{i}."
        parts = {
            "norm_attn": weight(p + "attn_norm.weight"),
            "w_q": unpermute(weight(p + "attn_q.weight"), heads).T,
            "w_k": unpermute(weight(p + "attn_k.weight"), kv_heads).T,
            "w_v": weight(p + "attn_v.weight").T,
            "w_o": weight(p + "attn_output.weight").T,
            "norm_ffn": weight(p + "ffn_norm.weight"),
            "w_gate": weight(p + "ffn_gate.weight").T,
            "w_up": weight(p + "ffn_up.weight").T,
            "w_down": weight(p + "ffn_down.weight").T,
        }
        arrays |= {f"{i}.{name}": np.ascontiguousarray(a) for name, a in parts.items()}
    facts = {"eps": float(fields["llama.attention.layer_norm_rms_epsilon"].contents()),
             "rope_base": float(fields["llama.rope.freq_base"].contents()),
             "vocabulary": strings(fields["tokenizer.ggml.tokens"]), "merges": strings(fields["tokenizer.ggml.merges"])}
    return arrays, facts


def cache_dir(path: Path) -> Path:
    """Where the dequantized weights of this GGUF file are kept: ATTENTION_LAB_CACHE, else
    ~/.cache/attention-lab; named by the file's size and time, so a new file gets a new cache."""
    root = Path(os.environ.get("ATTENTION_LAB_CACHE") or Path.home() / ".cache" / "attention-lab")
    stat = path.stat()
    return root / f"smollm2-{stat.st_size}-{int(stat.st_mtime)}"


def load_weights(path: Path, heads: int, kv_heads: int) -> tuple[dict[str, Array], dict]:
    """The weights, from the cache (memory-mapped, read-only) when it is there; else from the GGUF,
    then written to the cache. Reading the GGUF (2.9 s: its 98,000 vocabulary strings) and
    dequantizing (1.6 s) is what the cache saves; a cache that can't be written is skipped."""
    cached = cache_dir(path)
    if (cached / "facts.json").exists():
        arrays = {f.stem: np.load(f, mmap_mode="r") for f in cached.glob("*.npy")}
        return arrays, json.loads((cached / "facts.json").read_text())
    arrays, facts = weights_from_gguf(path, heads, kv_heads)
    tmp = None
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=cached.parent))  # written aside, then renamed: never half a cache
        for name, a in arrays.items():
            np.save(tmp / f"{name}.npy", a)
        (tmp / "facts.json").write_text(json.dumps(facts))
        os.rename(tmp, cached)
    except OSError:  # a read-only home, a full disk, or another process was first: no cache this time
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return arrays, facts


class SmolLM2:
    info = MODELS["smollm2"]

    def __init__(self, directory: Path) -> None:
        heads, self.kv_heads = self.info.heads, 3
        arrays, facts = load_weights(directory / GGUF_FILE, heads, self.kv_heads)
        self.eps, self.rope_base = facts["eps"], facts["rope_base"]
        self.embedding = arrays["embedding"]  # [49152, 576]; tied: also the output layer
        self.norm_out = arrays["norm_out"]
        self.layers = [Layer(*(arrays[f"{i}.{name}"] for name in LAYER_PARTS)) for i in range(self.info.layers)]
        self.vocabulary = facts["vocabulary"]
        merges = [tuple(m.split(" ", 1)) for m in facts["merges"]]
        tokenizer = Tokenizer(models.BPE({t: i for i, t in enumerate(self.vocabulary)}, merges))
        # llama.cpp's "smollm" pre-tokenizer: every digit alone, then GPT-2's split (ByteLevel's regex)
        tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(r"\p{N}"), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
        ])
        tokenizer.decoder = decoders.ByteLevel()
        self.tokenizer = tokenizer  # the learner's text is plain text: "<|im_start|>" is not a control token
        self.bytes_of = byte_table()
        self.recent = recent_forwards(self.forward)  # what attentions, head_trace, next_tokens use

    def show(self, token: str) -> str:
        """A byte-level token as a learner reads it: a leading space as "␣", bytes that are only part
        of a character as ⟨hex⟩."""
        raw = bytes(self.bytes_of[c] for c in token)
        try:
            text, rest = raw.decode("utf-8"), b""
        except UnicodeDecodeError as cut:  # the characters before the cut, then the bytes as hex
            text, rest = raw[: cut.start].decode("utf-8"), raw[cut.start :]
        shown = visible(text.replace(" ", "␣").replace("\n", "⏎"))  # a tab as ␉, a form feed as ␌
        return shown + ("⟨" + " ".join(f"{b:02X}" for b in rest) + "⟩" if rest else "")

    def tokenize(self, sentence: str) -> tuple[list[int], list[str]]:
        """The model's byte-level BPE tokens (no BOS: the model card's own use starts with the text).
        Raises SentenceError for empty or too long text."""
        encoding = self.tokenizer.encode(check_sentence(sentence))
        tokens = [self.show(t) for t in encoding.tokens]
        check_length(tokens, "SmolLM2")
        return list(encoding.ids), tokens

    def spaces(self, sentence: str) -> tuple[int, list[str]]:
        """How the sentence's spaces were tokenized: (how many start the token after them, the tokens
        that follow each space that is a token of its own, as shown)."""
        raw = self.tokenizer.encode(check_sentence(sentence)).tokens  # byte-level: "Ġ" is a space
        joined = sum(t.startswith("Ġ") and len(t) > 1 for t in raw)
        alone = [self.show(raw[k + 1]) if k + 1 < len(raw) else "the end" for k, t in enumerate(raw) if t == "Ġ"]
        return joined, alone

    def theta(self) -> Array:
        """θ_c = base^(−2c/64), the angle per position of coordinate pair c   [32], float64."""
        d = self.info.d_head
        return self.rope_base ** (-np.arange(0, d, 2, dtype=np.float64) / d)

    def rope(self, n: int) -> tuple[Array, Array]:
        """cos and sin of p·θ_c for positions p = 0 … n−1   [n, 64] each (halves repeated)."""
        angles = np.arange(n, dtype=np.float64)[:, None] * self.theta()[None, :]  # [n, 32]
        both = np.concatenate([angles, angles], axis=1)  # [n, 64]
        return np.cos(both).astype(np.float32), np.sin(both).astype(np.float32)

    def forward(self, sentence: str) -> Forward:
        ids, tokens = self.tokenize(sentence)
        n, heads, kv, d = len(ids), self.info.heads, self.kv_heads, self.info.d_head
        cos, sin = self.rope(n)
        allowed = causal_mask(n)
        h = self.embedding[ids]  # [n, 576]
        inputs, weights = [], np.empty((self.info.layers, heads, n, n), dtype=np.float32)
        for index, layer in enumerate(self.layers):
            a = rms_norm(h, layer.norm_attn, self.eps)  # [n, 576]
            inputs.append(a)
            q = (a @ layer.w_q).reshape(n, heads, d).transpose(1, 0, 2)  # [9, n, 64]
            k = (a @ layer.w_k).reshape(n, kv, d).transpose(1, 0, 2)  # [3, n, 64]
            v = (a @ layer.w_v).reshape(n, kv, d).transpose(1, 0, 2)  # [3, n, 64]
            q, k = rotate(q, cos, sin), rotate(k, cos, sin)
            k, v = np.repeat(k, heads // kv, axis=0), np.repeat(v, heads // kv, axis=0)  # head h reads h // 3
            scores = q @ k.transpose(0, 2, 1) * np.float32(1 / np.sqrt(d))  # [9, n, n]
            scores[:, ~allowed] = -np.inf
            alpha = softmax_(scores)
            weights[index] = alpha
            h = h + (alpha @ v).transpose(1, 0, 2).reshape(n, heads * d) @ layer.w_o
            m = rms_norm(h, layer.norm_ffn, self.eps)
            gate = m @ layer.w_gate
            h = h + (gate / (1 + np.exp(-gate)) * (m @ layer.w_up)) @ layer.w_down  # SiLU(g)·u
        last = rms_norm(h[-1:], self.norm_out, self.eps)  # [1, 576]
        logits = (last @ self.embedding.T)[0]  # tied embeddings: [49152]
        return Forward(ids, tokens, inputs, weights, logits)

    def attentions(self, sentence: str) -> Attentions:
        fwd = self.recent(sentence)
        return Attentions(fwd.tokens, fwd.weights)

    def next_tokens(self, sentence: str, k: int = 5) -> list[tuple[str, float]]:
        """The k likeliest next tokens after the sentence, with their probabilities."""
        p = softmax(self.recent(sentence).logits)  # float64
        top = np.argsort(-p)[:k]
        return [(self.show(self.vocabulary[i]), float(p[i])) for i in top]

    def head_trace(self, sentence: str, layer: int, head: int) -> AttentionTrace:
        """One real query head as the walkthrough's trace. X is RMSNorm(hˡ)·γ₁; W_Q is the head's 64
        columns, W_K and W_V those of the key/value head it shares (head // 3). Q and K in the trace
        are after RoPE (what the scores use); ``rope`` keeps them before, with θ."""
        check_head(self.info, layer, head)
        fwd = self.recent(sentence)
        d, kv_head = self.info.d_head, head // (self.info.heads // self.kv_heads)
        x = fwd.inputs[layer].astype(np.float64)  # [n, 576]
        lay = self.layers[layer]
        w_q = lay.w_q[:, head * d:(head + 1) * d].astype(np.float64)
        w_k = lay.w_k[:, kv_head * d:(kv_head + 1) * d].astype(np.float64)
        w_v = lay.w_v[:, kv_head * d:(kv_head + 1) * d].astype(np.float64)
        n, group = len(fwd.ids), self.info.heads // self.kv_heads
        cos, sin = (m.astype(np.float64) for m in self.rope(n))
        embedded = Embedded(sentence, tuple(fwd.tokens), 0, x, None, x)
        trace = trace_attention(embedded, Projections(w_q, w_k, w_v), preset="pretrained", causal=True,
                                rotate=lambda m: rotate(m, cos, sin))
        rope = trace.rope._replace(theta=self.theta(), kv_head=kv_head, group=group)
        return dataclasses.replace(trace, token_ids=tuple(fwd.ids), rope=rope, x_is=self.x_is(layer))

    @staticmethod
    def x_is(layer: int) -> str:
        """What layer ``layer`` (from 0) receives as X, in LaTeX with layers counted from 1 as on the page."""
        if layer == 0:
            return r"\mathrm{RMSNorm}\big(E[\text{ids}]\big) \cdot \gamma^{(1)}"
        return (rf"\mathrm{{RMSNorm}}\big(h^{{({layer})}}\big) \cdot \gamma^{{({layer + 1})}},\ "
                rf"h^{{({layer})}} = \text{{the output of layer }} {layer}")


def strings(field) -> list[str]:
    """A GGUF array-of-strings field as Python strings."""
    return [bytes(field.parts[k]).decode() for k in field.data]


def rms_norm(x: Array, gain: Array, eps: float) -> Array:
    """x / √(mean(x²) + ε) · γ over the last axis."""
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * gain


def rotate(x: Array, cos: Array, sin: Array) -> Array:
    """RoPE as Hugging Face applies it: x·cos + rotate_half(x)·sin, rotate_half(x) = (−x₂, x₁) by halves."""
    half = x.shape[-1] // 2
    turned = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos + turned * sin
