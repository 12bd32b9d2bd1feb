"""Attention Lab: entry point. Page set-up, the shared sidebar, and the navigation between lessons.

The lessons live in lessons/, not pages/: a pages/ folder switches on Streamlit's older automatic
multipage mode next to st.navigation, and then a deep link such as /multihead shows "Page not
found" (and AppTest reruns lose this script).
"""

import streamlit as st

from ui.components import TABLE_CSS
from ui.links import clean_link, share_link
from ui.settings import draw_shared_sidebar

st.set_page_config(page_title="Attention Lab", page_icon=":material/search:", layout="wide")
clean_link()  # first: a bad value in the URL must never reach a widget
st.html(TABLE_CSS)
st.session_state["_shared"] = draw_shared_sidebar()

page = st.navigation(
    [
        st.Page("lessons/walkthrough.py", title="Step-by-step walkthrough", icon=":material/stairs:", default=True),
        st.Page("lessons/multihead.py", title="Multi-head attention", icon=":material/hub:"),
        st.Page("lessons/scaling.py", title="Why divide by √d_k?", icon=":material/straighten:"),
        st.Page("lessons/phonebook.py", title="Phonebook: keys vs values", icon=":material/contact_phone:"),
        st.Page("lessons/relevance.py", title="Similar is not relevant", icon=":material/call_split:"),
        st.Page("lessons/parts.py", title="Attention from its parts", icon=":material/construction:"),
        st.Page("lessons/cross.py", title="Cross-attention", icon=":material/translate:"),
        st.Page("lessons/learn.py", title="Watch a head learn", icon=":material/model_training:"),
        st.Page("lessons/real_model.py", title="A real model", icon=":material/psychology:"),
        st.Page("lessons/generate.py", title="Writing with a cache", icon=":material/edit_note:"),
        st.Page("lessons/classmode.py", title="Class mode", icon=":material/groups:"),
    ]
)
page.run()
with st.sidebar:
    share_link()
