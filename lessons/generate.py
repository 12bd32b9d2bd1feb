"""Writing with a key/value cache: SmolLM2 continues the learner's sentence greedily, one token at a
time, with its cache; the cache drawn growing, one cached step walked with the walkthrough's renderer,
and the cached run checked against recomputing the whole sequence (numbers: ``SmolLM2.generate``)."""

from functools import partial

import streamlit as st

from attention.pretrained import MODELS, ModelMissing, package_dir
from attention.pretrained.common import MAX_MODEL_TOKENS
from attention.pretrained.smollm2 import MAX_WRITTEN
from ui import arrival, background, model_map, view
from ui import components as ui
from ui.models import (
    TIMED_LENGTHS,
    cancel_writing,
    follow_last_step,
    generation_job,
    model_named,
    step_trace_of,
    timing_job,
    writing_text,
)
from ui.settings import first_sentence, shared, usable_sentence
from ui.walkthrough import render_steps, steps_for
from viz import generation as G
from viz.i18n import N_, said, t
from viz.labels import markdown_text

st.title(t("Writing with a key/value cache"))
ui.lesson("generate/00_intro")
settings = shared()
info = MODELS["smollm2"]
try:
    package_dir("smollm2")  # a missing package: its message says how to install it, and the page stops here
except ModelMissing as missing:
    st.error(said(missing.message), icon=":material/download:")
    st.stop()
model = model_named("smollm2")
prompt = usable_sentence(settings.sentence, memory="_last_gen_prompt", default=first_sentence(), check=model.tokenize)
# In a form: the model writes when the learner presses Write (or lets go of the slider and presses Enter), not at
# every arrow key on the way (three presses from 8 to 5 wrote three times, ~36 s on a busy machine; issue 35).
with st.form("gen_form", border=False, enter_to_submit=True):
    left, right = st.columns([4, 1], vertical_alignment="bottom")
    with left:
        asked = st.slider(t("Tokens to write"), 1, MAX_WRITTEN, 8, key="gen_count", persist_state="session",
                          help=t("Greedy: each time the likeliest next token. Press Write to write them."))
    with right:
        st.form_submit_button(t("Write"), key="gen_write", icon=":material/edit_note:", width="stretch",
                              on_click=st.session_state.pop, args=("_gen_cancelled", None))
room = MAX_MODEL_TOKENS - len(model.tokenize(prompt)[0]) + 1  # the prompt and what it writes fit in 128 tokens
count = min(asked, room)
if count < asked:
    st.warning(t("Your sentence has {tokens} tokens; the model reads at most {most} here (the sentence and every "
                 "token written but the last), so SmolLM2 writes {count}.", tokens=MAX_MODEL_TOKENS - room + 1,
                 most=MAX_MODEL_TOKENS, count=count), icon=":material/content_cut:")
job = None if st.session_state.get("_gen_cancelled") == (prompt, count) else generation_job(prompt, count)
gen = None
if job is None:
    st.info(t("Writing cancelled. Press Write to write."), icon=":material/cancel:")
elif not job.finished:
    background.watch(job, partial(writing_text, count=count),
                     key="gen_cancel", on_cancel=cancel_writing, args=(prompt, count))
elif job.failed:
    st.error(t("The writing stopped before it finished; press Write to try again."), icon=":material/error:")
else:
    gen = job.future.result()

