"""The main lesson: Att(Q, K, V) = softmax(Q·Kᵀ / √d_k)·V on the learner's sentence, in eight steps.

Every number shown comes from one engine trace; nothing is recomputed here.
"""

import streamlit as st

from attention import PRESETS
from ui import components as ui
from ui.settings import shared, trace_or_explain
from viz import figures as F
from viz import formulas as L
from viz import tables as T
from viz.labels import markdown_text, token_labels

STEPS = 8
PRESET_NAMES = {"random": "Seeded random", "identity": "Identity (W = I)"}
SIGNED_CAPTION = "Colours: blue is positive, red is negative, white is zero. The exact numbers are in the tables."

st.title("Self-attention, step by step")
ui.lesson("walkthrough/00_intro")

settings = shared()
d_k = st.sidebar.slider("d_k (query, key and value size)", 1, 16, value=4, key="d_k", bind="query-params")
preset = st.sidebar.radio(
    "W_Q, W_K, W_V", PRESETS, format_func=PRESET_NAMES.get, key="preset", bind="query-params",
    help="Seeded random: entries ~ N(0, 1/d_model). Identity: Q = K = V = X, pure similarity.",
)
trace = trace_or_explain(settings, d_k=d_k, preset=preset)
labels = token_labels(trace.tokens)
n = trace.n

ui.step(1, STEPS, "Tokens")
ui.lesson("walkthrough/01_tokens")
ui.matrix(F.tokens_figure(trace), T.token_frame(trace), "tokens", decimals=None)

ui.step(2, STEPS, "Embeddings X")
ui.lesson("walkthrough/02_embeddings")
if trace.positional_encoding is None:
    st.latex(rf"X = \mathrm{{Embed}}(\text{{tokens}}) \in \mathbb{{R}}^{{{n} \times {trace.d_model}}}")
    ui.matrix(F.token_by_dim_figure(trace, trace.x, "X"), T.token_by_dim_frame(trace, trace.x), "x")
else:
    st.latex(r"X = E + P, \qquad P_{pos,2i} = \sin\frac{pos}{10000^{2i/d_{model}}},\ "
             r"P_{pos,2i+1} = \cos\frac{pos}{10000^{2i/d_{model}}}")
    columns = st.columns(3)
    for column, (name, key, m) in zip(
        columns, [("E (token embeddings)", "e", trace.embeddings), ("P (positions)", "p", trace.positional_encoding),
                  ("X = E + P", "x", trace.x)]
    ):
        with column:
            ui.matrix(
                F.token_by_dim_figure(trace, m, name, compact=True), T.token_by_dim_frame(trace, m), key,
                side_by_side=False,
            )
    st.caption(SIGNED_CAPTION)

ui.step(3, STEPS, "Projection matrices W_Q, W_K, W_V")
ui.lesson("walkthrough/03_projections")
st.latex(rf"W_Q,\ W_K,\ W_V \in \mathbb{{R}}^{{d_{{model}} \times d_k}} = \mathbb{{R}}^{{{trace.d_model} \times {trace.d_k}}}")
if trace.preset == "identity" and trace.d_k != trace.d_model:
    st.info(
        f"With d_k = {trace.d_k} ≠ d_model = {trace.d_model}, “identity” is the {trace.d_model} × {trace.d_k} "
        f"matrix with ones on its diagonal: it {'keeps the first' if trace.d_k < trace.d_model else 'pads with zeros after the'} "
        f"{min(trace.d_k, trace.d_model)} coordinates of each embedding. Set d_k = d_model to compare whole embeddings."
    )
for column, (name, key, w) in zip(st.columns(3), [("W_Q", "w_q", trace.w_q), ("W_K", "w_k", trace.w_k), ("W_V", "w_v", trace.w_v)]):
    with column:
        ui.matrix(F.projection_figure(w, name, compact=True), T.projection_frame(w), key, side_by_side=False)
st.caption(SIGNED_CAPTION)

ui.step(4, STEPS, "Queries, keys and values")
ui.lesson("walkthrough/04_qkv")
st.latex(
    rf"Q = X W_Q,\quad K = X W_K,\quad V = X W_V:\qquad [{n} \times {trace.d_model}] \cdot "
    rf"[{trace.d_model} \times {trace.d_k}] = [{n} \times {trace.d_k}]"
)
for column, (name, key, m) in zip(st.columns(3), [("Q", "q", trace.q), ("K", "k", trace.k), ("V", "v", trace.v)]):
    with column:
        ui.matrix(
            F.token_by_dim_figure(trace, m, name, compact=True), T.token_by_dim_frame(trace, m), key, side_by_side=False
        )
