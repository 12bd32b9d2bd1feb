"""From random to trained and back (issue 36): the walkthrough's open step on the same sentence in a trained model
(MiniLM or SmolLM2), opened on the head judged most informative for that sentence; a real head's step with the
walkthrough's random weights. The page it opens says, in one measured sentence, what changed: how focused the rows
of α are (``attention.focus.entropy_share``), the walkthrough's trace against the real head's, on the same sentence.

What a bridge carries (``_bridge`` in the session) is what the page it left measured on the trace it showed; the
page it opens measures its own trace and writes both. A note whose sentence is not the page's any more is dropped.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from attention import AttentionTrace
from attention.focus import entropy_share, most_informative_head
from attention.pretrained import MODELS, ModelMissing, package_dir
from attention.tokens import SentenceError
from ui import arrival
from ui.models import attentions_of, open_model, pick_head
from ui.walkthrough import STEPS, steps_for
from viz.labels import markdown_text

WALKTHROUGH, REAL_MODEL = "lessons/walkthrough.py", "lessons/real_model.py"
_NOTE = "_bridge"
SHORT = {"minilm": "MiniLM (an encoder)", "smollm2": "SmolLM2 (a decoder)"}
TITLES = [title for title, _, _ in STEPS]


def _walkthrough_step(trace: AttentionTrace, step: int) -> int:
    """A real head's step ``step`` (of ``steps_for(trace)``) in the walkthrough's list, by its title; a step the
    walkthrough lacks (the decoder's RoPE) is the walkthrough's step before it (Q, K, V)."""
    shown = [title for title, _, _ in steps_for(trace)[:step] if title in TITLES]
    return TITLES.index(shown[-1]) + 1


def offer_trained(trace: AttentionTrace, step: int) -> None:
    """Under a walkthrough step: open the same sentence and step in a trained model."""
    st.caption("The same step in a model that learned, on your sentence (opened on its most focused head):")
    columns = st.columns(len(MODELS))
    for column, name in zip(columns, MODELS, strict=True):
        if column.button(SHORT[name], key=f"bridge_{name}", icon=":material/psychology:", width="stretch"):
            _to_trained(trace, step, name)


def _to_trained(trace: AttentionTrace, step: int, name: str) -> None:
    try:
        package_dir(name)
        tokens, weights = attentions_of(name, trace.sentence)  # (a sentence the model can't take: SentenceError)
    except (ModelMissing, SentenceError) as why:
        st.error(f"{MODELS[name].title} can't open this sentence: {why}", icon=":material/error:")
        return
    n = len(tokens)
    allowed = np.tril(np.ones((n, n), dtype=bool)) if MODELS[name].kind == "decoder" else np.ones((n, n), dtype=bool)
    special = [0] if MODELS[name].kind == "decoder" else [0, n - 1]
    best = most_informative_head(weights, allowed, special)
    pick_head(best.layer, best.head)
    open_model(name)  # the heads switched off in another model are kept for it
    # the step the real page opens, by its title, as after a change of model (ui.models.same_step): the decoder's
    # step list has RoPE after Q, K, V, so its numbers differ from the walkthrough's
    st.session_state["_rm_step_of"] = (None, TITLES[step - 1])
    st.session_state[_NOTE] = {"from": "random", "sentence": trace.sentence, "random": entropy_share(trace.weights,
                               trace.mask), "model": name, "layer": best.layer, "head": best.head,
                               "sinks": best.sinks_passed_over}
    st.switch_page(REAL_MODEL)


def offer_random(trace: AttentionTrace, name: str, layer: int, head: int, step: int) -> None:
    """Under a real head's step: the same step in the walkthrough, with random weights, on the same sentence."""
    if st.button("The same step with random weights (the walkthrough)", key="bridge_random", icon=":material/casino:"):
        st.session_state["step"] = _walkthrough_step(trace, step)
        st.session_state["all_steps"] = False  # "the same step": the walkthrough opens on that one step
        arrival.go(f"step-{st.session_state['step']}")  # its heading at the top (a long page left the scroll low)
        st.session_state[_NOTE] = {"from": "trained", "sentence": trace.sentence, "model": name, "layer": layer,
                                   "head": head, "trained": entropy_share(trace.weights, trace.mask)}
        st.switch_page(WALKTHROUGH)


def _note(page: str, sentence: str) -> dict | None:
    note = st.session_state.get(_NOTE)
    if note is None or note["from"] != page or note["sentence"] != sentence:
        st.session_state.pop(_NOTE, None)  # another sentence, or the other way: what it measured no longer holds
        return None
    return note


def _share(value: float | None) -> str:
    return "not measured (no query sees two keys)" if value is None else f"{value:.2f}"


def _verdict(random: float | None, trained: float | None) -> str:
    if random is None or trained is None:
        return ""
    if trained < random:
        return " The trained head's rows are more focused: it has learned where to look."
    return " Here the trained head is no more focused than random weights."


def changed_on_trained(trace: AttentionTrace, name: str, layer: int, head: int) -> None:
    """On the real model's head, after the bridge from the walkthrough: what changed, measured on both traces."""
    note = _note("random", trace.sentence)
    if note is None or (note["model"], note["layer"], note["head"]) != (name, layer, head):
        return
    trained = entropy_share(trace.weights, trace.mask)
    sinks = note["sinks"]
    passed = f" ({sinks} heads that park most of their weight on the special tokens were passed over)" if sinks else ""
    st.info(f"**From random to trained, on “{markdown_text(trace.sentence)}”.** How focused α's rows are (each row's "
            "entropy as a share of its largest, averaged: 1 = every key weighted equally, 0 = one key takes all): "
            f"the walkthrough's random weights {_share(note['random'])}; {MODELS[name].title}, layer {layer + 1}, "
            f"head {head + 1}, {_share(trained)}. This head is the most focused of the model on your sentence"
            f"{passed}.{_verdict(note['random'], trained)}", icon=":material/compare_arrows:")


def changed_on_random(trace: AttentionTrace) -> None:
    """On the walkthrough, after the bridge from a real head: what changed, measured on both traces."""
    note = _note("trained", trace.sentence)
    if note is None:
        return
    random = entropy_share(trace.weights, trace.mask)
    st.info(f"**From trained to random, on “{markdown_text(trace.sentence)}”.** How focused α's rows are (each row's "
            "entropy as a share of its largest, averaged: 1 = every key weighted equally, 0 = one key takes all): "
            f"{MODELS[note['model']].title}, layer {note['layer'] + 1}, head {note['head'] + 1}, "
            f"{_share(note['trained'])}; these random weights {_share(random)}.{_verdict(random, note['trained'])}",
            icon=":material/compare_arrows:")
