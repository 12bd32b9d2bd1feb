"""Class mode: a teacher starts a class and asks questions about the lesson on the projector; students
join with a code on their own devices, follow the lesson and answer (``ui.classmode``)."""

import streamlit as st

from ui import classmode as C
from ui.settings import shared

st.title("Class mode")
settings = shared()
if "teach" in st.query_params:
    C.teacher(st.query_params["teach"], settings, st.context.url or "http://127.0.0.1:8501/")
elif "class" in st.query_params:
    C.student(st.query_params["class"])
else:
    C.landing(settings)