if gen is not None:  # the rest of the lesson reads what was written

    st.subheader(t("What it writes"), divider="gray")
    st.markdown(G.written_text(prompt, model.tokenizer.decode(gen.written)))
    if len(gen.written) < count:
        st.caption(t("It stopped after {count}: it wrote an end-of-text token.", count=len(gen.written)))
    ui.table(G.written_frame(gen, model.multiply_adds), "gen-written", decimals=3)
    st.caption(t("p: the token's probability when it was chosen. Reads: what was read to choose it, with the cache "
                 "(one token against the cached keys and its own); “whole” reads every token so far instead. Millions "
                 "of multiply-adds, counted from the weights' shapes; ms measured here, on this server, both ways, "
                 "once a token, when it was first written (a text written on from a shorter one keeps that one's "
                 "times; a busy server makes them uneven)."))

    st.subheader(t("The cache grows"), divider="gray")
    ui.lesson("generate/01_cache")
    left, right = st.columns(2)
    layer = (left.selectbox(t("Layer"), range(1, info.layers + 1), key="gen_layer", persist_state="session") or 1) - 1
    head = (right.selectbox(t("Query head"), range(1, info.heads + 1), key="gen_head", persist_state="session",
                            help=t("Query heads 1–3 read key/value head 1, 4–6 head 2, 7–9 head 3.")) or 1) - 1
    kv = head // (info.heads // gen.keys.shape[1])
    ui.matrices([view.panel(f"gen-cache-{name.lower()}", G.cache_frame(gen, m), G.cache_figure(
        gen, m, t("{matrix} cache, layer {layer}, key/value head {head}", matrix=name, layer=layer + 1, head=kv + 1)),
        below=True,
        names=(N_("token"), N_("dimension")))
                 for name, m in (("K", gen.keys[layer, kv]), ("V", gen.values[layer, kv]))], key="gen-cache")
    st.markdown(G.cache_text(gen, info.heads))

    st.subheader(t("One step, with the cache"), divider="gray")
    ui.lesson("generate/02_step")
    if not gen.steps:
        st.info(t("Write at least two tokens to see a step with the cache: the first comes from the prompt's pass."),
                icon=":material/info:")
    else:
        last = len(gen.steps)
        step_labels = {k: G.step_label(gen, k - 1) for k in range(1, last + 1)}
        ui.keep_menu_in_step("gen_step", step_labels, step_labels.values(), default=last)  # labels: what was written
        follow_last_step(last)  # the last step of the text before: the last of this one
        ui.forget_stale_choice("gen_step", step_labels, label=t("Generation step"),
                               why=t("this text has cached steps 1–{last}", last=last), default=last)
        # "Generation step", not "Step": the walkthrough's steps below have step numbers of their own
        step = (st.selectbox(t("Generation step: the token read, the token written"), list(step_labels),
                             key="gen_step", persist_state="session", index=last - 1,
                             format_func=step_labels.__getitem__, on_change=arrival.go, args=("gen-step-2",),
                             help=t("One step of writing: the model reads one token, with the cache, and writes "
                                    "the next. Below, the walkthrough's steps on that one token's numbers.")) or 1) - 1
        st.caption(t("Generation step {step}; layer {layer}, query head {head} (pick them above).",
                     step=markdown_text(G.step_label(gen, step)), layer=layer + 1, head=head + 1))
        trace = step_trace_of(prompt, count, step, layer, head)
        model_map.generate(trace, info, layer, head)
        render_steps(trace, prefix="gen-", first=2, last=2)
        render_steps(trace, prefix="gen-", first=4, last=len(steps_for(trace)))

    st.subheader(t("The same numbers, less work"), divider="gray")
    ui.lesson("generate/03_same")
    st.markdown(G.same_text(gen))
    st.markdown(G.work_text(gen, model.multiply_adds))
    if gen.steps:
        st.markdown(G.growth_text(model.multiply_adds, model.work_parts,
                                  range(gen.steps[0].position, gen.steps[-1].position + 1)))
    if st.button(t("Measure a step's time on this server, at 1 to {most} tokens (a few seconds)",
                   most=MAX_MODEL_TOKENS), key="gen_measure",
                 icon=":material/timer:"):
        st.session_state["_gen_measured"] = True
    timing = timing_job() if st.session_state.get("_gen_measured") else None
    if timing is not None and not timing.finished:
        background.watch(timing, t("Timing a cached step and a whole pass at each length"), key="gen_measure_cancel",
                         on_cancel=st.session_state.pop, args=("_gen_measured", None))
    elif timing is not None and timing.failed:
        st.session_state.pop("_gen_measured")
        st.error(t("The timing stopped before it finished; press the button to measure again."),
                 icon=":material/error:")
    elif timing is not None:
        seconds = timing.future.result()
        ui.table(G.timing_frame(list(TIMED_LENGTHS), seconds, model.multiply_adds, model.weight_bytes(),
                                model.cache_bytes_read), "gen-timing", decimals=1)
        st.markdown(G.pays_text(list(TIMED_LENGTHS), seconds, model.multiply_adds, model.weight_bytes()))
        st.caption(t("Medians of three runs each, measured once on this server (a busy server measures slower, and "
                     "unevenly); the multiply-adds are counted from the weights' shapes."))