st.caption("One row per token. " + SIGNED_CAPTION)

ui.step(5, STEPS, "Scores Q·Kᵀ")
ui.lesson("walkthrough/05_scores")
st.latex(rf"S = Q K^\top,\qquad s_{{ij}} = q_i \cdot k_j:\qquad [{n} \times {trace.d_k}] \cdot [{trace.d_k} \times {n}] = [{n} \times {n}]")
ui.matrix(F.query_key_figure(trace, trace.scores, "scores Q·Kᵀ"), T.query_key_frame(trace, trace.scores), "scores")

ui.step(6, STEPS, "Scale by 1/√d_k")
ui.lesson("walkthrough/06_scale")
st.latex(rf"\frac{{S}}{{\sqrt{{d_k}}}} = \frac{{S}}{{\sqrt{{{trace.d_k}}}}} = {L.plain(trace.scale, 3)} \cdot S")
ui.matrix(
    F.query_key_figure(trace, trace.masked_scores, "scaled scores S/√d_k"),
    T.query_key_frame(trace, trace.masked_scores),
    "scaled",
)

ui.step(7, STEPS, "Softmax: attention weights α")
ui.lesson("walkthrough/07_softmax")
st.latex(r"\alpha_{ij} = \operatorname{softmax}_j\!\left(\frac{s_{ij}}{\sqrt{d_k}}\right) = "
         r"\frac{e^{s_{ij}/\sqrt{d_k}}}{\sum_{j'} e^{s_{ij'}/\sqrt{d_k}}},\qquad \sum_j \alpha_{ij} = 1")
ui.matrix(F.query_key_figure(trace, trace.weights, "α weights", weights=True), T.query_key_frame(trace, trace.weights), "weights")
st.caption("Row sums: " + ", ".join(f"{markdown_text(label)} {trace.weights[i].sum():.2f}" for i, label in enumerate(labels)))

ui.step(8, STEPS, "The output for one query")
ui.lesson("walkthrough/08_output")
i = st.selectbox(
    "Query token i", options=range(n), format_func=lambda q: f"{q + 1} · {labels[q]}", key="query",
    help="Pick the token whose output you want to build. Arrow keys work once the box has focus.",
)
i = i if i is not None and i < n else 0
st.latex(rf"\mathrm{{Att}}(q_{{{i + 1}}}, K, V) = \sum_j \alpha_{{{i + 1}j}}\, v_j")
left, right = st.columns([3, 2], vertical_alignment="center")
with left:
    ui.chart(F.alpha_bars(trace, i), "alpha-row")
with right:
    ui.table(T.query_key_frame(trace, trace.weights).iloc[[i]], "alpha-row")
ui.matrix(F.weighted_sum_figure(trace, i), T.weighted_sum_frame(trace, i), "weighted-sum")
left, _ = st.columns([3, 2])
with left:
    st.markdown(f"**Output for query {i + 1} (“{markdown_text(labels[i])}”)**, a vector of d_k = {trace.d_k} numbers:")
    ui.table(T.token_by_dim_frame(trace, trace.output).iloc[[i]], "output-row")

st.markdown("##### The same numbers, written out")
with st.expander(f"1 · Scores: q_{i + 1}·k_j as a sum of products, then ÷ √d_k", expanded=n <= 6):
    for line in L.dot_products(trace, i):
        st.latex(line)
with st.expander("2 · Softmax: exp / Σ exp (shifted by the row maximum m for numerical safety)", expanded=n <= 6):
    st.latex(L.softmax_row(trace, i))
with st.expander("3 · Weighted sum of the value vectors", expanded=True):
    st.latex(L.weighted_sum(trace, i))

st.markdown("##### Every query at once")
st.latex(rf"\mathrm{{Att}}(Q, K, V) = \alpha V:\qquad [{n} \times {n}] \cdot [{n} \times {trace.d_k}] = [{n} \times {trace.d_k}]")
ui.matrix(F.token_by_dim_figure(trace, trace.output, "output αV"), T.token_by_dim_frame(trace, trace.output), "output")
