"""The truth audit of issue 43's new and changed texts (docs/../TRUTH_AUDIT.md's method): each test is an input that
broke a sentence the app showed or the docs stated, as a learner or teacher met it; each failed on the code the audit
read (its docstring quotes the sentence as it was) and now guards the fix."""

from __future__ import annotations

import json
import re
import subprocess
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from attention import trace_self_attention
from attention.focus import entropy_share
from attention.sampling import Sampling, draw, processed
from viz import sampling as S

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = np.load(ROOT / "tests" / "golden" / "sampling.npz")
FORUM = GOLDEN["0/logits"].astype(np.float64)  # SmolLM2's next-token logits on "This forum is awesome" (the default)
_SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def _value(text: str) -> Fraction:
    if "×" in text:
        mantissa, exponent = text.split(" × 10")
        return Fraction(mantissa) * Fraction(10) ** int(exponent.translate(_SUPERSCRIPT))
    return Fraction(text)


def _unit(text: str) -> Fraction:
    """One unit of a written number's last digit."""
    if "×" in text:
        mantissa, exponent = text.split(" × 10")
        places = len(mantissa.split(".")[1]) if "." in mantissa else 0
        return Fraction(10) ** (int(exponent.translate(_SUPERSCRIPT)) - places)
    return Fraction(1, 10 ** len(text.split(".")[1])) if "." in text else Fraction(1)


# --- sampling (viz/sampling.py) -----------------------------------------------------------------------------------

def test_the_draws_written_slice_gives_its_p_at_t_2_seed_9():
    """viz/sampling.py draw_text: "u falls in “␣preferences”'s slice, [0.8702, 0.8703) (0.8703 − 0.8702 ≈ 0.000011,
    its p sampled from)". On the default sentence at T = 2, seed 9, the written slice is 0.0001 long, nine times the
    p it is said to be about; at 7 decimals ([0.8702446, 0.8702555)) the written numbers give 0.000011 exactly as the
    one rule (viz/arithmetic.py: the fewest decimals that add up, "≈" only where none do) asks."""
    result = processed(FORUM, Sampling(2.0, 0, 1.0))
    s = S.sampled(result, draw(result.after, 9), str)
    text = S.draw_text(s, 9)
    a, b, relation, p = re.search(r"\(([\d.]+) − ([\d.]+) ([=≈]) ([^,]+), its p sampled from\)", text).groups()
    length = _value(a) - _value(b)
    assert 2 * abs(length - _value(p)) < _unit(p), (
        f"the slice as written is {float(length)} long, said {relation} {p}: {text}")


def test_a_kept_share_top_p_cut_from_reads_below_1():
    """viz/sampling.py kept_text: "top-k keeps the 3 with the largest logits, which hold 1.000 of the probability at T.
    [...] It keeps the fewest likeliest of them whose renormalised probabilities add up to at least 0.95: **2
    tokens**, holding 1.000 ÷ 1.000 = 1.000 of what top-k left". On the default sentence at T = 0.1, top-k 3, top-p
    0.95, top-p cuts the third token (0.000067 of what top-k left), and the text says the two kept hold all of it:
    the mirror of the "0.000" the table's two significant digits were made to avoid."""
    result = processed(FORUM, Sampling(0.1, 3, 0.95))
    s = S.sampled(result, draw(result.after, 0), str)
    assert s.kept_count < s.after_top_k  # top-p did cut a token of what top-k left
    text = S.kept_text(s)
    share = re.search(r"= ([^ ]+) of what top-k left", text).group(1)
    assert _value(share) < 1, f"a share below 1 ({s.kept_share!r}) is written {share}: {text}"


# --- the bridge (ui/bridge.py) --------------------------------------------------------------------------------------

def test_the_bridge_claims_no_learning_from_a_pick_that_random_heads_can_beat(smollm2):
    """ui/bridge.py _verdict: "The trained head's rows are more focused: it has learned where to look." The trained
    head is the most focused of SmolLM2's 37 non-sink heads on "This forum is awesome" (share 0.33); the walkthrough's
    is one seeded random head (causal, seed 42: 0.96). The most focused of 270 seeded random heads on the same
    sentence (seeds 0-269, same settings) has 0.31, more focused than the trained head: the comparison is a
    most-focused-of-many against one draw, so the lower share does not show that anything was learned."""
    from ui.bridge import choose_head, to_trained_text
    sentence = "This forum is awesome"
    tokens, weights = smollm2.attentions(sentence)
    best = choose_head("smollm2", list(tokens), np.asarray(weights, dtype=np.float64))
    walk = trace_self_attention(sentence, d_model=8, d_k=4, seed=42, causal=True)
    note = {"model": "smollm2", "layer": best.layer, "head": best.head, "sentence": sentence, "preset": "random",
            "seed": 42, "causal": True, "walkthrough": entropy_share(walk.weights, walk.mask), "best": tuple(best)}
    text = to_trained_text(note, tokens, best.share)
    random_best = min(entropy_share(t.weights, t.mask) for t in (
        trace_self_attention(sentence, d_model=8, d_k=4, seed=k, causal=True) for k in range(270)))
    assert not ("it has learned where to look" in text and random_best < best.share), (
        f"most focused of 270 random heads {random_best:.3f} < the trained head's {best.share:.3f}; the page: {text}")


# --- Play a step (static/player.js, ui/player.py) -------------------------------------------------------------------

