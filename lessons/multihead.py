"""Multi-head attention: h heads side by side, then concatenate and project with W_O.

Every number comes from one ``trace_multi_head`` trace; each head is a full single-head trace.
"""

from functools import partial

import streamlit as st

from attention import trace_multi_head
from ui import arrival, model_map, view
from ui import components as ui
from ui.choices import multihead_head
from ui.exercises import offer_to_class, question_box
from ui.settings import shared, trace_or_explain
from ui.walkthrough import MASK_CAPTION, STEPS, lines_panel, render_steps
from viz import figures as F
from viz import formulas as L
from viz import heads as H
from viz import provenance as P
from viz import tables as T
from viz.exercises import columns_of, head_questions, lesson_id, make_questions
from viz.i18n import N_, bound, nt, sentences, t
from viz.labels import token_labels

st.title(t("Multi-head attention"))
ui.lesson("multihead/00_intro")

settings = shared()
divisors = [h for h in range(1, settings.d_model + 1) if settings.d_model % h == 0]
default = 2 if 2 in divisors else 1
ui.forget_stale_choice("heads", divisors, label=t("Heads h"), default=default,  # a link's heads, or d_model changed
                       why=t("the number of heads must divide d_model = {d_model} ({divisors})",
                             d_model=settings.d_model, divisors=", ".join(map(str, divisors))))
n_heads = st.sidebar.selectbox(
    t("Heads h (divisors of d_model)"), divisors, key="heads", index=divisors.index(default), persist_state="session",
    help=t("Each head gets d_k = d_model / h dimensions, so h must divide d_model."),
)
mh = trace_or_explain(settings, trace_multi_head, n_heads=n_heads)
n, h, d_k, d_model = mh.n, mh.n_heads, mh.d_k, mh.d_model

question_box(head_questions(n, d_model, h, lesson_id(mh.heads[0])), prefix="mh-ex", key="mh-ex-box",
             title=t("Predict first: the shapes of the split, before the numbers below"))
heads_word = nt("{n} head", "{n} heads", h)  # outside the formula's f-string: the extractor reads no call there
st.latex(L.apart(rf"h = \text{{{heads_word}}},",
                 rf"d_k = \frac{{d_{{model}}}}{{h}} = \frac{{{d_model}}}{{{h}}} = {d_k}"))

st.subheader(t("Each head's attention"), divider="gray")
heads = H.heads_heatmaps(mh.weights, mh.tokens, mask=mh.heads[0].mask if mh.causal else None)
labels = token_labels(mh.tokens)
ui.matrices([view.panel(f"heads-{k}", fig=fig, rows=labels, cols=labels, values=P.shown_weights(head),
                        tip=P.weights(head), names=(N_("query"), N_("key")), choose="cell")
             for k, (fig, head) in enumerate(zip(heads, mh.heads, strict=True))], key="heads", on_choice=multihead_head)
st.caption(sentences(t("One panel per head, all on the same colour scale. In every panel rows are queries (i) and "
                       "columns are keys (j); point at a cell for its numbers, click a head to open it below."),
                     t(MASK_CAPTION) if mh.causal else ""))
with st.expander(t("The numbers: α of each head"), expanded=h <= 2):
    for k, (tab, head) in enumerate(zip(st.tabs([t("head {number}", number=k + 1) for k in range(h)]), mh.heads,
                                        strict=True)):
        with tab:
            ui.table(T.query_key_frame(head, head.weights, weights=True), f"heads-{k}")
if st.toggle(t("Show the heads as lines (head view)"), value=True, key="mh-lines"):
    lines_panel(mh.weights, mh.tokens, key="mh-lines")

st.subheader(t("Split → heads → concatenate → W_O"), divider="gray")
ui.lesson("multihead/01_path")
split, per_head, concatenate, output = t("split into heads"), t("attention per head"), t("concatenate"), t("output")
st.latex(L.apart(
    rf"\underbrace{{[{n} \times {d_model}]}}_{{X W_Q,\ X W_K,\ X W_V}} \;\to",
    rf"\underbrace{{{h} \times [{n} \times {d_k}]}}_{{\text{{{split}}}}} \;\to",
    rf"\underbrace{{{h} \times [{n} \times {d_k}]}}_{{\text{{{per_head}}}}} \;\to",
    rf"\underbrace{{[{n} \times {d_model}]}}_{{\text{{{concatenate}}}}} \;\xrightarrow{{\cdot W_O}}",
    rf"\underbrace{{[{n} \times {d_model}]}}_{{\text{{{output}}}}}", gap=r"\;"))
ui.matrix(F.token_by_dim_figure(mh, mh.concat, t("Concat(head outputs)")), T.token_by_dim_frame(mh, mh.concat),
          "concat")
st.caption(" · ".join(t("columns {first}–{last}: head {number}", first=k * d_k + 1, last=(k + 1) * d_k, number=k + 1)
                      if d_k > 1 else t("column {first}: head {number}", first=k + 1, number=k + 1) for k in range(h)))
ui.matrix(F.projection_figure(mh.w_o, "W_O", axes=F.W_O_AXES), T.projection_frame(mh.w_o, corner=T.W_O_CORNER), "w_o",
          names=(N_("Concat dimension"), N_("output dimension")))
st.caption(t("W_O is [d_model × d_model], seeded random like the other matrices (entries ~ N(0, 1/d_model))."))
ui.matrix(F.token_by_dim_figure(mh, mh.output, t("output = Concat · W_O")), T.token_by_dim_frame(mh, mh.output),
          "mh-output")

st.subheader(t("Open one head in the full step-by-step view"), divider="gray", anchor="open-head")
left, right = st.columns(2)
opened = left.selectbox(t("Head"), range(h), format_func=bound(lambda k: t("head {number}", number=k + 1)),
                        key="open_head",
                        persist_state="session")
opened = opened if opened is not None and opened < h else 0
# one step at a time, as in the walkthrough: drawing steps 3–8 of a head at once doubled this page's cost
step = right.selectbox(t("Step"), range(3, len(STEPS) + 1), format_func=bound(lambda k: f"{k} · " + t(STEPS[k - 1][0])),
                       key="head_step", persist_state="session", on_change=arrival.to_step, args=("head_step", "head-"),
                       help=t("The walkthrough's steps 3 to 8, for this head's own W_Q, W_K, W_V."))
st.markdown(t("Head {number} uses {columns} of W_Q, W_K and W_V. Its tokens and X are the walkthrough's (steps 1 and "
              "2).", number=opened + 1, columns=columns_of(opened, d_k)))
render_steps(mh.heads[opened], prefix="head-", first=step or 3, last=step or 3,
             map_under=partial(model_map.multihead, mh.heads[opened], h))
offer_to_class(lambda: [*head_questions(n, d_model, h, lesson_id(mh.heads[0])), *make_questions(mh.heads[opened])],
               step or 3)
