"""Cross-attention: queries from the target sentence, keys and values from the source sentence.

Every number comes from one ``trace_cross_attention`` trace; a sentence that can't be shown gives a
message and the other one keeps working (the last usable text stands in for the bad one).
"""

import streamlit as st

from attention import MAX_CHARS
from attention.cross import CROSS_PRESETS, trace_cross_attention
from ui import components as ui
from ui import model_map
from ui.links import CROSS_PRESET_LABELS, default
from ui.links import CROSS_SOURCE as SOURCE
from ui.links import CROSS_TARGET as TARGET
from ui.settings import first_example, shared, usable_sentence
from viz import cross as C
from viz import figures as F
from viz import formulas as L
from viz import tables as T
from viz.i18n import N_, bound, sentences, t
from viz.labels import dim_labels, markdown_text, token_labels

st.title(t("Cross-attention: reading another sentence"))
ui.lesson("cross/00_intro")
map_slot = st.container()  # filled once the trace is made from the boxes below
settings = shared()


first_source, first_target = first_example("ca_source", SOURCE), first_example("ca_target", TARGET)  # the reader's
left, right = st.columns(2)
ui.text_box(t("Source (keys and values: the sentence being read)"), key="ca_source", limit=MAX_CHARS, container=left,
            value=first_source, persist_state="session")
ui.text_box(t("Target (queries: the sentence being written)"), key="ca_target", limit=MAX_CHARS, container=right,
            value=first_target, persist_state="session")
left, right = st.columns(2)
preset = left.radio("W_Q, W_K, W_V", CROSS_PRESETS, format_func=bound(lambda name: t(CROSS_PRESET_LABELS[name])),
                    key="ca_preset", persist_state="session", horizontal=True) or "random"
d_k = right.slider("d_k", 1, 16, value=default("ca_dk"), key="ca_dk", persist_state="session")
source = usable_sentence(st.session_state.get("ca_source") or "", memory="_last_ca_source", default=first_source,
                         label=N_("Source"), box="ca_source")
target = usable_sentence(st.session_state.get("ca_target") or "", memory="_last_ca_target", default=first_target,
                         label=N_("Target"), box="ca_target")
trace = trace_cross_attention(target, source, d_model=settings.d_model, d_k=d_k, seed=settings.seed,
                              preset=preset, positional=settings.positional)
i, j = len(trace.target.tokens), len(trace.source.tokens)
with map_slot:
    model_map.cross(trace)
t_labels, s_labels = token_labels(trace.target.tokens), token_labels(trace.source.tokens)
if preset == "aligned":
    st.info(C.alignment_text(trace), icon=":material/build:")
    for line in C.alignment_notes(trace, t_labels, s_labels):
        st.caption(line)
    st.caption(C.table_words(), unsafe_allow_html=True)  # our own words, each translation marked with its language

st.subheader(t("The shapes, as they flow"), divider="gray")
st.latex(L.apart([rf"Q = X_t W_Q \in \mathbb{{R}}^{{{i} \times {d_k}}},",
                  rf"K = X_s W_K \in \mathbb{{R}}^{{{j} \times {d_k}}},",
                  rf"V = X_s W_V \in \mathbb{{R}}^{{{j} \times {d_k}}}"]))
st.latex(L.apart(rf"\alpha = \operatorname{{softmax}}\!\left(\frac{{Q K^\top}}{{\sqrt{{d_k}}}}\right) \in "
                 rf"\mathbb{{R}}^{{{i} \times {j}}},", rf"\alpha V \in \mathbb{{R}}^{{{i} \times {d_k}}}"))
dims = dim_labels(d_k)
parts = [("q", t("Q (target)"), t_labels, trace.q), ("k", t("K (source)"), s_labels, trace.k),
         ("v", t("V (source)"), s_labels, trace.v)]
for column, (key, name, labels, m) in zip(st.columns(3), parts, strict=True):
    with column:
        ui.matrix(F.heatmap(m, row_labels=labels, col_labels=dims, title=f"{name}  [{m.shape[0]} × {d_k}]",
                            row_title=t("token"), col_title="dimension", compact=True),
                  T.matrix_frame(m, rows=labels, columns=dims, rows_name="token"), f"ca-{key}",
                  side_by_side=False)

st.subheader(t("α: target tokens ask, source tokens answer"), divider="gray")
ui.matrix(F.heatmap(trace.weights, row_labels=t_labels, col_labels=s_labels, title=f"α  [{i} × {j}]",
                    row_title=t("query: target token i"), col_title=t("key: source token j"), weights=True),
          T.matrix_frame(trace.weights, rows=t_labels, columns=s_labels,
                         rows_name=t("target query ↓ · source key →")),
          "ca-weights")
st.caption(sentences(t("Rows are the target's tokens (queries), columns the source's tokens (keys)."),
                     markdown_text(T.row_sums_text(trace.weights, t_labels))))
st.subheader(t("The output: one row per target token"), divider="gray")
ui.matrix(F.heatmap(trace.output, row_labels=t_labels, col_labels=dims, title=f"αV  [{i} × {d_k}]",
                    row_title=t("target token"), col_title="dimension"),
          T.matrix_frame(trace.output, rows=t_labels, columns=dims, rows_name=t("target token")), "ca-output")
ui.lesson("cross/01_contrast")
