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
import time
from collections.abc import Callable, Sequence
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
    Off,
    Scan,
    check_head,
    check_length,
    check_sentence,
    recent_forwards,
)
from attention.projections import Projections
from attention.tokens import visible
from attention.trace import AttentionTrace, Embedded, trace_attention, trace_cached_query

GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MAX_WRITTEN = 20  # tokens the generation lesson writes at most
END_OF_TEXT = ("<|endoftext|>", "<|im_end|>")  # writing stops at either


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
    residual: list[Array]  # hˡ, the residual stream each layer receives   [layers][n, 576]
    inputs: list[Array]  # RMSNorm(hˡ)·γ₁, what each layer's attention projects   [layers][n, 576]
    weights: Array  # α   [layers, heads, n, n]
    logits: Array  # the next-token logits after the last token   [vocabulary]


class CachedStep(NamedTuple):
    """One token read with the key/value cache: what every layer computed for it, and nothing else."""

    position: int  # t, from 0: the cache held the keys and values of positions 0 … t − 1 before it
    token: int  # the token's id
    x: Array  # RMSNorm(hˡ)·γ₁ of this token only   [layers, 576]
    q_before: Array  # its queries before RoPE   [layers, heads, 64]
    k_before: Array  # its keys before RoPE (appended to the cache after RoPE)   [layers, kv_heads, 64]
    weights: Array  # its α rows over the t + 1 cached keys   [layers, heads, t + 1]
    logits: Array  # the next-token logits after it   [vocabulary]


