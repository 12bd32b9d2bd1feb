"""Cross-attention: the queries come from one sequence, the keys and values from another.

    Att(Q, K, V) = softmax(Q·Kᵀ / √d_k)·V,   Q = X_t·W_Q [i × d_k],  K = X_s·W_K [i′ × d_k],  V = X_s·W_V [i′ × d_k]

with X_t the target (the decoder's tokens, which ask) and X_s the source (the encoder's tokens,
which are read). α is [i × i′]: not square unless the two lengths agree, and every row sums to 1.
No causal mask: the mask belongs to the decoder's self-attention; every target token may read the
whole source sentence. Self-attention is the case target = source.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from attention.core import attention_scores, softmax
from attention.projections import Projections, random_projections
from attention.trace import Embedded, embed_sentence

Array = npt.NDArray[np.float64]
CROSS_PRESETS = ("random", "aligned")
# Small tables of English words and their translations for the "aligned" preset, one per target language (lower-case
# words; each Chinese word is one character, as the tokenizer splits Chinese text: a character a token). The preset
# pairs a target word with a source word that any table translates to it, so a target may be written in any of them.
BILINGUAL = {
    "fr": {
        "this": "ce", "forum": "forum", "is": "est", "awesome": "génial", "the": "le", "cat": "chat", "sat": "assis",
        "on": "sur", "mat": "tapis", "dog": "chien", "a": "un", "and": "et", "i": "je", "love": "aime", "you": "vous",
        "attention": "attention", "we": "nous", "read": "lisons", "book": "livre", "good": "bon",
        "black": "noir", "white": "blanc", "red": "rouge", "sleeps": "dort", "car": "voiture", "house": "maison",
    },
    "es": {
        "this": "este", "forum": "foro", "is": "es", "awesome": "genial", "the": "el", "cat": "gato", "on": "sobre",
        "mat": "alfombra", "dog": "perro", "a": "un", "and": "y", "i": "yo", "love": "amo", "attention": "atención",
        "we": "nosotros", "read": "leemos", "book": "libro", "good": "bueno", "black": "negro", "white": "blanco",
        "red": "rojo", "sleeps": "duerme", "car": "coche", "house": "casa",
    },
    "zh": {
        "this": "这", "is": "是", "awesome": "棒", "cat": "猫", "sat": "坐", "dog": "狗", "and": "和", "i": "我",
        "love": "爱", "you": "你", "read": "读", "book": "书", "good": "好", "black": "黑", "white": "白", "red": "红",
        "sleeps": "睡", "car": "车", "he": "他", "at": "在", "home": "家",
    },
}
# Each table's example: an English source and its translation, whose word order differs from the English (French and
# Spanish put the adjective after its noun; Chinese says where before what is done, "他在家睡觉", he at home sleeps),
# so that the aligned α crosses rather than runs down a diagonal, which self-attention's own α could be mistaken for
# (issue 34); every source word has its translation, so that no key is left unconstructed
EXAMPLE_PAIRS = {
    "fr": ("the black cat sleeps", "le chat noir dort"),
    "es": ("the black cat sleeps", "el gato negro duerme"),
    "zh": ("he sleeps at home", "他在家睡觉"),
}
ALIGN_Z = 4.0  # the scaled score z = q·k/√d_k of a translation pair: its α ≈ e⁴/(e⁴ + rest) is near 1


class Alignment(NamedTuple):
    """The "aligned" preset's pairs: what the bilingual table paired, and what got a direction."""

    pairs: tuple[tuple[int, int], ...]  # (i, j): target token i translates source token j, one-to-one, in order
    built: tuple[tuple[int, int], ...]  # the pairs that got a direction (the first that fit)
    left_out: tuple[tuple[int, int], ...]  # pairs the table has but no direction was left for
    clashed: tuple[tuple[int, int], ...]  # pairs whose target or source vector already points along another pair's
    directions: int  # directions made: pairs whose two vectors are the same as another pair's share one
    limit: int  # min(d_model, d_k): how many directions can be made exactly


NO_ALIGNMENT = Alignment((), (), (), (), 0, 0)


@dataclass(frozen=True)
class CrossAttentionTrace:
    """Every step of cross-attention. i = len(target.tokens) queries, i′ = len(source.tokens) keys."""

    target: Embedded  # X_t   [i, d_model]: the queries' side
    source: Embedded  # X_s   [i′, d_model]: the keys' and values' side
    preset: str  # "random", "aligned" or "custom"
    d_k: int
    w_q: Array  # [d_model, d_k]
    w_k: Array  # [d_model, d_k]
    w_v: Array  # [d_model, d_k]
    q: Array  # Q = X_t·W_Q   [i, d_k]
    k: Array  # K = X_s·W_K   [i′, d_k]
    v: Array  # V = X_s·W_V   [i′, d_k]
    scores: Array  # S = Q·Kᵀ  [i, i′]
    scaled_scores: Array  # Z = S/√d_k   [i, i′]
    weights: Array  # α = softmax_j(Z), rows sum to 1   [i, i′]
    output: Array  # αV   [i, d_k]
    alignment: Alignment  # the aligned preset's pairs (empty for the others)

    @property
    def aligned_pairs(self) -> tuple[tuple[int, int], ...]:
        """The pairs that got a direction: their query points at their key."""
        return self.alignment.built


def translates(source_word: str, target_word: str) -> bool:
    """Whether a table gives ``target_word`` as the translation of ``source_word`` (in any case)."""
    return any(table.get(source_word.lower()) == target_word.lower() for table in BILINGUAL.values())


