"""From the walkthrough to a trained model and back (issue 36): the walkthrough's open step on the same sentence in a
trained model (MiniLM or SmolLM2), opened on its most focused head that is not an attention sink; a real head's step
in the walkthrough, with the walkthrough's own W_Q, W_K, W_V (a preset or hand edits, named as they are). The page
it opens says, in one measured sentence, what changed: how focused the rows of α are
(``attention.focus.entropy_share``), the walkthrough's trace against the real head's, on the same sentence.

What a bridge carries (``_bridge`` in the session) is what the page it left measured on the trace it showed; the
page it opens measures its own trace and writes both. A note whose sentence is not the page's any more is dropped.
The sentences are built by pure functions (``to_trained_text``, ``to_walkthrough_text``), which the tests read.
"""

from __future__ import annotations

from fractions import Fraction

import streamlit as st

from attention import AttentionTrace
from attention.focus import SINK, Informative, allowed_keys, entropy_share, most_informative_head, sink_tokens
from attention.pretrained import MODELS, ModelMissing, package_dir
from attention.tokens import SentenceError
from ui import arrival
from ui.links import default
from ui.matrix_editor import EDIT_STATE, LINK_STATE, hand_edited
from ui.models import attentions_of, open_model, pick_head
from ui.walkthrough import STEPS, steps_for
from viz.i18n import N_, decimal, nt, said, sentences, t
from viz.labels import markdown_text

WALKTHROUGH, REAL_MODEL = "lessons/walkthrough.py", "lessons/real_model.py"
_NOTE = "_bridge"
SHORT = {"minilm": N_("MiniLM (an encoder)"), "smollm2": N_("SmolLM2 (a decoder)")}
TITLES = [title for title, _, _ in STEPS]
MEASURE = N_("How focused α's rows are (each row's entropy as a share of its largest, averaged over the rows with two "
           "keys or more: 1 = every key weighted equally, 0 = one key takes all)")
OFFER = N_("The same step in a model that learned, on your sentence, opened on its most focused head that is not an "
           "attention sink (if every head is one, the most focused of all; if no query has two keys to choose from, "
           "its first head):")


def _walkthrough_step(trace: AttentionTrace, step: int) -> int:
    """A real head's step ``step`` (of ``steps_for(trace)``) in the walkthrough's list, by its title; a step the
    walkthrough lacks (the decoder's RoPE) is the walkthrough's step before it (Q, K, V)."""
    shown = [title for title, _, _ in steps_for(trace)[:step] if title in TITLES]
    return TITLES.index(shown[-1]) + 1


def _model(name: str) -> str:
    """The model's short name: "SmolLM2"."""
    return MODELS[name].short


def weights_words(preset: str, seed: int | None) -> str:
    """The walkthrough's W_Q, W_K, W_V as they are: ``preset`` is a trace's ("random", "identity", or "custom" for
    hand-edited matrices, on either preset). ``seed`` None leaves the seed unnamed: the real-model page does not read
    the seed (ui.settings.USED_BY), so its way back names none and its content stays the same whatever the seed."""
    if preset == "identity":
        return t("the identity preset's W_Q, W_K, W_V (W = I)")
    if preset == "custom":
        return t("your hand-edited W_Q, W_K, W_V")
    if seed is None:
        return t("seeded random W_Q, W_K, W_V")
    return t("seeded random W_Q, W_K, W_V (seed {seed})", seed=seed)


def _sees(causal: bool) -> str:
    return (t("causal (each query sees itself and the tokens before it)") if causal else
            t("unmasked (each query sees every token)"))


def mask_words(walkthrough_causal: bool, name: str) -> str:
    """When the walkthrough's head and the model's are masked differently, a sentence that says so ("" otherwise)."""
    causal = MODELS[name].kind == "decoder"
    if walkthrough_causal == causal:
        return ""
    return t("The walkthrough's head is {walkthrough}, {model}'s is {model_mask}: each row's share is taken over the "
             "keys that row sees.", walkthrough=_sees(walkthrough_causal), model=_model(name), model_mask=_sees(causal))


def _sink_place(name: str, tokens: list[str] | tuple[str, ...]) -> str:
    if MODELS[name].kind == "decoder":
        return t("the first token, “{token}” (the start of your sentence: {model} adds no special token)",
                 token=markdown_text(tokens[0]), model=_model(name))
    return t("[CLS] and [SEP] (the special tokens {model} adds at the start and the end)", model=_model(name))


