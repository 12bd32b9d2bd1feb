"""The controls floor for the benchmarks: the floor (bench/floor_app.py) plus the walkthrough's controls.

The app's own frame and sidebar (sentence, seed, the d_model popover, the share link), the
walkthrough's d_k and W popover, presenter toggle, step controls and "Next" button, drawn by the app's
own functions, and one element of content: step 1's token table. No title, intro, chart, exercises or
downloads. What it costs over the floor is what the walkthrough's controls cost in Streamlit, whatever
its steps draw: no version of the walkthrough that keeps its controls can go below it.

Run as the floor is: ``--lesson controls`` in bench_server_load.py, a baseline in bench_browser.py.
"""

import streamlit as st

from attention import PRESETS, trace_self_attention
from ui.components import TABLE_CSS, table
from ui.links import PRESET_LABELS, share_link
from ui.presenter import next_step_button, step_controls
from ui.settings import draw_shared_sidebar, settings_popover
from viz.tables import token_frame


def walkthrough_controls() -> None:
    settings = st.session_state["_shared"]
    with settings_popover("d_k and W_Q, W_K, W_V", key="walkthrough_settings"):
        d_k = st.slider("d_k (query, key and value size)", 1, 16, value=4, key="d_k", bind="query-params")
        preset = st.radio("W_Q, W_K, W_V", PRESETS, format_func=PRESET_LABELS.get, key="preset",
                          bind="query-params")
    st.sidebar.caption(f"d_k {d_k} · W_Q, W_K, W_V: {PRESET_LABELS[preset]}")
    st.sidebar.toggle("Presenter mode", key="present", bind="query-params")
    step = step_controls()
    table(token_frame(trace_self_attention(settings.sentence, seed=settings.seed)), "tokens", decimals=None)
    next_step_button(step)


st.set_page_config(page_title="Attention Lab controls floor", layout="wide")
st.html(TABLE_CSS)
st.session_state["_shared"] = draw_shared_sidebar()
lessons = [st.Page(walkthrough_controls, title="Step-by-step walkthrough", default=True)]
lessons += [st.Page(lambda: None, title=f"Lesson {k}", url_path=f"lesson-{k}") for k in range(2, 10)]
st.navigation(lessons).run()
with st.sidebar:
    share_link()
