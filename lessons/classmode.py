"""Class mode: a teacher starts a class and teaches from any lesson; students join with a code on their own
devices, follow the lesson and answer; the projector shows the code and the class's answers
(``ui.classmode``)."""

import streamlit as st

from ui import classmode as C
from viz.i18n import t

st.title(t("Class mode"))
base_url = st.context.url or "http://127.0.0.1:8501/"
if "teach" in st.query_params:  # a teacher's link, opened on another device: this browser keeps the key
    C.resume_teacher_link()
C.resume_pending()  # a Start or Join pressed before the browser had said who it is
taught = C.teaching()
if "projector" in st.query_params:
    C.projector(str(st.query_params["projector"]), base_url)
elif taught is not None:
    C.teacher_desk(*taught, base_url)
elif (closed := C.closed_taught()) is not None:  # a closed class: its export, until the class is deleted
    C.closed_desk(closed, base_url)
elif C.student_of() is not None:
    st.markdown(t("You are in class **{code}**: the lesson pages follow your teacher.", code=C.student_of()))
    st.button(t("Leave the class"), key="cm_leave_page", on_click=C.leave_class, icon=":material/logout:")
else:
    C.landing()
