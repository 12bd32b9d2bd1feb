"""Play a step (issue 36; issue 43, item 5): every frame the player writes, for every query of every player, adds up
at the decimals it shows or says "≈" (viz/arithmetic.py, the one rule), and writes a negative factor in parentheses
whichever side of the product it is on, as the tooltips do.

The frames are written by static/player.js, run in Node (tests/js/player_frames.mjs) on viz/player.py's payloads,
and read by tests/written.py, the calculator that only reads text. The inputs: sentences of one token to 32 (the
player's largest), repeated words whose weights tie at 1/3 or 1/4 ("the the the"), random and hand-edited
projections (exact halves, ±100, tiny numbers), d_k from 1 to 12 (per term up to 8, a key at once beyond), the causal
mask, temperatures, and a cached step's one query (the player is not offered on cross-attention).
"""

from __future__ import annotations

import json
import re
import subprocess
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import Projections, SentenceError, trace_self_attention
from attention.trace import Embedded, embed_sentence, trace_cached_query
from tests import written
from tests.claims.families import SENTENCES
from viz.i18n import PSEUDO, speaking
from viz.labels import format_number
from viz.player import KINDS, MAX_TOKENS, player_data, player_texts

WORDS = ["the", "cat", "sat", "a", "x", "Jindřich", "!", "🤗"]
sentences = st.one_of(
    st.sampled_from(SENTENCES),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join),
    st.just("w " * MAX_TOKENS).map(str.strip),  # the player's longest row, all one word: 32 weights of 1/32
    st.sampled_from(["hello", "the the the", "a a", "x x x x x x"]),  # ties: thirds, halves, sixths
)
ENTRIES = st.one_of(st.floats(-3, 3), st.sampled_from([0.0, 0.125, -0.125, 0.5, 1.0, -1.0, 0.005, 100.0, -100.0, 1e-7]))


@st.composite
def traces(draw):
    d_model = draw(st.sampled_from([2, 4, 8, 16]))
    d_k = draw(st.sampled_from([1, 2, 3, 4, 8, 9, 12]))
    options = {"d_model": d_model, "d_k": d_k, "seed": draw(st.integers(0, 999_999)),
               "positional": draw(st.booleans()), "causal": draw(st.booleans()),
               "temperature": draw(st.sampled_from([1.0, 1.0, 0.5, 2.0, 0.05])),
               "preset": draw(st.sampled_from(["random", "identity"]))}
    if draw(st.booleans()):  # hand-edited matrices
        options["projections"] = Projections(*(np.array(draw(st.lists(
            ENTRIES, min_size=d_model * d_k, max_size=d_model * d_k))).reshape(d_model, d_k) for _ in range(3)))
    sentence = draw(sentences)
    try:
        trace = trace_self_attention(sentence, **options)
    except SentenceError:
        sentence = "This forum is awesome"
        trace = trace_self_attention(sentence, **options)
    if draw(st.booleans()) and trace.n > 1:  # the cache lesson's step: the last token's one query, every key cached
        whole = embed_sentence(sentence, d_model=d_model, seed=options["seed"])
        last = Embedded(whole.sentence, whole.tokens, whole.seed, whole.embeddings[-1:], None, whole.x[-1:])
        w = Projections(trace.w_q, trace.w_k, trace.w_v)
        return trace_cached_query(last, w, trace.k[:-1], trace.v[:-1])
    return trace


