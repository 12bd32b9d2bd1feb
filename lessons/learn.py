"""Watch a head learn: train one attention layer on a small task, then move through its training.

Every number comes from the run (``attention.training``): α is the engine's trace of the model's
own head at the chosen step, on sequences it never trained on.
"""

import streamlit as st

from attention.training import (
    HEADS,
    LEARNING_RATES,
    OPTIMIZERS,
    RUN_LENGTHS,
    TASKS,
    TrainingConfig,
    examples,
    head_trace,
    needed_weight,
    score_parts,
    score_split,
    untrained_head_trace,
)
from attention.training import verdict as judge
from ui import arrival, background, model_map
from ui import components as ui
from ui.links import OPTIMIZER_LABELS, TASK_LABELS, default
from ui.settings import shared
from ui.training import cancel_training, finished_run, start_training, training_job
from ui.walkthrough import STEPS, render_steps
from viz import tables as T
from viz import training as V
from viz.i18n import bound, decimal, enumeration, nt, t

EXAMPLES = 6  # held-out sequences the learner can pick from

st.title(t("Watch a head learn"))
ui.lesson("learn/00_intro")
settings = shared()

name = st.radio(t("Task"), list(TASKS), format_func=bound(lambda k: t(TASK_LABELS[k])), key="lt_task",
                persist_state="session", horizontal=True) or "previous"
task = TASKS[name]
st.markdown(t("**{rule}** To answer, a query has to find {looks_at}. Three of the held-out sequences (never trained "
              "on), with the answer the model must give under each token:", rule=t(task.rule),
              looks_at=t(task.looks_at)))
shown = examples(task, settings.seed)
ui.table(V.examples_frame(task, shown.tokens, shown.answers), "lt-examples")

with st.container(border=True):
    left, middle, right, far = st.columns(4)
    heads = left.select_slider(t("Heads"), HEADS, value=default("lt_heads"), key="lt_heads", persist_state="session",
                               help=t("d_model is 12; each head gets d_k = 12 / heads."))
    optimizer = middle.radio(t("Optimiser"), OPTIMIZERS, format_func=bound(lambda k: t(OPTIMIZER_LABELS[k])),
                             key="lt_opt", persist_state="session", horizontal=True) or "adam"
    rate = right.select_slider(t("Learning rate η"), LEARNING_RATES, value=default("lt_lr"), key="lt_lr",
                               persist_state="session", format_func=bound(lambda r: decimal(f"{r:g}")))
    steps = far.select_slider(t("Steps"), RUN_LENGTHS, value=default("lt_steps"), key="lt_steps",
                              persist_state="session",  # a step's number as every text names it: 2000
                              help=t("Each step trains on a fresh batch of 64 sequences."))
    st.caption(t("Seed {seed} (in the sidebar): the same settings always give the same run. This page always adds "
                 "positional encodings and uses the causal mask; the sidebar's switches are for the other lessons.",
                 seed=settings.seed))
config = TrainingConfig(task=name, heads=int(heads), optimizer=optimizer, learning_rate=float(rate),
                        steps=int(steps), seed=settings.seed)


# A run trained by any session is kept for all (ui/training.py), but a session sees one only once it has asked for it
# (Train, or a link with lt_run): a newcomer first meets the untrained head and presses Train, which a kept run
# answers at once (issue 47: the page opened trained for anyone after the first learner, skipping "watch it learn")
run = finished_run(config) if st.session_state.get("lt_run") else None
training = None
asked = st.session_state.get("_lt_training")
if asked is not None and (asked != config or not st.session_state.get("lt_run")):  # settings changed, or cancelled
    background.withdraw(("train", asked))
    st.session_state.pop("_lt_training")
if run is None and st.session_state.get("lt_run"):  # trained in this session, or a link's run: train it here
    st.session_state["_lt_training"] = config
    training = training_job(config)
    if not training.finished:
        background.watch(training, nt("Training {n} step", "Training {n} steps", steps), key="lt_cancel",
                         on_cancel=cancel_training)
    elif training.failed:
        st.session_state["lt_run"] = False
        st.error(t("The training stopped before it finished; press Train to try again."), icon=":material/error:")
    else:
        run = training.future.result()
if run is None and (training is None or training.failed):  # no st.stop(): app.py writes the link after the page
    if st.session_state.pop("_lt_cancelled", False):
        st.info(t("Training cancelled."), icon=":material/cancel:")
    st.button(nt("Train {n} step", "Train {n} steps", steps), key="lt_train", type="primary",
              icon=":material/play_arrow:", on_click=start_training)
    st.info(t("Press **Train**: the run takes a few seconds. After that, changing a setting trains again."),
            icon=":material/school:")
if run is None:  # before (or while) training: the head the run starts from
    model_map.learn(untrained_head_trace(config, 0, 0), head=0, heads=heads, classes=len(task.classes), current=None,
                    trained=False)