def _where(name: str, tokens: list[str] | tuple[str, ...], best: Informative) -> str:
    """Where the sink share is taken; where an even spread would put more than half the weight on the sinks (an
    encoder's one-word sentence: [CLS] and [SEP] are 2 of its 3 keys), the rule's second half, that share as a
    fraction of the keys."""
    place = _sink_place(name, tokens)
    if best.sink_at <= SINK:
        return t("averaged over the rows with two keys or more, on {place}", place=place)
    even = Fraction(best.sink_at).limit_denominator(len(tokens))
    return t("averaged over the rows with two keys or more, on {place}, and more than the {even} an even spread over "
             "the keys would put there", place=place, even=str(even))


def choice_words(name: str, tokens: list[str] | tuple[str, ...], best: Informative) -> str:
    """Why this head was opened, with the counts of ``most_informative_head`` (the measure the page states)."""
    model, heads = _model(name), best.heads
    if best.share is None:
        return t("Your sentence is one {model} token, so no query has two keys to choose from: no head is more focused "
                 "than another and none is an attention sink, so this is the model's first head.", model=model)
    where = _where(name, tokens, best)
    if best.sinks == 0:
        return t("None of {model}'s {heads} heads is an attention sink here (more than half its weight, {where}): this "
                 "head is the most focused of all {heads}.", model=model, heads=heads, where=where)
    if best.sinks == heads:
        return t("All {heads} of {model}'s heads put more than half their weight, {where}: every one is an attention "
                 "sink, so none was passed over, and this head is the most focused of all {heads}.", model=model,
                 heads=heads, where=where)
    one = best.sinks == 1
    more = best.sinks_more_focused
    them = ((t("it is not more focused than this head") if more == 0 else t("it is more focused than this head"))
            if one else t("none of them is more focused than this head") if more == 0 else
            nt("{n} of them is more focused than this head", "{n} of them are more focused than this head", more))
    others = heads - best.sinks
    this = (t("This is the one head that is not a sink.") if others == 1 else
            t("This head is the most focused of the other {others}.", others=others))
    return sentences(nt("Of {model}'s {heads} heads, {n} puts more than half its weight, {where}: an attention sink, "
                        "passed over ({them}).",
                        "Of {model}'s {heads} heads, {n} put more than half their weight, {where}: attention sinks, "
                        "passed over ({them}).", best.sinks, model=model, heads=heads, where=where, them=them), this)


def _share(value: float | None) -> str:
    return t("not measured (no query sees two keys)") if value is None else decimal(f"{value:.2f}")


def _verdict(walkthrough: float | None, trained: float | None) -> str:
    """The two shares compared as shown (two decimals)."""
    if walkthrough is None or trained is None:
        return ""
    if _share(trained) == _share(walkthrough):
        return t("At two decimals the two heads are equally focused.")
    if trained < walkthrough:
        # not "it has learned where to look": the trained head is the most focused of many, the walkthrough's one
        # draw, and the most focused of as many random heads can be more focused still (the audit of issue 43)
        return t("The trained head's rows are more focused than the walkthrough's.")
    return t("Here the trained head is no more focused than the walkthrough's.")


def to_trained_text(note: dict, tokens: list[str] | tuple[str, ...], trained: float | None) -> str:
    """On the real model's head, after the bridge from the walkthrough: the sentence that says what changed."""
    name, layer, head = note["model"], note["layer"], note["head"]
    text = t("**From the walkthrough to {model}, on “{sentence}”.** {measure}: the walkthrough's head, with {weights}, "
             "{walkthrough}; {model}, layer {layer}, head {head}, {trained}.", model=_model(name),
             sentence=markdown_text(note["sentence"]), measure=t(MEASURE),
             weights=weights_words(note["preset"], note["seed"]), walkthrough=_share(note["walkthrough"]),
             layer=layer + 1, head=head + 1, trained=_share(trained))
    return sentences(text, mask_words(note["causal"], name), choice_words(name, tokens, Informative(*note["best"])),
                     _verdict(note["walkthrough"], trained))


