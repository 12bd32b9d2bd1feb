"""The floor for bench_browser.py: the least any version of the walkthrough's first step can draw.

The app's frame (wide layout, a navigation of nine lessons, the sentence box in the sidebar) and one
element of content: step 1's token table, traced by the engine and drawn by the app's own
``ui.components.table``. No chart, no step controls, no seed, no settings, no share link. Its
interaction ratio to the bare page is what no redesign of the lesson's content can go below.

Streamlit serves the static/ folder beside the main script, so bench/static is a link to the app's
static/ (the view's JavaScript and CSS, which the table is drawn with).
"""

import streamlit as st

from attention import trace_self_attention
from ui.components import table
from viz.tables import token_frame


def tokens() -> None:
    table(token_frame(trace_self_attention(st.session_state["sentence"], seed=42)), "tokens", decimals=None)


st.set_page_config(page_title="Attention Lab floor", layout="wide")
st.sidebar.text_input("Sentence", value="This forum is awesome", key="sentence")
lessons = [st.Page(tokens, title="Step-by-step walkthrough", default=True)]
lessons += [st.Page(lambda: None, title=f"Lesson {k}", url_path=f"lesson-{k}") for k in range(2, 10)]
st.navigation(lessons).run()