def frame_texts(payloads: list[dict]) -> list[list[list[str]]]:
    """[payload][query] → every frame's text, as static/player.js writes it (in Node)."""
    done = subprocess.run(["node", str(written.ROOT / "tests" / "js" / "player_frames.mjs")],
                          input=json.dumps(payloads), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def expression(text: str) -> str:
    """The written-out arithmetic of a frame: what stands between its last two "=" / "≈"."""
    return re.split(r" [=≈] ", text)[-2]


def table_sum(weights) -> Fraction:
    """The weights as the step's table shows them (2 decimals), added up by hand."""
    return sum((written.value(format_number(a)) for a in weights), Fraction(0))


def check_player(trace) -> None:
    payloads = [player_data(trace, kind) for kind in KINDS]
    scores, softmax, output = frame_texts(payloads)
    mask = trace.mask if trace.queries is None else np.ones(trace.scores.shape, dtype=bool)
    for i, label in enumerate(payloads[0]["queries"]):
        sees = int(mask[i].sum())
        # the scores: every frame but the last writes q·k (so far) and its sum; each must be read and add up
        per_key = trace.d_k if trace.d_k <= 8 else 1
        assert len(scores[i]) == trace.n * per_key + 1
        for text in scores[i][:-1]:
            assert written.check(text) is not None, text
            assert not re.search(r"(?<!\()−", expression(text)), f"a negative factor without parentheses: {text}"
        # the softmax: z and m, each e, Σ e, each α = e / Σ, and the weights' sum
        frames = softmax[i]
        assert len(frames) == 1 + sees + 1 + sees + 1
        arithmetic = frames[1 + sees: -1] if sees > 1 else frames[2 + sees: -1]  # Σ of one exponential: no sum
        for text in arithmetic:
            assert written.check(text) is not None, text
        last = frames[-1]
        if sees > 1:
            shown = written.check(last)[2]  # Σ α written out, as it adds up
            assert shown == format_number(trace.weights[i].sum()) == "1.00"
            assert f"the weights of “{label}” add up to 1: Σ α " in last
            by_hand = table_sum(trace.weights[i][mask[i]])
            if by_hand != 1:  # the table's 0.33 + 0.33 + 0.33: the text says so, with the table's own sum
                assert f"Rounded to 2 decimals there, they add up to {format_number(float(by_hand))};" in last, last
            else:
                assert "Rounded" not in last
        else:
            assert last == (f"“{label}” sees one key, so its one weight is 1.00; the step's table holds the same "
                            "numbers.")
        # the output: α·v key by key, its running sums said "≈" (they are not written out term by term)
        assert all(" = " not in text for text in output[i][:-1])


@settings(max_examples=25)
@given(traces())
def test_every_frame_of_every_player_adds_up_at_the_decimals_it_shows(trace):
    check_player(trace)


def test_three_equal_weights_are_not_said_to_add_up_to_1_beside_0_33_three_times():
    """Issue 43: "the the the" ends on 0.33, 0.33, 0.33 in the table; the last frame said "add up to 1" beside them."""
    trace = trace_self_attention("the the the", d_model=8, d_k=4, seed=0)
    assert np.allclose(trace.weights, 1 / 3)
    last = frame_texts([player_data(trace, "softmax")])[0][0][-1]
    assert last == ("The step's table holds the same numbers. Rounded to 2 decimals there, they add up to 0.99; "
                    "written with 3 decimals, the weights of “the (1)” add up to 1: Σ α = 0.333 + 0.333 + 0.333 = 1.00")
    check_player(trace)


def test_the_browsers_copy_of_the_english_texts_is_the_servers():
    """tests/js/player_texts.json gives the Node tests' hand-made payloads the texts a payload carries: the server's."""
    copy = json.loads((written.ROOT / "tests" / "js" / "player_texts.json").read_text(encoding="utf-8"))
    assert copy == player_texts()


def test_every_word_a_player_writes_comes_from_the_catalogs():
    """Issue 45: in the pseudo-language every frame of every player says only catalog text around the numbers and the
    tokens (the browser holds no words of its own), and its numbers are the same as in English."""
    trace = trace_self_attention("This forum is awesome", seed=3, causal=True)
    kinds = ("scores", "softmax", "output")
    with speaking(PSEUDO):
        marked = [player_data(trace, kind) for kind in kinds]
    english = frame_texts([player_data(trace, kind) for kind in kinds])
    for payload, texts, plain in zip(marked, frame_texts(marked), english, strict=True):
        assert all(value.startswith("⟦") for name, value in payload["texts"].items() if name not in ("sep", "decimal"))
        for query, plain_query in zip(texts, plain, strict=True):
            for text, plain_text in zip(query, plain_query, strict=True):
                assert "⟦" in text, text
                assert re.findall(r"−?\d+\.\d+", text) == re.findall(r"−?\d+\.\d+", plain_text), (text, plain_text)
