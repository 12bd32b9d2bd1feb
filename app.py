"""Attention Lab: entry point. Page set-up, the shared sidebar, and the navigation between lessons."""

import streamlit as st

from ui.settings import draw_shared_sidebar

st.set_page_config(page_title="Attention Lab", page_icon="🔎", layout="wide")
st.session_state["_shared"] = draw_shared_sidebar()

page = st.navigation(
    [
        st.Page("pages/lesson_walkthrough.py", title="Step-by-step walkthrough", icon="🪜", default=True, url_path="walkthrough"),
    ]
)
page.run()
