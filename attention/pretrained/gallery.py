"""Heads with a job: heads of the real models whose behaviour was found and is checked by a test.

Each entry measures its claim on α (``measure``), so the page shows the number and the tests hold
the claim to ``at_least``. Layers and heads count from 0 here, as in the models' files; the page
shows them counting from 1, like every other index in the app.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attention.pretrained.common import Array


def on_previous(tokens: list[str], alpha: Array) -> float:
    """Mean weight a token puts on the token just before it (every token but the first)."""
    return float(np.mean([alpha[i, i - 1] for i in range(1, len(tokens))]))


def on_next(tokens: list[str], alpha: Array) -> float:
    """Mean weight a token puts on the token just after it (every token but the last)."""
    return float(np.mean([alpha[i, i + 1] for i in range(len(tokens) - 1)]))


def on_first(tokens: list[str], alpha: Array) -> float:
    """Mean weight on the first token ([CLS] for the encoder)."""
    return float(np.mean(alpha[:, 0]))


def it_to_cat(tokens: list[str], alpha: Array) -> float:
    """The weight "it" puts on "cat"."""
    return float(alpha[tokens.index("it"), tokens.index("cat")])


def induction(tokens: list[str], alpha: Array) -> float:
    """Mean weight on the token that came *after* the current token's previous occurrence (A B … A → B),
    over the tokens that occurred before."""
    found = []
    for i, token in enumerate(tokens):
        earlier = [j for j in range(i - 1) if tokens[j] == token]
        if earlier:
            found.append(alpha[i, earlier[-1] + 1])
    return float(np.mean(found))


def first_token_heads(tokens: list[str], weights: Array) -> float:
    """The share of all heads whose rows (after the first) put most of their weight on the first token."""
    return float(np.mean(weights[:, :, 1:, 0].mean(axis=-1) > 0.5))


@dataclass(frozen=True)
class GalleryHead:
    model: str
    layer: int  # from 0
    head: int  # from 0
    sentence: str
    job: str  # one sentence on what it does
    measure: Callable[[list[str], Array], float]
    measured: str  # what the number is
    at_least: float  # the tests hold the measure to this


GALLERY = (
    GalleryHead("minilm", 0, 2, "The cat sat on the mat because it was tired",
                "Looks at the previous token: every row puts nearly all its weight one place to the left.",
                on_previous, "mean weight on the previous token", 0.95),
    GalleryHead("minilm", 1, 8, "one two three four five six seven eight",
                "Looks at the next token, the mirror image of the head above.",
                on_next, "mean weight on the next token", 0.5),
    GalleryHead("minilm", 2, 7, "This forum is awesome",
                "Parks on [CLS]: when a head has nothing useful to look at, its weight goes to the first token.",
                on_first, "mean weight on [CLS]", 0.8),
    GalleryHead("minilm", 5, 11, "The cat sat on the mat because it was tired",
                "Links a pronoun to what it refers to: “it” looks at “cat”.",
                it_to_cat, "weight of “it” on “cat”", 0.6),
    GalleryHead("smollm2", 18, 6,
                "The violet tractor sermon pickle orbit lantern. The violet tractor sermon pickle orbit lantern.",
                "An induction head: on a repeated sequence, each token looks at the token that followed "
                "it last time (A B … A → B), which lets the model continue the pattern.",
                induction, "mean weight on the token after the previous occurrence", 0.7),
    GalleryHead("smollm2", 16, 0, "The cat sat on the mat because it was tired",
                "Looks at the previous token, as MiniLM's layer 1, head 3 does.", on_previous,
                "mean weight on the previous token", 0.7),
    GalleryHead("smollm2", 18, 8, "This forum is awesome and everyone here is kind",
                "An attention sink: every token parks its weight on the first token. Most of this model's heads do "
                "this for much of the time.", on_first, "mean weight on the first token", 0.9),
)


INDUCTION_WORDS = (
    "violet", "tractor", "sermon", "pickle", "orbit", "lantern", "pepper", "canyon", "quilt", "marble", "falcon",
    "velvet", "harbor", "walnut", "saddle", "meadow", "copper", "jigsaw", "tunnel", "parrot", "cactus", "ribbon",
    "anchor", "blossom", "kettle", "glacier", "puzzle", "trumpet", "oyster", "pillow", "rocket", "sponge",
)
INDUCTION_HEAD = (18, 6)  # SmolLM2, counted from 0


def induction_sentence(seed: int, words: int = 6) -> str:
    """A random sequence of words, said twice: "The w₁ … w₆. The w₁ … w₆." (seeded; at most 20 tokens, so
    the head's numbers fit in its heatmap). The second time,
    an induction head looks one token ahead of where the current token stood the first time."""
    rng = np.random.default_rng(seed)
    chosen = " ".join(rng.choice(INDUCTION_WORDS, size=words, replace=False))
    return f"The {chosen}. The {chosen}."