_KEYS = r"""
class El {
  constructor(tag) { this.tagName = tag.toUpperCase(); this.children = []; this.attrs = {}; this.listeners = {};
    this.dataset = {}; this.textContent = ""; this.value = ""; }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  getAttribute(k) { return this.attrs[k]; }
  append(...c) { this.children.push(...c); }
  replaceChildren(...c) { this.children = c; }
  addEventListener(t, f) { (this.listeners[t] ||= []).push(f); }
  fire(t, e) { (this.listeners[t] || []).forEach((f) => f(e)); }
}
globalThis.document = { createElement: (t) => new El(t), createElementNS: (_, t) => new El(t) };
globalThis.window = { matchMedia: () => ({ matches: false }) };
const { default: player } = await import(process.argv[1]);
const parent = new El("div");
const cleanup = player({ data: JSON.parse(process.argv[2]), parentElement: parent });
const root = parent.children[0];
const [query, back, play, forward] = root.children[0].children;
const counter = root.children[0].children[5];
const targets = { query, back, play, forward, player: root };
// the player's own key handler, then what a browser does with a key the handler left alone: Space on a focused
// button clicks it
function press(key, target) {
  let prevented = false;
  root.fire("keydown", { key, target, preventDefault() { prevented = true; } });
  if (!prevented && target.tagName === "BUTTON" && key === " ") target.fire("click", {});
}
const [key, where] = process.argv.slice(3);
const before = counter.textContent;
press(key, targets[where]);
const out = { before, after: counter.textContent, playing: play.getAttribute("aria-label") === "Pause" };
cleanup();
console.log(JSON.stringify(out));
"""


def _player_help() -> str:
    """The help of the switch that opens a player, as ui/player.py writes it (one string over several lines)."""
    source = (ROOT / "ui" / "player.py").read_text()
    return "".join(re.findall(r'"([^"]*)"', re.search(r"help=(.*?)\):", source, re.S).group(1)))


def _press(key: str, where: str) -> dict:
    """Press ``key`` with the focus on ``where`` in a softmax player of the default sentence (Node, a stub DOM)."""
    from viz.player import player_data
    data = player_data(trace_self_attention("This forum is awesome", d_model=8, d_k=4, seed=42), "softmax")
    done = subprocess.run(["node", "--input-type=module", "-e", _KEYS, (ROOT / "static" / "player.js").as_uri(),
                           json.dumps(data), key, where], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_space_after_clicking_1_frame_plays():
    """ui/player.py, the switch's help: "Space plays or pauses, ← and → go 1 frame back or forward". With the focus
    on the "1 frame" forward button (where a click leaves it), Space is the button's own: it goes 1 frame forward
    and nothing plays (static/player.js leaves Space on a button to the browser)."""
    help_text = _player_help()
    pressed = _press(" ", "forward")
    assert "Space plays or pauses" not in help_text or pressed["playing"], (
        f"Space did not play: the counter went {pressed['before']} → {pressed['after']}; the help: {help_text}")


def test_arrow_keys_on_the_query_menu_move_a_frame():
    """ui/player.py, the switch's help: "← and → go 1 frame back or forward". With the focus on the player's query
    menu (where choosing a query leaves it), the player ignores every key (static/player.js returns on a SELECT):
    → leaves the frame where it is, and a browser's closed menu takes the arrow for itself."""
    help_text = _player_help()
    pressed = _press("ArrowRight", "query")
    assert "← and → go 1 frame back or forward" not in help_text or pressed["after"] != pressed["before"], (
        f"→ left the player on frame {pressed['after']}; the help: {help_text}")


# --- counts and their nouns (docs/decisions.md, Issue 43: "Counts on screen agree with their nouns") ----------------

def test_the_multi_head_pages_map_says_1_head_with_one_head():
    """docs/decisions.md, Issue 43: "Counts on screen agree with their nouns ("1 term + sum", "1 token") through
    `viz.labels.count`." The multi-head page's model map with h = 1 (the default for an odd d_model) names its group
    "1 heads, one layer: this page" and its part "1 heads side by side"."""
    from ui.bridge import TITLES
    from viz.model_map import lesson_map
    trace = trace_self_attention("This forum is awesome", d_model=3, d_k=3, seed=42)
    names = [g["name"] for g in lesson_map(trace, TITLES, 3, heads=1)["groups"]]
    labels = [p["label"] for g in lesson_map(trace, TITLES, 3, heads=1)["groups"] for p in g["parts"]]
    wrong = [t for t in names + labels if re.search(r"\b1 heads\b", t)]
    assert not wrong, wrong


def test_two_tokens_written_make_the_work_text_say_the_tables_1_row():
    """docs/decisions.md, Issue 43: "Counts on screen agree with their nouns". The cache lesson with two tokens
    written (its slider goes down to 1) says "The table's 1 rows after the first add up to …" (viz/generation.py
    work_text)."""
    from viz.generation import work_text
    gen = SimpleNamespace(prompt=4, written=["␣a", "␣b"], tokens=["This", "␣forum", "␣is", "␣awesome", "␣a", "␣b"],
                          probabilities=[0.5, 0.4], seconds_cached=[0.01, 0.002], seconds_recomputed=[0.01, 0.01])
    text = work_text(gen, lambda t, cached: 1_000_000 * (1 if cached else t + 1))
    assert "1 rows" not in text, text
