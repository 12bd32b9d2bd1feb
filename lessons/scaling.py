"""Why scores are divided by √d_k: a live experiment, saturation, and the softmax temperature."""

import numpy as np
import streamlit as st

from attention import dot_product_samples, gradient_size, random_score_row, softmax, trace_self_attention
from ui import components as ui
from ui.links import TEMPERATURES
from ui.settings import shared, trace_or_explain
from viz import figures as F
from viz import scaling as S
from viz import tables as T

SAMPLES, KEYS = 4000, 8

st.title("Why divide the scores by √d_k?")
ui.lesson("scaling/00_intro")

settings = shared()
d_k = st.slider("d_k (the length of q and k)", 1, 512, value=64, key="dk_demo", bind="query-params",
                help="64 is the Transformer-base head size: d_model 512 / 8 heads.")

st.subheader("The spread of q·k grows with d_k", divider="gray")
dots = dot_product_samples(d_k, SAMPLES, seed=settings.seed)  # [SAMPLES]
a, b, c = st.columns(3)
a.metric("d_k", f"{d_k}")
b.metric("measured Var(q·k)", f"{dots.var():.1f}", help="Close to d_k: the variance grows like d_k.")
c.metric("measured Var(q·k / √d_k)", f"{(dots / np.sqrt(d_k)).var():.2f}", help="Close to 1 for every d_k.")
ui.chart(S.dot_histogram(dots, d_k), "dots")

st.subheader("Without scaling, the softmax saturates", divider="gray")
ui.lesson("scaling/01_saturation")
scores = random_score_row(d_k, KEYS, seed=settings.seed)  # [KEYS]
raw, scaled = softmax(scores), softmax(scores / np.sqrt(d_k))
ui.chart(
    S.softmax_bars([("softmax(q·k): no scaling", raw), (f"softmax(q·k / √{d_k})", scaled)],
                   title=f"One query against {KEYS} random keys, d_k = {d_k}"),
    "saturation",
)
a, b = st.columns(2)
a.metric("largest weight, no scaling", f"{raw.max():.3f}")
a.metric("gradient size ‖∂α/∂s‖, no scaling", f"{gradient_size(raw):.4f}")
b.metric(f"largest weight, ÷ √{d_k}", f"{scaled.max():.3f}")
b.metric(f"gradient size ‖∂α/∂s‖, ÷ √{d_k}", f"{gradient_size(scaled):.4f}")
st.caption("Gradient size is ‖diag(α) − α αᵀ‖, the size of the softmax's Jacobian: near 0 when the softmax is "
           "saturated. The scores are " + ", ".join(f"{s:.1f}" for s in scores) + ".")

st.subheader("Temperature", divider="gray")
ui.lesson("scaling/02_temperature")
temperature = st.select_slider("Temperature T", TEMPERATURES, value=1.0, key="temperature", bind="query-params")
ui.chart(
    S.softmax_bars([(f"softmax(q·k / (√{d_k} · {temperature:g}))", softmax(scores / (np.sqrt(d_k) * temperature)))],
                   title=f"The same query and keys at T = {temperature:g}"),
    "temperature-row",
)
st.markdown("**On the walkthrough's sentence** (d_k = 4, seeded random matrices), at the same temperature:")
trace = trace_or_explain(settings, trace_self_attention, temperature=temperature)
ui.matrix(F.query_key_figure(trace, trace.weights, f"α at T = {temperature:g}", weights=True),
          T.query_key_frame(trace, trace.weights), "temperature-weights")
st.caption("Rows are queries, columns are keys. Low T: each row puts almost everything on one key. "
           "High T: each row spreads evenly.")
