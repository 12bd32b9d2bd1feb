"""Attention Lab: entry point. Page set-up, the shared sidebar, and the navigation between lessons.

The lessons live in lessons/, not pages/: a pages/ folder switches on Streamlit's older automatic
multipage mode next to st.navigation, and then a deep link such as /multihead shows "Page not
found" (and AppTest reruns lose this script).
"""

import streamlit as st

from ui.classmode import publish
from ui.components import TABLE_CSS, in_class_frame
from ui.links import clean_link, share_link, write_link
from ui.navigation import pages
from ui.settings import SHOWN, draw_shared_sidebar

# A student's class-mode page, and the lesson in its frame (ui.classmode), open with the sidebar closed:
# the learner's own settings there are not the lesson the class follows.
student = "class" in st.query_params or in_class_frame()
st.set_page_config(page_title="Attention Lab", page_icon=":material/search:", layout="wide",
                   initial_sidebar_state="collapsed" if student else "auto")
clean_link()  # first: the session's settings come from the URL once, and a bad value never reaches a widget
st.html(TABLE_CSS)
st.session_state.pop(SHOWN, None)  # filled by this run's lesson where it can't show a box's text
st.session_state["_shared"] = draw_shared_sidebar()

page = st.navigation(pages())
st.session_state["_page"] = page.url_path  # whose settings the link holds
page.run()
write_link()  # the URL holds this run's settings
publish(page.url_path)  # a teacher's lesson page: the class follows it
with st.sidebar:
    share_link()
