"""A real model: a trained encoder's or decoder's heads on the learner's sentence, one real head step by
step, heads with a job, and for the decoder what comes next.

The model runs in NumPy (``attention.pretrained``); it is loaded once per server process, and its
results are cached per sentence (``ui.models``). Every number shown is the model's.
"""

from functools import partial

import streamlit as st

from attention.focus import model_sinks
from attention.pretrained import MODELS, ModelMissing, package_dir
from attention.pretrained.gallery import GALLERY, INDUCTION_HEAD, induction_sentence
from ui import arrival, background, bridge, model_map, sampling, view
from ui import components as ui
from ui.choices import real_model_head
from ui.links import MODEL_LABELS
from ui.models import (
    MODEL_SHOWN,
    ablated_next_of,
    ablated_run_of,
    attentions_of,
    cancel_scan,
    head_of,
    head_options,
    heads_switched_off,
    model_chosen,
    model_named,
    model_view_of,
    next_of,
    open_head,
    same_step,
    scan_job,
    scanned_head,
    switch_off_induction_heads,
    toggle_head_off,
)
from ui.settings import DEFAULT_SENTENCE, EXAMPLE_SENTENCES, first_sentence, replace_sentence, shared, usable_sentence
from ui.walkthrough import lines_panel, render_steps, steps_for
from viz import figures as F
from viz import pretrained as P
from viz import tables as T
from viz.i18n import N_, bound, decimal, language, nt, said, t

st.title(t("A real model"))
ui.lesson("real_model/00_intro")
settings = shared()

name = st.radio(t("Model"), list(MODELS), format_func=bound(lambda k: t(MODEL_LABELS[k])), key="rm_model",
                persist_state="session", horizontal=True, on_change=model_chosen) or "minilm"
st.session_state[MODEL_SHOWN] = name  # the heads switched off below are this model's (ui.models.open_model)
info = MODELS[name]
try:
    package_dir(name)  # a missing package: its message says how to install it, and the page stops here
except ModelMissing as missing:
    st.error(said(missing.message), icon=":material/download:")
    st.stop()
model = model_named(name)
if name == "smollm2":
    st.caption(t(P.QUANTIZED))
sentence = usable_sentence(settings.sentence, memory=f"_last_rm_sentence_{name}", default=first_sentence(),
                           check=model.tokenize)
tokens, weights = attentions_of(name, sentence)
n = len(tokens)

st.subheader(t("The model's tokens"), divider="gray")
ui.lesson(f"real_model/01_tokens_{name}")
ids, _ = model.tokenize(sentence)
ui.table(T.tokens_frame(tokens, ids), "rm-model-tokens", decimals=None)
if name == "minilm":
    st.caption(P.unknown_text(model.unknown_words(sentence)))
else:
    st.caption(P.spaces_text(*model.spaces(sentence)))
if example := EXAMPLE_SENTENCES.get(language()):  # a reader of another language: how the model splits theirs
    st.caption(P.english_note(info.short, example, model.tokenize(example)[1], DEFAULT_SENTENCE,
                              model.tokenize(DEFAULT_SENTENCE)[1]))
    if sentence != DEFAULT_SENTENCE:
        st.button(t("Try the English example"), key="rm_english", on_click=replace_sentence, args=(DEFAULT_SENTENCE,),
                  icon=":material/translate:")

st.subheader(t("Every head at once"), divider="gray")
pages = P.layer_pages(info)
shown = pages[0]
if st.session_state.get("rm_layers") not in range(len(pages)):  # another model's page (SmolLM2's layers 25–30)
    st.session_state["rm_layers"] = 0  # this model's first, and the link drops it (a link's own: ui.links)
if len(pages) > 1:
    page = st.segmented_control(t("Layers"), range(len(pages)), key="rm_layers", default=0, persist_state="session",
                                format_func=lambda k: f"{pages[k].start + 1}–{pages[k].stop}") or 0
    shown = pages[page]