class Generation(NamedTuple):
    """Greedy generation with a key/value cache, checked against recomputing the whole sequence."""

    ids: list[int]  # the prompt's tokens, then the written ones
    tokens: list[str]  # as shown
    prompt: int  # how many of them are the prompt's
    probabilities: list[float]  # each written token's probability when it was chosen
    keys: Array  # the cache at the end: K after RoPE   [layers, kv_heads, T, 64], T = tokens read
    values: Array  # V   [layers, kv_heads, T, 64]
    steps: list[CachedStep]  # one per written token read back (every written token but the last)
    logits: Array  # the next-token logits after the prompt and after each step   [written, vocabulary]
    recomputed_logits: Array  # the same from a forward pass over the whole sequence so far   [written, vocabulary]
    weights_differences: list[float]  # per cached step: its largest |α| difference against the whole-sequence pass
    seconds_cached: list[float]  # measured per written token: the prompt's pass, then each cached step
    seconds_recomputed: list[float]  # measured per written token: a pass over the whole sequence so far

    @property
    def written(self) -> list[int]:
        return self.ids[self.prompt:]

    @property
    def weights_difference(self) -> float:
        """The largest |α| difference, cached steps against the whole-sequence passes (0 with no cached step)."""
        return max(self.weights_differences, default=0.0)

    def first(self, count: int) -> Generation:
        """The generation of the first ``count`` written tokens (all of them if fewer were written): greedy writing
        is deterministic and a step reads nothing written after it, so this is what writing ``count`` tokens
        computes, to the bit, but for the times, which were measured when those tokens were first written."""
        written = min(count, len(self.written))
        end, read = self.prompt + written, self.prompt + written - 1
        return Generation(self.ids[:end], self.tokens[:end], self.prompt, self.probabilities[:written],
                          self.keys[:, :, :read], self.values[:, :, :read], self.steps[:written - 1],
                          self.logits[:written], self.recomputed_logits[:written],
                          self.weights_differences[:written - 1], self.seconds_cached[:written],
                          self.seconds_recomputed[:written])

    @property
    def logits_difference(self) -> float:
        """The largest |logit| difference between the cached and the recomputed runs."""
        return float(np.max(np.abs(self.logits - self.recomputed_logits)))


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
        self.end_of_text = {self.vocabulary.index(t) for t in END_OF_TEXT if t in self.vocabulary}

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

    def spaces(self, sentence: str) -> tuple[int, list[str | None]]:
        """How the sentence's spaces were tokenized: (how many spaces start a token that holds more than spaces,
        the token after each token made of spaces alone, as shown: None where the sentence ends there). Spaces
        are counted, not tokens: "a   b" is a | ␣␣ | ␣b, one space in "␣b" and a token of two spaces."""
        raw = self.tokenizer.encode(check_sentence(sentence)).tokens  # byte-level: "Ġ" is a space
        joined = sum(len(t) - len(t.lstrip("Ġ")) for t in raw if t.lstrip("Ġ"))
        alone = [self.show(raw[k + 1]) if k + 1 < len(raw) else None for k, t in enumerate(raw)
                 if t and not t.lstrip("Ġ")]
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

    def attention(self, layer: Layer, a: Array, cos: Array, sin: Array,
                  allowed: np.ndarray | None) -> tuple[Array, Array, Array, Array]:
        """softmax(mask(Q·Kᵀ/8))·V for every head, on a = RMSNorm(h)·γ₁ [..., n, 576] (any leading axes:
        the scan runs nine copies of the sentence at once). ``allowed``: the causal mask [n, n], or None
        when every key may be read (a cached step's one query). Returns (the heads' outputs α·V
        [..., heads, n, 64], α [..., heads, n, n], K and V after RoPE [..., kv_heads, n, 64])."""
        q, k, v = self.project(layer, a)
        q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        return (*self.attend(q, k, v, allowed), k, v)

    def project(self, layer: Layer, a: Array) -> tuple[Array, Array, Array]:
        """Q = a·W_Q, K = a·W_K, V = a·W_V split into heads, before RoPE: [..., 9, n, 64], [..., 3, n, 64] ×2."""
        *lead, n, _ = a.shape
        heads, kv, d = self.info.heads, self.kv_heads, self.info.d_head
        q = (a @ layer.w_q).reshape(*lead, n, heads, d).swapaxes(-2, -3)  # [..., 9, n, 64]
        k = (a @ layer.w_k).reshape(*lead, n, kv, d).swapaxes(-2, -3)  # [..., 3, n, 64]
        v = (a @ layer.w_v).reshape(*lead, n, kv, d).swapaxes(-2, -3)  # [..., 3, n, 64]
        return q, k, v

    def attend(self, q: Array, k: Array, v: Array, allowed: np.ndarray | None) -> tuple[Array, Array]:
        """(α·V, α) for queries q [..., heads, n_q, 64] over keys and values k, v [..., kv_heads, n_k, 64]
        (after RoPE): query head h reads key/value head h // 3 (grouped-query attention)."""
        group = self.info.heads // self.kv_heads
        k, v = np.repeat(k, group, axis=-3), np.repeat(v, group, axis=-3)  # head h reads h // 3
        scores = q @ k.swapaxes(-1, -2) * np.float32(1 / np.sqrt(self.info.d_head))  # [..., 9, n_q, n_k]
        if allowed is not None:
            scores[..., ~allowed] = -np.inf
        alpha = softmax_(scores)
        return alpha @ v, alpha

    def mix(self, layer: Layer, h: Array, heads_out: Array) -> Array:
        """h + concat(α·V)·W_O: the heads' outputs [..., heads, n, 64] written into the residual stream."""
        *lead, n, _ = h.shape
        return h + heads_out.swapaxes(-2, -3).reshape(*lead, n, -1) @ layer.w_o

    def feed_forward(self, layer: Layer, h: Array) -> Array:
        """h + (SiLU(m·W_gate) ⊙ m·W_up)·W_down,  m = RMSNorm(h)·γ₂."""
        m = rms_norm(h, layer.norm_ffn, self.eps)
        gate = m @ layer.w_gate
        return h + (gate / (1 + np.exp(-gate)) * (m @ layer.w_up)) @ layer.w_down  # SiLU(g)·u

    def next_logits(self, h_last: Array) -> Array:
        """RMSNorm(h)·γ · Eᵀ for the last position's residual stream [..., 576] (tied embeddings)."""
        return rms_norm(h_last, self.norm_out, self.eps) @ self.embedding.T  # [..., 49152]

    def forward(self, sentence: str) -> Forward:
        ids, tokens = self.tokenize(sentence)
        return self.forward_ids(ids, tokens)

    def forward_ids(self, ids: list[int], tokens: list[str], keys: Array | None = None,
                    values: Array | None = None) -> Forward:
        """A pass over ``ids``. ``keys``, ``values`` [layers, kv_heads, ≥ n, 64]: a key/value cache whose
        first n rows are filled with every layer's K (after RoPE) and V, as a prompt's pass fills it."""
        n = len(ids)
        cos, sin = self.rope(n)
        allowed = causal_mask(n)
        h = self.embedding[ids]  # [n, 576]
        residual, inputs = [], []
        weights = np.empty((self.info.layers, self.info.heads, n, n), dtype=np.float32)
        for index, layer in enumerate(self.layers):
            residual.append(h)
            a = rms_norm(h, layer.norm_attn, self.eps)  # [n, 576]
            inputs.append(a)
            out, weights[index], k, v = self.attention(layer, a, cos, sin, allowed)
            if keys is not None:
                keys[index, :, :n], values[index, :, :n] = k, v
            h = self.feed_forward(layer, self.mix(layer, h, out))
        logits = self.next_logits(h[-1])  # [49152]
        return Forward(ids, tokens, residual, inputs, weights, logits)

    # ---- heads switched off ---------------------------------------------------------------------------

    def ablated_logits(self, sentence: str, off: Off) -> Array:
        """The next-token logits with the heads in ``off`` switched off: their output α·V set to zero
        before W_O, at every position (zero-ablation: the head writes nothing into the residual stream).
        The layers before the first head switched off are the sentence's run as it was (its residual
        stream is kept), so only the layers from there on are computed again."""
        fwd = self.recent(sentence)
        for layer, head in off:
            check_head(self.info, layer, head)
        if not off:
            return fwd.logits
        start = min(layer for layer, _ in off)
        return self.next_logits(self.layers_from(fwd.residual[start], start, off)[..., -1, :])

    def ablated_logits_each(self, sentence: str, offs: Sequence[Off]) -> Array:
        """``ablated_logits`` for each set of heads in ``offs``, at once   [len(offs), 49152]: one copy of the
        sentence's residual stream a set, run as one batch from the first layer any set switches a head off in
        (the copies share each layer's weights as they pass: a test's 216 runs took a third of the time)."""
        fwd = self.recent(sentence)
        for off in offs:
            for layer, head in off:
                check_head(self.info, layer, head)
        if not any(offs):
            return np.repeat(fwd.logits[None], len(offs), axis=0)
        start = min(layer for off in offs for layer, _ in off)
        h = np.repeat(fwd.residual[start][None], len(offs), axis=0)  # [sets, n, 576]
        return self.next_logits(self.layers_from(h, start, list(offs))[:, -1, :])

    def layers_from(self, h: Array, start: int, off: Off | list[Off] = frozenset(),
                    each: Callable[[], None] | None = None) -> Array:
        """The residual stream after the last layer, running layers ``start`` … 29 on h (what layer
        ``start`` receives) [..., n, 576], with the heads in ``off`` switched off (α·V zero before W_O), or,
        with ``off`` a list, h's copies [sets, n, 576] each with the heads of its own set switched off.
        ``each()`` after each layer run."""
        n = h.shape[-2]
        cos, sin = self.rope(n)
        allowed = causal_mask(n)
        for index in range(start, self.info.layers):
            layer = self.layers[index]
            out, _, _, _ = self.attention(layer, rms_norm(h, layer.norm_attn, self.eps), cos, sin, allowed)
            if isinstance(off, list):  # copy c's own set
                for copy, heads_off in enumerate(off):
                    out[copy, [head for lay, head in heads_off if lay == index]] = 0
            else:
                out[..., [head for lay, head in off if lay == index], :, :] = 0  # a fresh array: the heads off
            h = self.feed_forward(layer, self.mix(layer, h, out))
            if each is not None:
                each()
        return h

    def next_tokens_without(self, sentence: str, off: Off, k: int = 5) -> list[tuple[str, float]]:
        """The k likeliest next tokens with the heads in ``off`` switched off."""
        return self.top(self.ablated_logits(sentence, off), k)

    def scan(self, sentence: str, layers: Sequence[int],
             progress: Callable[[int, int], None] | None = None) -> Scan:
        """Switch off each head of ``layers`` in turn and measure how much the log-probability of the
        likeliest next token (every head on) drops. ``progress(done, total)`` after each layer the
        variants run through (``total`` of them: a scanned layer ℓ's variants run layers ℓ … 29), so that
        the first report comes after one layer's work, not after the first scanned layer's 30 (issue 47: "Which
        heads matter here?" sat at 0 % for 40 s).

        Per layer, the nine variants run as one batch from that layer on: the layer's attention is
        computed once, each head's share of it, its α·V times its 64 rows of W_O, is taken out of the
        residual stream in turn, and the later layers see nine residual streams at once."""
        t0 = time.perf_counter()
        fwd = self.recent(sentence)
        for layer in layers:
            check_head(self.info, layer, 0)
        n, heads, d = len(fwd.ids), self.info.heads, self.info.d_head
        cos, sin = self.rope(n)
        allowed = causal_mask(n)
        log_p = log_softmax(fwd.logits)
        token = int(np.argmax(fwd.logits))
        drops = np.empty((len(layers), heads))
        total, passed = sum(self.info.layers - index for index in layers), 0

        def one_more() -> None:
            nonlocal passed
            passed += 1
            if progress is not None:
                progress(passed, total)
        for done, index in enumerate(layers):
            layer = self.layers[index]
            out, _, _, _ = self.attention(layer, fwd.inputs[index], cos, sin, allowed)  # [9, n, 64]
            shares = np.einsum("jnd,jdm->jnm", out, layer.w_o.reshape(heads, d, -1))  # head j's α·V·W_O  [9, n, 576]
            h = (fwd.residual[index] + shares.sum(axis=0))[None] - shares  # head j off, in copy j   [9, n, 576]
            h = self.feed_forward(layer, h)
            one_more()  # layer ℓ itself
            h = self.layers_from(h, index + 1, each=one_more)
            drops[done] = log_p[token] - log_softmax(self.next_logits(h[:, -1]))[:, token]
        return Scan(token, float(log_p[token]), tuple(layers), drops, time.perf_counter() - t0)

    # ---- writing with a key/value cache --------------------------------------------------------------

    def generate(self, prompt: str, count: int, progress: Callable[[float], None] | None = None, *,
                 continuing: Generation | None = None) -> Generation:
        """Write ``count`` tokens after ``prompt``, greedily (the likeliest each time), with a key/value
        cache, and check every step against recomputing the whole sequence. ``progress(share)`` after each token
        written and each recomputation (share: of the passes this call makes, the part done).

        The prompt is read in one pass, which fills the cache with its keys and values (after RoPE) in
        every layer. Then each written token is read alone: only its own query, key and value are
        computed; its key and value are appended to the cache, and its query is scored against every
        cached key. Writing stops early at an end-of-text token. Each step's logits are also computed by
        a pass over the whole sequence so far (``recomputed_logits``), and both ways are timed.

        ``continuing``: fewer tokens written after the same prompt, not stopped by an end-of-text token. Its
        cache, steps and checks are kept, and the writing goes on from its last token, which is read first.
        Greedy writing is deterministic and a step reads nothing written after it, so this computes what writing
        all ``count`` tokens computes, to the bit, but for the times (the kept ones were measured in its run).
        """
        if not 1 <= count <= MAX_WRITTEN:
            raise ValueError(f"SmolLM2 writes 1 to {MAX_WRITTEN} tokens here; got {count}.")
        ids, tokens = self.tokenize(prompt)
        check_length(tokens + [""] * (count - 1), "SmolLM2", writing=True)
        before = len(continuing.written) if continuing is not None else 0  # tokens written already
        if continuing is not None and (continuing.ids[:continuing.prompt] != ids or not before < count
                                       or continuing.written[-1] in self.end_of_text):
            raise ValueError("Writing goes on only from fewer tokens after the same prompt, not stopped.")
        layers, kv, d = self.info.layers, self.kv_heads, self.info.d_head
        size = len(ids) + count - 1  # the last written token is never read back
        keys = np.zeros((layers, kv, size, d), dtype=np.float32)
        values = np.zeros_like(keys)
        self.forward_ids(ids[:1], [])  # a one-token pass reads every weight, so that no timing below pays for
        report = progress or (lambda share: None)  # bringing the memory-mapped weights into memory (~0.4 s)
        passes = 2 * (count - before)
        if continuing is None:
            t0 = time.perf_counter()
            logits = self.forward_ids(ids, tokens, keys, values).logits  # the prompt's pass fills the cache
            seconds_cached, logits_seen, steps, probabilities = [time.perf_counter() - t0], [logits], [], []
            recomputed, seconds_recomputed, alpha_differences = [], [], []
        else:
            read = len(continuing.ids) - 1  # the tokens whose keys and values it cached: all but its last
            keys[:, :, :read], values[:, :, :read] = continuing.keys, continuing.values
            ids, probabilities, steps = list(continuing.ids), list(continuing.probabilities), list(continuing.steps)
            logits_seen, recomputed = list(continuing.logits), list(continuing.recomputed_logits)
            seconds_cached, seconds_recomputed = list(continuing.seconds_cached), list(continuing.seconds_recomputed)
            alpha_differences = list(continuing.weights_differences)
            t0 = time.perf_counter()
            step = self.cached_step(ids[-1], read, keys, values)  # its last token, read back
            seconds_cached.append(time.perf_counter() - t0)
            steps.append(step)
            logits = step.logits
            logits_seen.append(logits)
        while True:
            report((len(probabilities) - before) / passes)
            p = softmax(logits)
            chosen = int(np.argmax(logits))
            ids.append(chosen)
            probabilities.append(float(p[chosen]))
            if len(ids) - len(tokens) == count or chosen in self.end_of_text:
                break
            t0 = time.perf_counter()
            step = self.cached_step(chosen, len(ids) - 1, keys, values)
            seconds_cached.append(time.perf_counter() - t0)
            steps.append(step)
            logits = step.logits
            logits_seen.append(logits)
        read = len(ids) - 1  # the tokens whose keys and values are in the cache
        # the whole sequence up to each token that predicted the next (those checked already kept)
        for end in range(len(tokens) + before, len(ids)):
            report(0.5 + (end - len(tokens) - before) / passes)
            t0 = time.perf_counter()
            whole = self.forward_ids(ids[:end], [])
            seconds_recomputed.append(time.perf_counter() - t0)
            recomputed.append(whole.logits)
            if end > len(tokens):
                cached = steps[end - len(tokens) - 1].weights  # [layers, heads, end]
                alpha_differences.append(float(np.max(np.abs(cached - whole.weights[:, :, -1]))))
        shown = tokens + [self.show(self.vocabulary[i]) for i in ids[len(tokens):]]
        return Generation(ids, shown, len(tokens), probabilities, keys[:, :, :read], values[:, :, :read], steps,
                          np.array(logits_seen), np.array(recomputed), alpha_differences, seconds_cached,
                          seconds_recomputed)

    def cached_step(self, token: int, t: int, keys: Array, values: Array) -> CachedStep:
        """Read ``token`` at position t with the cache holding positions 0 … t − 1: its query, key and
        value [1 × 64] per head, its key and value appended at row t, its one row of scores against the
        t + 1 cached keys (no mask: the cache holds nothing later), then W_O and the MLP for it alone."""
        heads = self.info.heads
        cos, sin = (m[t:t + 1] for m in self.rope(t + 1))  # position t's angles   [1, 64]
        h = self.embedding[[token]]  # [1, 576]
        xs, q_before, k_before = [], [], []
        weights = np.empty((self.info.layers, heads, t + 1), dtype=np.float32)
        for index, layer in enumerate(self.layers):
            a = rms_norm(h, layer.norm_attn, self.eps)  # [1, 576]
            q, k, v = self.project(layer, a)  # [9, 1, 64], [3, 1, 64], [3, 1, 64]
            xs.append(a[0])
            q_before.append(q[:, 0])
            k_before.append(k[:, 0])
            keys[index, :, t] = rotate(k, cos, sin)[:, 0]  # appended to the cache
            values[index, :, t] = v[:, 0]
            out, alpha = self.attend(rotate(q, cos, sin), keys[index, :, :t + 1], values[index, :, :t + 1], None)
            weights[index] = alpha[:, 0]  # [9, t + 1]
            h = self.feed_forward(layer, self.mix(layer, h, out))
        return CachedStep(t, token, np.array(xs), np.array(q_before), np.array(k_before), weights,
                          self.next_logits(h[-1]))

    def multiply_adds(self, t: int, *, cached: bool) -> int:
        """Multiply-adds to read the token at position t (from 0) and predict the next one, with the cache
        (this token's projections and MLP, its one query against t + 1 keys) or without (a pass over all
        t + 1 tokens, with the full (t + 1) × (t + 1) scores this forward computes)."""
        d, heads, kv, d_head = self.info.d_model, self.info.heads, self.kv_heads, self.info.d_head
        ffn = self.layers[0].w_up.shape[1]
        per_token = d * (heads + 2 * kv) * d_head + heads * d_head * d + 3 * d * ffn  # Q, K, V; W_O; MLP
        n = t + 1
        rows, pairs = (1, n) if cached else (n, n * n)  # tokens computed; query-key pairs scored
        attention = 2 * heads * d_head * pairs  # q·k for each pair, then α·v
        return self.info.layers * (rows * per_token + attention) + d * self.embedding.shape[0]

    def work_parts(self, t: int) -> tuple[int, int]:
        """The multiply-adds of a cached step at position t, split: (what every step does whatever t is: this
        token's projections, W_O, MLP and the unembedding; what grows with t: its query against t + 1 keys)."""
        total = self.multiply_adds(t, cached=True)
        growing = self.info.layers * 2 * self.info.heads * self.info.d_head * (t + 1)
        return total - growing, growing

    def weight_bytes(self) -> int:
        """Bytes of weights a step reads, with the cache or without: every layer's matrices and norms, the
        final norm, and the embedding (read as the unembedding, tied); float32, as they are kept here."""
        return sum(w.nbytes for layer in self.layers for w in layer) + self.norm_out.nbytes + self.embedding.nbytes

    def cache_bytes_read(self, t: int) -> int:
        """Bytes of cached keys and values a cached step at position t reads: t + 1 rows of K and of V, in
        every layer and key/value head (float32)."""
        return 2 * self.info.layers * self.kv_heads * (t + 1) * self.info.d_head * 4

    def step_seconds(self, length: int, repeats: int = 3) -> tuple[float, float]:
        """Measured here: the median seconds of (a cached step reading the token at position length − 1, a
        pass over all ``length`` tokens), on a fixed sequence of the vocabulary's first ordinary ids. The
        cache for the step is filled before the clock starts, as generation does."""
        ids = [int(i) for i in (np.arange(length) * 7919 % 40000 + 1000)]  # ordinary tokens, no specials
        layers, kv, d = self.info.layers, self.kv_heads, self.info.d_head
        self.forward_ids(ids[:1], [])  # the weights in memory before any clock (see ``generate``)
        cached, whole = [], []
        for _ in range(repeats):
            keys = np.zeros((layers, kv, length, d), dtype=np.float32)
            values = np.zeros_like(keys)
            if length > 1:
                self.forward_ids(ids[:-1], [], keys, values)
            t0 = time.perf_counter()
            self.cached_step(ids[-1], length - 1, keys, values)
            cached.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            self.forward_ids(ids, [])
            whole.append(time.perf_counter() - t0)
        return float(np.median(cached)), float(np.median(whole))

    def top(self, logits: Array, k: int = 5) -> list[tuple[str, float]]:
        p = softmax(logits)  # float64
        return [(self.show(self.vocabulary[i]), float(p[i])) for i in np.argsort(-p)[:k]]

    def attentions(self, sentence: str) -> Attentions:
        fwd = self.recent(sentence)
        return Attentions(fwd.tokens, fwd.weights)

    def next_tokens(self, sentence: str, k: int = 5) -> list[tuple[str, float]]:
        """The k likeliest next tokens after the sentence, with their probabilities."""
        return self.top(self.recent(sentence).logits, k)

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

    def step_trace(self, generation: Generation, step: int, layer: int, head: int) -> AttentionTrace:
        """Query head ``head`` of layer ``layer`` at cached step ``step`` (from 0) as the walkthrough's
        trace: X is the read token's RMSNorm(hˡ)·γ₁ alone [1 × 576]; K and V are its key/value head's
        cache (t rows, K after RoPE) and the token's own new row; one row of scores, of α, of output."""
        check_head(self.info, layer, head)
        if not 0 <= step < len(generation.steps):
            raise ValueError(f"This generation has cached steps 1–{len(generation.steps)}; got {step + 1}.")
        read = generation.steps[step]
        t, d, group = read.position, self.info.d_head, self.info.heads // self.kv_heads
        kv_head = head // group
        lay = self.layers[layer]
        w_q = lay.w_q[:, head * d:(head + 1) * d].astype(np.float64)
        w_k = lay.w_k[:, kv_head * d:(kv_head + 1) * d].astype(np.float64)
        w_v = lay.w_v[:, kv_head * d:(kv_head + 1) * d].astype(np.float64)
        cos, sin = (m[t:t + 1].astype(np.float64) for m in self.rope(t + 1))  # position t's angles
        x = read.x[layer][None].astype(np.float64)  # [1, 576]
        embedded = Embedded("", tuple(generation.tokens[:t + 1]), 0, x, None, x)
        trace = trace_cached_query(embedded, Projections(w_q, w_k, w_v),
                                   generation.keys[layer, kv_head, :t].astype(np.float64),
                                   generation.values[layer, kv_head, :t].astype(np.float64),
                                   rotate=lambda m: rotate(m, cos, sin))
        rope = trace.rope._replace(theta=self.theta(), kv_head=kv_head, group=group)
        return dataclasses.replace(trace, token_ids=tuple(generation.ids[:t + 1]), rope=rope, x_is=self.x_is(layer))

    @staticmethod
    def x_is(layer: int) -> str:
        """What layer ``layer`` (from 0) receives as X, in LaTeX with layers counted from 1 as on the page."""
        if layer == 0:
            return r"\mathrm{RMSNorm}\big(E[\text{ids}]\big) \cdot \gamma^{(1)}"
        return (rf"\mathrm{{RMSNorm}}\big(h^{{({layer})}}\big) \cdot \gamma^{{({layer + 1})}},\ "
                rf"h^{{({layer})}} = \text{{the output of layer }} {layer}")


def log_softmax(logits: Array) -> Array:
    """log p = z − log Σ e^z over the last axis, in float64."""
    z = np.asarray(logits, dtype=np.float64)
    top = z.max(axis=-1, keepdims=True)
    return z - top - np.log(np.exp(z - top).sum(axis=-1, keepdims=True))


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
