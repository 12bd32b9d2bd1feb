"""Heads with a job: heads of the real models whose behaviour was measured over a family of sentences.

Each entry says what was measured and over which sentences (``family``), and its claim is held by a
test (tests/claims/test_real_model_claims.py): the measure reaches ``at_least`` on exactly
``holds_on`` of the family's sentences, as the job text says. The page also measures the head on
the learner's own sentence and says when the head does not do its job there. Layers and heads count
from 0 here, as in the models' files; the page shows them counting from 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attention.focus import model_sinks
from attention.messages import N_
from attention.pretrained.common import Array

# The family most claims are measured over: varied, and some chosen to break a claim (one word said
# four times, digits, emoji and accents, one token, code, a list of letters).
TEST_SENTENCES = (
    "This forum is awesome", "The cat sat on the mat because it was tired", "one two three four five six seven eight",
    "I love you", "Attention is all you need.", "Jindřich says: naïve café 你好 🤗!",
    "The quick brown fox jumps over the lazy dog", "the the the the", "A", "Hello, world!",
    "In 2024, 3 of 7 cats (43%) slept.", "Why divide by the square root of d_k?",
    "She gave him the book that he had asked for yesterday.", "To be, or not to be: that is the question.",
    "Colorless green ideas sleep furiously", "x = y + z * 2", "We read a good book and we loved it",
    "Paris is the capital of France and Berlin is the capital of Germany", "😀😀😀", "don't won't can't shouldn't",
    "The trophy did not fit in the suitcase because it was too small", "ÀÉÎÕÜ ñ ß", "a b c d e f g h i j k l m n o p",
    "Is this the real life? Is this just fantasy?",
)
# Sentences with "it" and the nouns before it (minimal pairs where "it" changes referent: soft/tired,
# tasty/hungry, small/big, bored/red)
PRONOUN_SENTENCES = (
    "The cat sat on the mat because it was tired", "The cat sat on the mat because it was soft",
    "The cat ate the fish because it was tasty", "The cat ate the fish because it was hungry",
    "The trophy did not fit in the suitcase because it was too small",
    "The trophy did not fit in the suitcase because it was too big",
    "The dog chased the ball because it was bored", "The dog chased the ball because it was red",
    "In the garden the dog chased the ball because it was bored", "The ball was chased by the dog because it was fast",
    "My phone fell into the lake and it stopped working", "The car hit the tree because it was icy",
    "The teacher gave the student a book because it was useful", "The bird left the nest when it was ready",
    "The river flooded the town because it was full", "The book is on the table and it is open",
    "When the robot saw the box it picked it up", "The farmer sold the cow because it was old",
    "The man put the cake in the oven because it was raw", "Although the lamp was cheap it lasted years",
)
SPECIALS = ("[CLS]", "[SEP]")


def on_previous(tokens: list[str], alpha: Array) -> float | None:
    """Mean weight a token puts on the token just before it (every token but the first)."""
    return float(np.mean([alpha[i, i - 1] for i in range(1, len(tokens))])) if len(tokens) > 1 else None


def on_next(tokens: list[str], alpha: Array) -> float | None:
    """Mean weight a token puts on the token just after it (every token but the last)."""
    return float(np.mean([alpha[i, i + 1] for i in range(len(tokens) - 1)])) if len(tokens) > 1 else None


def on_first(tokens: list[str], alpha: Array) -> float | None:
    """Mean weight on the first token ([CLS] for the encoder), over the rows after the first (the
    decoder's first row can only look at itself)."""
    return float(np.mean(alpha[1:, 0])) if len(tokens) > 1 else None


def pronoun_target(tokens: list[str], alpha: Array) -> tuple[int, float] | None:
    """Where the first "it" looks most, apart from [CLS], [SEP] and itself: (that token, its weight)."""
    if "it" not in tokens:
        return None
    i = tokens.index("it")
    others = [j for j, t in enumerate(tokens) if j != i and t not in SPECIALS]
    if not others:
        return None
    j = max(others, key=lambda j: alpha[i, j])
    return j, float(alpha[i, j])


def pronoun_weight(tokens: list[str], alpha: Array) -> float | None:
    found = pronoun_target(tokens, alpha)
    return None if found is None else found[1]


def induction(tokens: list[str], alpha: Array) -> float | None:
    """Mean weight on the token that came *after* the current token's previous occurrence (A B … A → B),
    over the tokens that occurred before (not just before)."""
    found = []
    for i, token in enumerate(tokens):
        earlier = [j for j in range(i - 1) if tokens[j] == token]
        if earlier:
            found.append(alpha[i, earlier[-1] + 1])
    return float(np.mean(found)) if found else None


def first_token_heads(tokens: list[str], weights: Array) -> float:
    """The share of a decoder's heads whose rows after the first (the rows with two keys or more) put most of their
    weight on the first token: its attention sinks (``attention.focus.model_sinks``, which the pages count)."""
    return float(np.mean(model_sinks("decoder", weights)))


@dataclass(frozen=True)
class GalleryHead:
    model: str
    layer: int  # from 0
    head: int  # from 0
    sentence: str  # the example "Show me" opens
    job: str  # what it does, with what was measured over which sentences (the test holds each number)
    measure: Callable[[list[str], Array], float | None]  # None: the sentence gives the measure nothing to read
    measured: str  # what the number is
    at_least: float | None  # the head does its job on a sentence where the measure reaches this (None: no verdict)
    family: tuple[str, ...]  # the sentences the job was measured over
    holds_on: int  # on how many of them the measure reaches ``at_least`` (the job text says so)
    needs: str = ""  # what a sentence needs for the measure, said when it lacks it
    name: str = ""  # the job in a few words, the start of ``job`` (the every-head view's tooltip)


def induction_family(count: int = 24) -> tuple[str, ...]:
    return tuple(induction_sentence(seed) for seed in range(count))


INDUCTION_WORDS = (
    "violet", "tractor", "sermon", "pickle", "orbit", "lantern", "pepper", "canyon", "quilt", "marble", "falcon",
    "velvet", "harbor", "walnut", "saddle", "meadow", "copper", "jigsaw", "tunnel", "parrot", "cactus", "ribbon",
    "anchor", "blossom", "kettle", "glacier", "puzzle", "trumpet", "oyster", "pillow", "rocket", "sponge",
)
INDUCTION_HEAD = (18, 6)  # SmolLM2, counted from 0
# SmolLM2's heads whose mean induction weight over induction_family() is at least 0.5 (a test holds the
# set): switched off together, the model can no longer continue a repeated sequence
INDUCTION_HEADS = ((17, 3), (17, 4), (17, 5), (18, 6), (18, 7))


def induction_sentence(seed: int, words: int = 6) -> str:
    """A random sequence of words, said twice: "The w₁ … w₆. The w₁ … w₆." (seeded; at most 20 tokens, so
    the head's numbers fit in its heatmap). The second time,
    an induction head looks one token ahead of where the current token stood the first time."""
    rng = np.random.default_rng(seed)
    chosen = " ".join(rng.choice(INDUCTION_WORDS, size=words, replace=False))
    return f"The {chosen}. The {chosen}."


def induction_prompt(seed: int, said: int = 4) -> tuple[str, str]:
    """The seed's sequence of induction_sentence, then "The" and its first ``said`` words again: (the
    prompt, the word that came next the first time). An induction head lets the model predict it."""
    rng = np.random.default_rng(seed)
    chosen = list(rng.choice(INDUCTION_WORDS, size=6, replace=False))  # as induction_sentence draws them
    return f"The {' '.join(chosen)}. The {' '.join(chosen[:said])}", str(chosen[said])


GALLERY = (
    GalleryHead("minilm", 0, 2, "The cat sat on the mat because it was tired",
                N_("Looks at the previous token: every row but the first puts nearly all its weight (at least 0.95) "
                   "one place to the left, on each of the 24 test sentences; the first row, [CLS], has nothing to its "
                   "left and looks at itself."),
                on_previous, N_("mean weight on the previous token"), 0.95, TEST_SENTENCES, 24,
                name=N_("Looks at the previous token")),
    GalleryHead("minilm", 1, 8, "one two three four five six seven eight",
                N_("Leans towards the next token: its rows put at least 0.35 of their weight there on average, on each "
                   "of the 24 test sentences, and on most of them over half the rows have their largest weight there. "
                   "Less sharp than the previous-token head above, which puts nearly all its weight on its neighbour."),
                on_next, N_("mean weight on the next token"), 0.35, TEST_SENTENCES, 24,
                name=N_("Leans towards the next token")),
    GalleryHead("minilm", 2, 7, "This forum is awesome",
                N_("Parks on [CLS]: its rows put at least 0.7 of their weight on the first token on average, on each "
                   "of the 24 test sentences (an attention sink: a place for a head's weight when it has nothing "
                   "better to look at)."),
                on_first, N_("mean weight on [CLS]"), 0.7, TEST_SENTENCES, 24, name=N_("Parks on [CLS]")),
    GalleryHead("minilm", 5, 11, "The cat sat on the mat because it was soft",
                N_("From “it”, looks back at a noun: on each of the 20 test sentences with “it”, its largest weight "
                   "(apart from [CLS] and [SEP]) is on a noun before it. But not reliably the noun “it” refers to: "
                   "here “it” is the mat, and the head still looks at “cat”, as it does when “it” is the cat."),
                pronoun_weight, N_("the weight of “it” on the token it looks at most"), None, PRONOUN_SENTENCES, 20,
                needs=N_("the word “it”"), name=N_("From “it”, looks back at a noun")),
    GalleryHead("smollm2", 18, 6,
                "The violet tractor sermon pickle orbit lantern. The violet tractor sermon pickle orbit lantern.",
                N_("An induction head: on a repeated sequence, each token looks at the token that followed it last "
                   "time (A B … A → B), which lets the model continue the pattern: a mean weight of at least 0.65 "
                   "there, on each of the 24 test sequences (six random words said twice)."),
                induction, N_("mean weight on the token after the previous occurrence"), 0.65, induction_family(), 24,
                needs=N_("a token that occurred before"), name=N_("An induction head")),
    GalleryHead("smollm2", 16, 0, "The cat sat on the mat because it was tired",
                N_("Looks at the previous token, as MiniLM's layer 1, head 3 does, less sharply: at least 0.75 of the "
                   "weight on average, on 22 of the 23 test sentences of two or more tokens. Not on “the the the the”, "
                   "where every earlier token is the same word."),
                on_previous, N_("mean weight on the previous token"), 0.75, TEST_SENTENCES, 22,
                name=N_("Looks at the previous token")),
    GalleryHead("smollm2", 18, 8, "This forum is awesome and everyone here is kind",
                N_("An attention sink: the rows after the first put nearly all their weight (at least 0.9) on the "
                   "first token, on 21 of the 23 test sentences of two or more tokens (not on “one two three …” or "
                   "“the the the the”). Most of this model's heads do this much of the time."),
                on_first, N_("mean weight on the first token"), 0.9, TEST_SENTENCES, 21,
                name=N_("An attention sink")),
)
