"""Why scores are divided by √d_k: a live experiment, saturation, and the softmax temperature."""

import numpy as np
import streamlit as st

from attention import dot_product_samples, softmax, trace_self_attention
from attention.scaling import row_statistics
from ui import components as ui
from ui import model_map
from ui.experiments import KEYS, ROWS, saturation
from ui.experiments import example as experiment_example
from ui.links import DK_CHOICES, TEMPERATURES, default
from ui.settings import shared, trace_or_explain
from viz import figures as F
from viz import scaling as S
from viz import tables as T
from viz.i18n import decimal, numbers, sentences, t
from viz.labels import format_number

SAMPLES = 4000
D_K_GRID = (1, 4, 16, 64, 256, 512)


st.title(t("Why divide the scores by √d_k?"))
ui.lesson("scaling/00_intro")
map_slot = st.container()  # filled at the end, from the trace the page draws there

settings = shared()
d_k = st.select_slider(t("d_k (the length of q and k)"), DK_CHOICES, value=default("dk_demo"), key="dk_demo",
                       persist_state="session", help=t("Powers of two, as the charts' log scales space them. 64 is the "
                                                       "Transformer-base head size: d_model 512 / 8 heads."))

st.subheader(t("The spread of q·k grows with d_k"), divider="gray")
dots = dot_product_samples(d_k, SAMPLES, seed=settings.seed)  # [SAMPLES]
a, b, c = st.columns(3)
a.metric("d_k", f"{d_k}")
b.metric(t("measured Var(q·k)"), decimal(f"{dots.var():.1f}"), help=t("Close to d_k: the variance grows like d_k."))
c.metric(t("measured Var(q·k / √d_k)"), decimal(f"{(dots / np.sqrt(d_k)).var():.2f}"),
         help=t("Close to 1 for every d_k."))
ui.chart(S.dot_histogram(dots, d_k), "dots")

st.subheader(t("Without scaling, the softmax saturates"), divider="gray")
ui.lesson("scaling/01_saturation")
grid = sorted({*D_K_GRID, d_k})
frame = S.saturation_frame([saturation(k, settings.seed) for k in grid])
st.markdown(t("**Over {rows} random rows** (one query against {keys} keys, entries ~ N(0, 1)) at each d_k; the dotted "
              "line is your d_k = {d_k}.", rows=ROWS, keys=KEYS, d_k=d_k))
max_weight, jacobian, no_gradient = S.saturation_figures(frame, chosen=d_k)
ui.chart_row([(max_weight, "saturation-max-weight"), (jacobian, "saturation-jacobian"),
              (no_gradient, "saturation-no-gradient")])
ui.table(S.saturation_table(frame), "saturation-stats", decimals=3)
st.caption(t("Saturated: the largest weight is above {saturated}. z is the softmax's input (z = s without scaling, "
             "z = s/√d_k with it, s = q·k). ∂α/∂q = ∂α/∂z · ∂z/∂q is what reaches the query, and so W_Q; below "
             "{no_gradient} almost no training signal gets through.", saturated=decimal(str(S.SATURATED)),
             no_gradient=decimal(str(S.NO_GRADIENT))))

example = experiment_example(d_k, settings.seed)  # the median row of the experiment's rows at this d_k
scores, keys = example.scores, example.keys  # [KEYS], [KEYS, d_k]
row = row_statistics(scores, keys, d_k)  # [2, 3]
st.markdown(S.example_text(row, d_k=d_k, rows=ROWS, keys=KEYS))
raw, scaled = softmax(scores), softmax(scores / np.sqrt(d_k))
ui.chart_row([(S.softmax_bars(t("softmax(s): no scaling"), raw), "row-raw"),
              (S.softmax_bars(f"softmax(s / √{d_k})", scaled), "row-scaled")])
for column, side, name in zip(st.columns(2), (0, 1), (t("no scaling"), f"÷ √{d_k}"), strict=True):
    column.metric(t("largest weight, {side}", side=name), format_number(row[side, 0], 3))
    column.metric(t("‖∂α/∂z‖ (z: softmax input), {side}", side=name), format_number(row[side, 1], 4))
    column.metric(t("‖∂α/∂q‖ (reaches W_Q), {side}", side=name), format_number(row[side, 2], 4))
st.caption(sentences(S.row_verdict(row, frame.loc[d_k], d_k=d_k, rows=ROWS),
                     t("The raw scores s = q·k are {scores}.", scores=numbers([format_number(s, 1) for s in scores]))))

st.subheader(t("Temperature"), divider="gray")
ui.lesson("scaling/02_temperature")
temperature = st.select_slider(t("Temperature T"), TEMPERATURES, value=default("temperature"), key="temperature",
                               persist_state="session")
shown_t = decimal(f"{temperature:g}")
st.markdown(t("**The same query and keys at T = {temperature}:**", temperature=shown_t))
ui.chart(S.softmax_bars(f"softmax(s / (√{d_k} · {shown_t}))", softmax(scores / (np.sqrt(d_k) * temperature))),
         "temperature-row")
st.markdown(t("**On the walkthrough's sentence** (d_k = 4, seeded random matrices), at the same temperature:"))
trace = trace_or_explain(settings, trace_self_attention, temperature=temperature)
ui.matrix(F.query_key_figure(trace, trace.weights, t("α at T = {temperature}", temperature=shown_t), weights=True),
          T.query_key_frame(trace, trace.weights, weights=True), "temperature-weights")
with map_slot:
    # the head at the end of the page, not the experiments' d_k: say so when the slider differs
    name = (t("A head on your sentence (d_k = {d_k}; seeded random W_Q, W_K, W_V, T as at the end of this page): this "
              "lesson is about the marked steps", d_k=trace.d_k) if d_k == trace.d_k else
            t("A head on your sentence (d_k = {d_k} here, not the slider's {slider}; seeded random W_Q, W_K, W_V, T as "
              "at the end of this page): this lesson is about the marked steps", d_k=trace.d_k, slider=d_k))
    model_map.topic("scaling", trace, here={6, 7}, name=name)
st.caption(t("Rows are queries, columns are keys. Low T: each row puts nearly all its weight on its best key (split "
             "between keys whose scores tie). High T: each row approaches an even split over the keys it may attend "
             "to."))