else:
    judged = judge(run)
    {"learned": st.success, "partly": st.warning}.get(judged.kind, st.error)(V.verdict_text(judged, run))
    map_slot = st.container()  # the model map, under the verdict: filled once the head below is chosen

    kept = list(run.snapshot_steps)
    saved = enumeration([str(k) for k in kept[:2]] + (["…", str(kept[-1])] if len(kept) > 2 else []))
    from_link = "lt_step" in ui.linked_keys()  # a link's step, not yet looked at: it wins over step 0
    ui.forget_stale_choice("lt_step", kept, label=t("Training step"),
                           why=t("this run saved steps {steps}", steps=saved), default=kept[0])
    # every run opens at its first saved state, the head before training, so that the learner watches it learn: a
    # new run after a setting changed as well (issue 47: η changed at step 300 opened the new run at step 300)
    if st.session_state.get("_lt_shown") != config:
        st.session_state["_lt_shown"] = config
        if not from_link:
            st.session_state["lt_step"] = kept[0]
    step = st.select_slider(t("Training step"), kept, key="lt_step", persist_state="session", value=kept[0],
                            help=t("Move back and forth through the saved states of the run."))
    later = [k for k in kept if k > step]
    st.button(t("Next saved step"), key="lt_next", icon=":material/skip_next:", disabled=not later,
              on_click=lambda: st.session_state.update(lt_step=later[0]) if later else None,
              help=t("Moves the training step to the next saved state of the run."))
    if step == kept[0]:
        st.caption(t("Step {step}: the head before any training. Move the slider, or press **Next saved step**, to "
                     "watch it learn.", step=step))
    at = kept.index(step)
    loss, accuracy = V.curves_figures(run, step)
    ui.chart_row([(loss, "lt-loss"), (accuracy, "lt-accuracy")])
    st.caption(t("The dotted line marks step {step}. The held-out set is {count} distinct sequences, none of them in "
                 "any training batch. The grey line is the best held-out accuracy of a strategy that needs no search "
                 "({strategies}).", step=step, count=len(run.held_out.tokens), strategies=V.baselines_text(run)))
    with st.expander(t("The numbers of the two charts, at each saved step"), icon=":material/table:"):
        ui.table(V.curves_frame(run), "lt-curves", decimals=3, blank=t(V.CURVES_BLANK))
        st.caption(t("A row's training batch's loss is measured as that step trains on its batch, before its update; "
                     "the held-out loss and accuracy, after it."))

    st.subheader(t("α on a held-out sequence at step {step}", step=step), divider="gray")
    ui.lesson("learn/01_alpha")
    left, right = st.columns(2)
    example = (left.radio(t("Held-out sequence"), range(1, EXAMPLES + 1), key="lt_example", persist_state="session",
                          horizontal=True) or 1) - 1
    ui.forget_stale_choice("lt_head", range(1, heads + 1), label=t("Head"),
                           why=nt("this run has {n} head", "this run has {n} heads", heads), default=1)
    head = (right.radio(t("Head"), range(1, heads + 1), key="lt_head", persist_state="session", horizontal=True,
                        disabled=heads == 1) or 1) - 1
    ui.table(V.prediction_frame(run, at, example), "lt-prediction")
    trace = head_trace(run, at, example, head)
    with map_slot:
        model_map.learn(trace, head=head, heads=heads, classes=len(task.classes), current=(
            st.session_state.get("lt_head_step") or 3) if st.session_state.get("lt-steps") else 7)
    ui.matrix(V.alpha_figure(trace, head, heads, step), T.query_key_frame(trace, trace.weights, weights=True),
              "lt-alpha")
    st.markdown(V.needed_weight_text(run, needed_weight(run, at, example, head), needed_weight(run, 0, example, head),
                                     step, head, heads))
    with ui.lazy_expander(t("This head, step by step (the walkthrough's steps 3–8, on this sequence)"),
                          key="lt-steps") as panel:
        if panel.open:
            shown_step = st.selectbox(t("Step"), range(3, len(STEPS) + 1), key="lt_head_step", persist_state="session",
                                      on_change=arrival.to_step, args=("lt_head_step", "lt-head-"),
                                      format_func=bound(lambda k: f"{k} · " + t(STEPS[k - 1][0])))
            render_steps(trace, prefix="lt-head-", first=shown_step or 3, last=shown_step or 3)

    st.subheader(t("What W_Q and W_K learned, at step {step}", step=step), divider="gray")
    ui.lesson("learn/02_form")
    parts = score_parts(run, at, head)
    for column, part in zip(st.columns(2), parts, strict=False):
        with column:
            ui.matrix(V.part_figure(part), V.part_frame(part), f"lt-{part.name}", side_by_side=False, decimals=1)
    st.caption(V.score_split_text(run, score_split(run, at, example, head), example))
    ui.matrix(V.form_figure(run, at, head), V.form_frame(run, at, head), "lt-form", decimals=1)
