"""The truth audit of issue 45's real-model, cache and learn pages (moved to catalog messages, 2026-12-05): the English
sentences it found false or misleading, each held over the inputs that broke it."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from attention.phonebook import clean_book
from attention.pretrained.common import Scan
from viz import generation as G
from viz import pretrained as P


def test_the_cache_sentence_counts_one_token_in_good_grammar(smollm2):
    """Prompt "A", 1 token to write: "The cache now holds 1 tokens"."""
    gen = smollm2.generate("A", 1)
    text = G.cache_text(gen, 9)
    assert gen.keys.shape[2] == 1
    assert "1 tokens" not in text and "holds 1 token:" in text


def _written(cached: list[float], whole: list[float]):
    n = len(cached)
    return SimpleNamespace(tokens=[f"w{k}" for k in range(3 + n)], prompt=3, written=list(range(n)),
                           probabilities=[0.5] * n, seconds_cached=cached, seconds_recomputed=whole,
                           steps=[None] * (n - 1))


@pytest.mark.parametrize("cached, whole", [
    ([0.01, 0.010, 0.010], [0.01, 0.500, 0.500]),  # 50× faster in time, 4.5× fewer multiply-adds
    ([0.01, 0.0001, 0.0001], [0.01, 0.05, 0.05]),  # the cached rows read 0 ms
])
def test_the_work_sentence_says_the_time_saves_less_only_when_its_numbers_say_so(cached, whole):
    """"…: 4.5× fewer. In time it was 20 ms against 1,000 ms here, 50.0× faster: the time saves less than the
    arithmetic". On this server "A", 2 tokens measured 1.8× fewer and 3.1× faster."""
    text = G.work_text(_written(cached, whole), lambda t, cached: 100_000_000 * (1 if cached else t + 1))
    assert "4.5× fewer" in text
    assert "the time saves less than the arithmetic" not in text


def test_the_work_sentence_does_not_call_a_slower_cache_faster():
    """"In time it was 100 ms against 40 ms here, 0.4× faster"."""
    text = G.work_text(_written([0.01, 0.05, 0.05], [0.01, 0.02, 0.02]),
                       lambda t, cached: 100_000_000 * (1 if cached else t + 1))
    assert "100 ms against 40 ms" in text and "0.4× faster" not in text


def test_the_scan_sentence_agrees_with_a_count_of_one():
    """"Of the 9 heads scanned, 1 lower it by more than 0.1" (SmolLM2, "This forum is awesome", layers 29–29)."""
    drops = np.zeros((1, 9))
    drops[0, 3], drops[0, 5] = 0.5, -0.2
    text = P.scan_text(Scan(5, float(np.log(0.4)), (28,), drops, 1.0), "x")
    assert "1 lowers it by more than 0.1" in text and "1 raises it by more than 0.1" in text


def test_the_scan_sentence_does_not_say_a_head_lowers_p_when_every_head_raises_it():
    """"Switching off layer 30, head 1 lowers its log-probability most, by −0.02 (p 0.400 → 0.408)"."""
    drops = -np.linspace(0.02, 0.3, 9)[None]
    text = P.scan_text(Scan(1, float(np.log(0.4)), (29,), drops, 1.0), "x")
    assert "lowers its log-probability most, by −" not in text


@pytest.mark.parametrize("sentence", ["a   b", "x  "])
def test_the_spaces_sentence_counts_a_token_made_of_spaces(smollm2, sentence):
    """"a   b" is a, ␣␣, ␣b: the page said "2 spaces belong to the token after them, and no space is a token of its
    own"; "x  " is x, ␣␣: "1 space belongs to the token after it" (no token follows)."""
    text = P.spaces_text(*smollm2.spaces(sentence))
    assert "no space is a token of its own" not in text


def test_the_spaces_sentence_does_not_quote_the_end_as_a_token(smollm2):
    """"Hello ": "1 is a token of its own (before “the end”)", as if “the end” were a token."""
    text = P.spaces_text(*smollm2.spaces("Hello "))
    assert "“the end”" not in text


def test_a_name_three_times_is_not_said_to_appear_twice():
    """Al, al, AL: two warnings, each "appears twice … gives both numbers the same weight" (three share it)."""
    messages = [str(m) for m in clean_book([("Al", "1"), ("al", "2"), ("AL", "3")]).messages]
    assert not any("twice" in m or "both numbers" in m for m in messages)