def translation_pairs(target: tuple[str, ...], source: tuple[str, ...]) -> list[tuple[int, int]]:
    """(i, j) for each target token i that a bilingual table gives as the translation of source token j,
    one-to-one: the k-th "le" pairs with the k-th "the"; a word with no partner left has no pair."""
    taken: set[int] = set()
    pairs = []
    for i, t in enumerate(target):
        j = next((j for j, s in enumerate(source) if j not in taken and translates(s, t)), None)
        if j is not None:
            taken.add(j)
            pairs.append((i, j))
    return pairs


def aligned_projections(target: Embedded, source: Embedded, d_k: int, seed: int) -> tuple[Projections, Alignment]:
    """W_Q, W_K constructed (not learned) so that z_ij = q_i·k_j/√d_k = ALIGN_Z for a translation pair, 0
    between the directions of different pairs.

    Each pair p gets a direction e_p in ℝ^{d_k} (pairs whose target vectors and source vectors are the
    same, as two "le"/"the" pairs are without positional encodings, share one; a pair whose target or source vector
    already has a direction with another partner gets none, as one vector cannot point two ways); W_Q maps the target
    word's vector to √c·e_p and W_K the source word's to √c·e_p, by least squares
    (``np.linalg.lstsq``), so the pair's dot product is c = ALIGN_Z·√d_k. At most min(d_model, d_k)
    directions fit exactly; the pairs after them are left out. W_V is seeded random, as in the other
    preset.
    """
    pairs = translation_pairs(target.tokens, source.tokens)
    d_model = target.x.shape[1]
    limit = min(d_model, d_k)
    w_v = random_projections(d_model, d_k, seed).w_v
    direction_of: dict[bytes, int] = {}  # the two vectors of a pair -> its direction
    pointed_t, pointed_s = set(), set()  # the target and source vectors a direction was made for
    built, left_out, clashed, rows = [], [], [], []
    for i, j in pairs:
        x_t, x_s = target.x[i].tobytes(), source.x[j].tobytes()
        both = x_t + x_s
        if both in direction_of:  # copies of a pair already built (no positional encodings): its direction
            built.append((i, j))
        elif x_t in pointed_t or x_s in pointed_s:  # one vector cannot point two ways ("le" and "el" to "the")
            clashed.append((i, j))
        elif len(direction_of) < limit:
            direction_of[both] = len(direction_of)
            pointed_t.add(x_t)
            pointed_s.add(x_s)
            rows.append((i, j))
            built.append((i, j))
        else:
            left_out.append((i, j))
    alignment = Alignment(tuple(pairs), tuple(built), tuple(left_out), tuple(clashed), len(direction_of), limit)
    if not rows:
        return Projections(np.zeros((d_model, d_k)), np.zeros((d_model, d_k)), w_v), alignment
    codes = np.sqrt(ALIGN_Z * np.sqrt(d_k)) * np.eye(d_k)[: len(rows)]  # [p, d_k]
    x_t = target.x[[i for i, _ in rows]]  # [p, d_model]
    x_s = source.x[[j for _, j in rows]]  # [p, d_model]
    w_q = np.linalg.lstsq(x_t, codes, rcond=None)[0]  # [d_model, d_k]: x_t·W_Q ≈ codes
    w_k = np.linalg.lstsq(x_s, codes, rcond=None)[0]  # [d_model, d_k]: x_s·W_K ≈ codes
    return Projections(w_q, w_k, w_v), alignment


def trace_cross_attention(
    target: str,
    source: str,
    *,
    d_model: int = 8,
    d_k: int = 4,
    seed: int = 0,
    preset: str = "random",
    positional: bool = False,
    projections: Projections | None = None,
) -> CrossAttentionTrace:
    """Trace softmax(X_t W_Q (X_s W_K)ᵀ / √d_k) · X_s W_V.

    Raises SentenceError (naming which sentence) for text that cannot be shown.
    """
    x_t = embed_sentence(target, d_model=d_model, seed=seed, positional=positional)
    x_s = embed_sentence(source, d_model=d_model, seed=seed, positional=positional)
    alignment = NO_ALIGNMENT
    if projections is None:
        if preset == "aligned":
            projections, alignment = aligned_projections(x_t, x_s, d_k, seed)
        elif preset == "random":
            projections = random_projections(d_model, d_k, seed)
        else:
            raise ValueError(f"The preset must be one of {', '.join(CROSS_PRESETS)}, got {preset!r}.")
    else:
        preset = "custom"
    w_q, w_k, w_v = (np.asarray(w, dtype=np.float64) for w in projections)
    q = x_t.x @ w_q  # [i, d_model] @ [d_model, d_k] -> [i, d_k]
    k = x_s.x @ w_k  # [i′, d_model] @ [d_model, d_k] -> [i′, d_k]
    v = x_s.x @ w_v  # [i′, d_k]
    scores = attention_scores(q, k)  # [i, d_k] @ [d_k, i′] -> [i, i′]
    scaled = scores / np.sqrt(d_k)  # [i, i′]
    weights = softmax(scaled, axis=-1)  # [i, i′], no mask: every target token reads the whole source
    output = weights @ v  # [i, i′] @ [i′, d_k] -> [i, d_k]
    return CrossAttentionTrace(x_t, x_s, preset, d_k, w_q, w_k, w_v, q, k, v, scores, scaled, weights, output,
                               alignment)
