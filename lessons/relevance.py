"""Similarity vs relevance: raw embeddings attend to themselves; projections let a token attend elsewhere."""

import streamlit as st

from attention import Projections, trace_self_attention
from attention.relevance import attend_to, plane_coordinates
from ui import components as ui
from ui import model_map
from ui.links import default
from ui.settings import shared, trace_or_explain
from viz import figures as F
from viz import tables as T
from viz.i18n import percent, sentences, t
from viz.labels import markdown_text, token_labels
from viz.relevance import arrow_scales, arrows_figure, no_lead_text, nudge_text, scale_note, similarity_summary

st.title(t("Similar is not relevant"))
ui.lesson("relevance/00_intro")
map_slot = st.container()  # filled once the page has its trace after the change
settings = shared()

st.subheader(t("Raw embeddings: tokens look mostly at themselves"), divider="gray")
ui.lesson("relevance/01_similarity")
plain = trace_or_explain(settings, trace_self_attention, d_k=settings.d_model, preset="identity")
ui.matrix(F.query_key_figure(plain, plain.weights, t("α with W_Q = W_K = I"), weights=True),
          T.query_key_frame(plain, plain.weights, weights=True), "sim-weights")
st.markdown(similarity_summary(plain))

st.subheader(t("Projections: make one token attend to another"), divider="gray")
ui.lesson("relevance/02_relevance")
labels = token_labels(plain.tokens)
n = plain.n
left, middle, right = st.columns(3)
d_k = left.slider(t("d_k for this experiment"), 2, 8, value=default("rel_dk"), key="rel_dk", persist_state="session",
                  help=t("2 draws the true vectors below; larger sizes are drawn as a projection."))
i = middle.selectbox(t("Make the query"), range(n), format_func=lambda j: f"{j + 1} · {labels[j]}", key="rel_query",
                     persist_state="session")
k = right.selectbox(t("attend to the key"), range(n), index=min(n - 1, 2),
                    format_func=lambda j: f"{j + 1} · {labels[j]}", key="rel_target", persist_state="session")
i, k = (i if i is not None and i < n else 0), (k if k is not None and k < n else n - 1)
strength = st.slider(t("Strength of the change"), 0.0, 5.0, value=default("rel_strength"), step=0.25,
                     key="rel_strength", persist_state="session")

before = trace_self_attention(plain.sentence, d_model=settings.d_model, d_k=d_k, seed=settings.seed,
                              positional=settings.positional, causal=settings.causal)
nudge = attend_to(before.w_q, before.x, before.k, before.weights, i, k, strength, allowed=before.mask[i])
after = trace_self_attention(plain.sentence, d_model=settings.d_model, d_k=d_k, seed=settings.seed,
                             positional=settings.positional, causal=settings.causal,
                             projections=Projections(nudge.w_q, before.w_k, before.w_v))
with map_slot:
    model_map.topic("relevance", after, here={3, 5, 7}, name=t(
        "One attention head (d_k = {d_k}, after the change below): this lesson is about the marked steps", d_k=d_k))
a, b = st.columns(2)
with a:
    ui.matrix(F.query_key_figure(before, before.weights, t("α before"), weights=True),
              T.query_key_frame(before, before.weights, weights=True), "rel-before", side_by_side=False)
with b:
    ui.matrix(F.query_key_figure(after, after.weights, t("α after"), weights=True),
              T.query_key_frame(after, after.weights, weights=True), "rel-after", side_by_side=False)
query, target = markdown_text(labels[i]), markdown_text(labels[k])
if nudge.masked:
    st.warning(t("The causal mask is on and “{target}” comes after “{query}”: a decoder may not look ahead, so its "
                 "weight stays 0 and nothing was changed.", target=target, query=query))
elif nudge.step == 0:
    st.info(t("Nothing to change: “{query}” already gives “{target}” all the weight it can, or the strength is 0.",
              query=query, target=target))
else:
    st.markdown(nudge_text(nudge, before.weights, after.weights, i, k, labels))
    if not nudge.lead.possible:
        st.info(no_lead_text(nudge.lead, i, k, labels, d_k), icon=":material/block:")
    if nudge.peaked:
        st.caption(t("Along this direction the weight stops rising here: this η is where it peaks, and a stronger "
                     "push would lower it, so the change stops there."))
    else:
        st.caption(t("A stronger push, further along the same direction, raises the weight further."))

st.subheader(t("Geometry: the dot product as arrows"), divider="gray")
ui.lesson("relevance/03_geometry")
q2, k2, kept = plane_coordinates(after.q, after.k)
left, right = st.columns([3, 2])
with left:
    ui.chart(arrows_figure(q2, k2, after.tokens, selected=i, target=k, exact=d_k == 2), "arrows")
with right:
    if d_k == 2:
        st.caption(sentences(t("d_k = 2: these are the true vectors q_i and k_j (after the change)."),
                             scale_note(*arrow_scales(q2, k2))))
    else:
        st.caption(sentences(t("d_k = {d_k}: a projection onto the 2 directions that keep the most of Q and K ({kept} "
                               "of their squared length). Angles and lengths are only approximate.", d_k=d_k,
                               kept=percent(f"{kept * 100:.0f}")), scale_note(*arrow_scales(q2, k2))))
    st.markdown(t("Scores of query “{query}” against each key (after the change):", query=query))
    ui.table(T.one_row(T.query_key_frame(after, after.scores), i), "arrow-scores")