ui.forget_stale_choices("rm_off", head_options(info), why=t("{model} has layers 1–{layers} and heads 1–{heads}",
                                                           model=t(info.title), layers=info.layers, heads=info.heads))
off = heads_switched_off(info)  # the multiselect below; read first, so that the view can mark them
sink_hidden = st.toggle(t("Hide the attention sink (leave out the first token, renormalise each row)"), key="rm_sink",
                        persist_state="session", help=t(P.SINK_CAPTION))
if sink_hidden and n < 2:
    st.info(t("With one token, nothing is left once the first is hidden: the heads are shown whole."),
            icon=":material/info:")
    sink_hidden = False
ui.matrices([view.panel("rm-model-view", fig=model_view_of(name, sentence, shown.start, shown.stop, off, sink_hidden,
                                                               language()),
                        rows=[str(k + 1) for k in shown], cols=[str(h + 1) for h in range(info.heads)],
                        values=P.first_token_share(weights, shown), names=(N_("layer"), N_("head")),
                        numbered=(True, True),
                        choose="cell",
                        tip={"kind": "note", "notes": P.tile_notes(name, shown, GALLERY, off),
                             "caption": t(P.TILE_NUMBER)})],
            key="rm-model-view", on_choice=real_model_head)
if sink_hidden:
    st.caption(t(P.SINK_CAPTION))
shape = t("[{n} × {m}] (the first token's column hidden)", n=n, m=n - 1) if sink_hidden else f"[{n} × {n}]"
st.caption(t("{layers} layers × {heads} heads, each an α of {shape} on one colour scale from 0 to 1 (a decoder: above "
             "the diagonal every tile is empty, no token sees a later one). Pick one below to see it large, with its "
             "numbers.", layers=info.layers, heads=info.heads, shape=shape) if info.kind == "decoder" else
           t("{layers} layers × {heads} heads, each an α of {shape} on one colour scale from 0 to 1. Pick one below to "
             "see it large, with its numbers.", layers=info.layers, heads=info.heads, shape=shape))
if info.kind == "decoder" and n > 1:
    sinks = int(model_sinks(info.kind, weights).sum())  # the bridge's count too (ui/bridge.py): one measure
    st.caption(nt("{n} of the {heads} heads puts most of its weight on the first token here (more than half, averaged "
                  "over the rows after the first: the first row sees only the first token): an *attention sink*, where "
                  "a head parks its weight when it has nothing to look at.",
                  "{n} of the {heads} heads put most of their weight on the first token here (more than half, averaged "
                  "over the rows after the first: the first row sees only the first token): an *attention sink*, where "
                  "a head parks its weight when it has nothing to look at.", sinks, heads=info.layers * info.heads))

st.subheader(t("One head"), divider="gray", anchor="one-head")
left, right = st.columns(2)
ui.forget_stale_choice("rm_layer", range(1, info.layers + 1), label=t("Layer"),
                       why=t("{model} has layers 1–{layers}", model=t(info.title), layers=info.layers), default=1)
ui.forget_stale_choice("rm_head", range(1, info.heads + 1), label=t("Head"),
                       why=t("{model} has heads 1–{heads}", model=t(info.title), heads=info.heads), default=1)
layer = (left.selectbox(t("Layer"), range(1, info.layers + 1), key="rm_layer", persist_state="session") or 1) - 1
head = (right.selectbox(t("Head"), range(1, info.heads + 1), key="rm_head", persist_state="session") or 1) - 1
trace = head_of(name, sentence, layer, head)
bridge.changed_on_trained(trace, name, layer, head)
if sink_hidden:
    ui.matrix(P.sink_hidden_figure(trace, t("α without the first token, layer {layer}, head {head}", layer=layer + 1,
                                            head=head + 1)),
              P.sink_hidden_frame(trace), "rm-head", names=(N_("query"), N_("key")))
    st.caption(t(P.SINK_CAPTION))
else:
    ui.matrix(F.query_key_figure(trace, trace.weights, t("α, layer {layer}, head {head}", layer=layer + 1,
                                                         head=head + 1), weights=True),
              T.query_key_frame(trace, trace.weights, weights=True), "rm-head", names=(N_("query"), N_("key")))
