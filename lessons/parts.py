"""Attention built up from its parts: similarity → values → queries and keys, one ingredient a stage.

Every stage is an engine trace with that stage's projections (``attention.stage_projections``); the
page draws α and the output, and beside them the stage before on the same colour scale.
"""

import streamlit as st

from attention import STAGES, stage_projections, trace_self_attention
from ui import components as ui
from ui import model_map
from ui.settings import shared, trace_or_explain
from viz import figures as F
from viz import tables as T
from viz.i18n import N_, bound, sentences, t
from viz.parts import what_changed
from viz.relevance import similarity_summary

st.title(t("Attention from its parts"))
ui.lesson("parts/00_intro")
map_slot = st.container()  # filled once the stage's trace is made

settings = shared()
# each stage's ingredient is in its option's own label, not a caption under it: a click or a tap on the words
# selects the stage (issue 47: a radio's caption lay outside its clickable label), and a screen reader reads them
STAGE_NAMES = {1: N_("similarity: softmax(X·Xᵀ/√d)·X"), 2: N_("+ values: W_V"), 3: N_("+ queries and keys: W_Q, W_K")}
stage = st.radio(
    t("Stage"), [1, 2, 3], horizontal=True, key="stage", persist_state="session",
    format_func=bound(lambda k: str(k) + " · " + t(STAGE_NAMES[k])),
    help=t("Each stage adds one ingredient to the stage before."),
) or 1
# stage 1 has no stage before it: no switch that can do nothing (the choice is kept for stages 2 and 3)
compare = stage > 1 and st.toggle(t("Show the stage before beside it (same colour scales)"), value=True,
                                  key="parts_compare", persist_state="session")
ui.lesson(f"parts/0{stage}_{STAGES[stage - 1]}")


drawn = [stage] if stage == 1 or not compare else [stage - 1, stage]
shown = [(k, trace_or_explain(settings, trace_self_attention, d_k=settings.d_model,
                              projections=stage_projections(k, settings.d_model, settings.seed))) for k in drawn]
now = shown[-1][1]
with map_slot:  # the stage's own head: its ingredient so far, and the α and output drawn below
    model_map.topic("parts", now, here={3, 7, 8} if stage > 1 else {2, 7, 8}, name=(
        t("Stage 1's head: W_Q = W_K = W_V = I, so Q = K = V = X; this lesson is about the marked steps")
        if stage == 1 else
        t("Stage 2's head: W_V random (a model learns it), W_Q = W_K = I; this lesson is about the marked steps")
        if stage == 2 else
        t("Stage 3's head: W_Q, W_K, W_V random (a model learns them); this lesson is about the marked steps")))
alpha_top = max(float(t.weights.max()) for _, t in shown)
output_top = max(float(abs(t.output).max()) for _, t in shown)
for title, draw in (
    (t("Attention weights α"), lambda k, tr: ui.matrix(
        F.query_key_figure(tr, tr.weights, t("α, stage {stage}", stage=k), weights=True, top=alpha_top),
        T.query_key_frame(tr, tr.weights, weights=True), f"parts-weights-{k}", side_by_side=len(shown) == 1)),
    (t("The output, one row per token"), lambda k, tr: ui.matrix(
        F.token_by_dim_figure(tr, tr.output, t("output, stage {stage}", stage=k), top=output_top),
        T.token_by_dim_frame(tr, tr.output), f"parts-output-{k}", side_by_side=len(shown) == 1)),
):
    st.subheader(title, divider="gray")
    for column, (k, tr) in zip(st.columns(len(shown)), shown, strict=True):
        with column:
            draw(k, tr)
if len(shown) == 2:
    st.info(what_changed(shown[0][1], now, stage), icon=":material/compare_arrows:")
if stage == 1:  # measured: the largest score is often, not always, a token's own (the relevance lesson's count)
    st.info(sentences(t("Measured on your sentence:"), similarity_summary(now)), icon=":material/straighten:")
st.caption(t("Rows are queries (α) or tokens (output); the colour scales are shared by the panels side by side."))

st.subheader(t("Go deeper"), divider="gray")
st.page_link("lessons/phonebook.py", label=t("Phonebook: why keys and values differ (stage 2)"),
             icon=":material/contact_phone:")
st.page_link("lessons/relevance.py", label=t("Similar is not relevant: what W_Q and W_K change (stage 3)"),
             icon=":material/call_split:")
st.page_link("lessons/walkthrough.py", label=t("The walkthrough: stage 3, step by step"), icon=":material/stairs:")