def to_walkthrough_text(note: dict, trace: AttentionTrace) -> str:
    """On the walkthrough, after the bridge from a real head: the sentence that says what changed."""
    name = note["model"]
    walkthrough = entropy_share(trace.weights, trace.mask)
    text = t("**From {model} to the walkthrough, on “{sentence}”.** {measure}: {model}, layer {layer}, head {head}, "
             "{trained}; the walkthrough's head, with {weights}, {walkthrough}.", model=_model(name),
             sentence=markdown_text(trace.sentence), measure=t(MEASURE), layer=note["layer"] + 1,
             head=note["head"] + 1, trained=_share(note["trained"]), weights=weights_words(trace.preset, trace.seed),
             walkthrough=_share(walkthrough))
    return sentences(text, mask_words(trace.causal, name), _verdict(walkthrough, note["trained"]))


def offer_trained(trace: AttentionTrace, step: int) -> None:
    """Under a walkthrough step: open the same sentence and step in a trained model."""
    st.caption(t(OFFER))
    columns = st.columns(len(MODELS))
    for column, name in zip(columns, MODELS, strict=True):
        if column.button(t(SHORT[name]), key=f"bridge_{name}", icon=":material/psychology:", width="stretch"):
            _to_trained(trace, step, name)


def choose_head(name: str, tokens: list[str], weights) -> Informative:
    """The head the bridge opens: the most focused that is not an attention sink, with its model's mask and sinks."""
    n = len(tokens)
    return most_informative_head(weights, allowed_keys(MODELS[name].kind, n), sink_tokens(MODELS[name].kind, n))


def _to_trained(trace: AttentionTrace, step: int, name: str) -> None:
    try:
        package_dir(name)
        tokens, weights = attentions_of(name, trace.sentence)  # (a sentence the model can't take: SentenceError)
    except (ModelMissing, SentenceError) as why:
        st.error(t("{model} can't open this sentence: {why}", model=t(MODELS[name].title),
                   why=said(why.message)),
                 icon=":material/error:")
        return
    best = choose_head(name, tokens, weights)
    pick_head(best.layer, best.head)
    open_model(name)  # the heads switched off in another model are kept for it
    # the step the real page opens, by its title, as after a change of model (ui.models.same_step): the decoder's
    # step list has RoPE after Q, K, V, so its numbers differ from the walkthrough's
    st.session_state["_rm_step_of"] = (None, TITLES[step - 1])
    st.session_state[_NOTE] = {"from": "walkthrough", "sentence": trace.sentence, "preset": trace.preset,
                               "seed": trace.seed, "causal": trace.causal,
                               "walkthrough": entropy_share(trace.weights, trace.mask), "model": name,
                               "layer": best.layer, "head": best.head, "best": tuple(best)}
    st.switch_page(REAL_MODEL)


def walkthrough_preset() -> str:
    """The walkthrough's W_Q, W_K, W_V as its page will make them (lessons/walkthrough.py), read from the session on
    another page: its preset, or "custom" when hand edits will apply."""
    state = st.session_state
    seed, d_model = state.get("seed", default("seed")), state.get("d_model", default("d_model"))
    preset = state.get("preset") or default("preset")
    edited = (hand_edited((d_model, state.get("d_k", default("d_k")), preset, seed))
              or (state.get(EDIT_STATE) is None and bool(state.get(LINK_STATE))))  # a link's edits, not yet applied
    return "custom" if edited else preset


def offer_random(trace: AttentionTrace, name: str, layer: int, head: int, step: int) -> None:
    """Under a real head's step: the same step in the walkthrough, with its own W_Q, W_K, W_V, on the same sentence."""
    label = t("The same step in the walkthrough, with {weights}", weights=weights_words(walkthrough_preset(), None))
    if st.button(label, key="bridge_random", icon=":material/compare_arrows:"):
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


def changed_on_trained(trace: AttentionTrace, name: str, layer: int, head: int) -> None:
    """On the real model's head, after the bridge from the walkthrough: what changed, measured on both traces."""
    note = _note("walkthrough", trace.sentence)
    if note is None or (note["model"], note["layer"], note["head"]) != (name, layer, head):
        return
    st.info(to_trained_text(note, trace.tokens, entropy_share(trace.weights, trace.mask)),
            icon=":material/compare_arrows:")


def changed_on_random(trace: AttentionTrace) -> None:
    """On the walkthrough, after the bridge from a real head: what changed, measured on both traces."""
    note = _note("trained", trace.sentence)
    if note is None:
        return
    st.info(to_walkthrough_text(note, trace), icon=":material/compare_arrows:")