if st.toggle(t("Show α as lines (head view)"), key="rm-head-lines"):
    lines_panel(trace.weights[None], trace.tokens, key="rm-head-lines-view")

st.subheader(t("Layer {layer}, head {head}, step by step", layer=layer + 1, head=head + 1), divider="gray")
steps = steps_for(trace)  # the decoder has a RoPE step after Q, K, V
# opens on the scores (n × n): step 3's real W_Q, W_K, W_V are 384 or 576 rows, three scrolling grids (+0.25 s a rerun)
scores_step = next(k for k, (title, _, _) in enumerate(steps) if title.startswith("Scores"))
same_step(steps, name)  # another model: the same step by its name (the decoder has a RoPE step, so numbers move)
step_labels = {k: f"{k} · " + t(title) for k, (title, _, _) in enumerate(steps, start=1)}
# a label the browser held is read back as its step first (as the generation step's menu does), so that only a step
# the model lacks is named as no longer fitting
ui.keep_menu_in_step("rm_step", step_labels, step_labels.values(), default=scores_step + 1)  # labels: the model's
ui.forget_stale_choice("rm_step", range(1, len(steps) + 1), label=t("Step"),
                       why=t("{model}'s head has steps 1–{steps}", model=t(info.title), steps=len(steps)),
                       default=scores_step + 1)
step = st.selectbox(t("Step"), list(step_labels), key="rm_step", persist_state="session", index=scores_step,
                    on_change=arrival.to_step, args=("rm_step", "rm-"), format_func=step_labels.__getitem__,
                    help=t("The walkthrough's steps on this head's real numbers."))
st.session_state["_rm_step_of"] = (name, steps[(step or 1) - 1][0])
render_steps(trace, prefix="rm-", first=step or 3, last=step or 3,
             map_under=partial(model_map.real, trace, info, layer, head))
bridge.offer_random(trace, name, layer, head, step or 3)

if info.kind == "decoder":
    st.subheader(t("What the attention is for: the next token"), divider="gray")
    st.markdown(t("A decoder's last token, having looked back through every layer, predicts what comes next. The five "
                  "likeliest next tokens after your sentence, with their probabilities:"))
    ui.table(P.next_token_frame(next_of(name, sentence)), "rm-next-tokens", decimals=3)
    sampling.section(sentence)
    layer_i, head_i = INDUCTION_HEAD
    demo = induction_sentence(settings.seed)
    st.button(t("Induction demo: a random sequence said twice, with layer {layer}, head {head}", layer=layer_i + 1,
                head=head_i + 1),
              key="rm_induction", on_click=open_head, args=(demo, name, layer_i, head_i),
              icon=":material/repeat:", help=t("Puts “{sentence}” into the sidebar (the seed picks the words).",
                                               sentence=demo))

st.subheader(t("Switch heads off"), divider="gray")
ui.lesson(f"real_model/02_heads_off_{name}")
# The head open above, one click away: a list of 270 heads shows ten at a time (issue 34); the list is for
# typing ("L19 H7") and for seeing which are off
shown_label = P.head_label(layer, head)
is_off = (layer, head) in off
st.button(t("Switch layer {layer}, head {head} back on", layer=layer + 1, head=head + 1) if is_off else
          t("Switch off layer {layer}, head {head} (the head open above)", layer=layer + 1, head=head + 1),
          key="rm_off_open",
          on_click=toggle_head_off, args=(shown_label,), icon=":material/power_settings_new:")
# no "Select 4 matches" atop the list: typing "L1 H1" and Enter (as the label says) chose it, and switched off L1 H1,
# H10, H11 and H12
st.multiselect(t("Heads switched off (type a head, such as “L3 H7”)"), head_options(info), key="rm_off",
               persist_state="session", placeholder=t("None: every head is on"), help=t(P.OFF_CAPTION),
               select_all=False)
