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
)