st.caption(t(P.OFF_CAPTION))
if info.kind == "decoder":
    st.button(t("Switch off the five induction heads, on an induction prompt"), key="rm_induction_off",
              on_click=switch_off_induction_heads, args=(settings.seed,), icon=":material/power_settings_new:")
    if off:
        before, after = next_of(name, sentence), ablated_next_of(name, sentence, off)
        ui.table(P.before_after_frame(before, after), "rm-off-next", decimals=3)
        st.markdown(P.off_text(before, after, len(off)))
    st.subheader(t("Which heads matter here?"), divider="gray")
    ui.lesson("real_model/03_scan")
    first, last = st.slider(t("Layers to scan"), 1, info.layers, value=(1, info.layers), key="rm_scan_layers")
    layers = tuple(range(first - 1, last))
    if st.button(t("Scan {count} heads", count=len(layers) * info.heads), key="rm_scan", icon=":material/search:"):
        st.session_state["_rm_scan"] = (sentence, layers)
    asked = st.session_state.get("_rm_scan")
    if asked not in (None, (sentence, layers)):  # the sentence or the layers changed: that scan is not shown
        background.withdraw(("scan", name, *asked))
        st.session_state.pop("_rm_scan")
    if st.session_state.pop("_rm_scan_cancelled", False):
        st.info(t("Scan cancelled."), icon=":material/cancel:")
    job = scan_job(name, sentence, layers) if st.session_state.get("_rm_scan") == (sentence, layers) else None
    if job is not None and not job.finished:
        background.watch(job, t("Switching off each of {count} heads in turn", count=len(layers) * info.heads),
                         key="rm_scan_cancel", on_cancel=cancel_scan)
    elif job is not None and job.failed:
        st.session_state.pop("_rm_scan")
        st.error(t("The scan stopped before it finished; press Scan to try again."), icon=":material/error:")
    elif job is not None:
        scan = job.future.result()
        ui.matrix(P.scan_figure(scan), P.scan_frame(scan), "rm-scan", names=(N_("layer"), N_("head")),
                  numbered=(True, True),
                  choose="cell", on_choice=scanned_head(layers))
        st.markdown(P.scan_text(scan, model.show(model.vocabulary[scan.token])))
        st.caption(t("Rows are layers, columns heads; each cell is the drop in the likeliest token's log-probability "
                     "when that head alone is switched off. Blue: the drop is positive, the head helped that token; "
                     "red: switching it off made the token likelier. Measured here in {seconds} s. Click a cell to "
                     "open that head above.", seconds=decimal(f"{scan.seconds:.1f}")))
        ui.table(P.scan_ranking(scan), "rm-scan-ranking", decimals=3)
elif off:
    run = ablated_run_of(name, sentence, off)
    original = model.recent(sentence)
    st.markdown(P.downstream_text(original.embedding, run.embedding, off))
    later = range(min(layer for layer, _ in off), info.layers)
    ui.matrix(P.change_figure(original.weights, run.weights, later), P.change_frame(original.weights, run.weights,
                                                                                   later),
              "rm-off-change", names=(N_("layer"), N_("head")), numbered=(True, True))

st.subheader(t("Heads with a job"), divider="gray")
st.markdown(t("Heads whose behaviour was measured over a family of sentences, each number held by a test; each is also "
              "measured on your sentence. **Show me** puts its example sentence into the sidebar and opens the head."))
for index, entry in enumerate(GALLERY):
    if entry.model != name:
        continue
    text, button = st.columns([5, 1], vertical_alignment="center")
    text.markdown(t("**Layer {layer}, head {head}.** {job}", layer=entry.layer + 1, head=entry.head + 1,
                    job=t(entry.job)) + "  \n"  # a line break, then the learner's sentence
                  + P.gallery_reading(entry, tokens, weights[entry.layer, entry.head]))
    button.button(t("Show me"), key=f"rm_gallery_{index}", on_click=open_head,
                  args=(entry.sentence, entry.model, entry.layer, entry.head))
