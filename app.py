"""Attention Lab: entry point. Page set-up, the shared sidebar, and the navigation between lessons.

The lessons live in lessons/, not pages/: a pages/ folder switches on Streamlit's older automatic
multipage mode next to st.navigation, and then a deep link such as /multihead shows "Page not
found" (and AppTest reruns lose this script).

Class mode (ui/classmode.py) wraps every page: a student's session follows the class's lesson (applied
before any widget is drawn) under the class's banner; a teacher's pages publish their lesson to the class
and carry the class's controls in the sidebar.
"""

import streamlit as st

from ui import arrival, classmode, identity
from ui.components import TABLE_CSS
from ui.links import clean_link, share_link, write_link
from ui.navigation import pages, script_of
from ui.settings import LESSON, SHOWN, STUDENT, draw_shared_sidebar, sentence_on_phones, sidebar_is_stale, under_apptest

student = classmode.student_of()  # a student of a class (the browser said so on an earlier run)
# A student's page opens with the sidebar closed: their own settings there are not the lesson the class follows;
# the projector's too: the room reads the question, not the menu.
closed = student or "projector" in st.query_params
# An emoji icon: the browser draws it from a data: URL. A ":material/…:" page icon is fetched from
# fonts.gstatic.com on every page load (Streamlit's frontend), which offline fails (issue 34).
st.set_page_config(page_title="Attention Lab", page_icon="🔍", layout="wide",
                   initial_sidebar_state="collapsed" if closed else "auto")
clean_link()  # first: the session's settings come from the URL once, and a bad value never reaches a widget
followed = classmode.follow(student) if student else None  # the class's lesson, before any widget reads it
page = st.navigation(pages())  # (its menu sits atop the sidebar wherever it is called)
if followed is not None and followed != page.url_path:  # the class's lesson is on another page: go there
    st.switch_page(script_of(followed))  # before anything is drawn, so the run it stops cost next to nothing
if student:
    classmode.arrived(page.url_path)
st.html(TABLE_CSS)
st.session_state[STUDENT] = student
draw_shared_sidebar(page.url_path)
st.session_state["_page"] = page.url_path  # whose settings the link holds


def lesson() -> None:
    """The lesson and everything that reads it, a keyed fragment: a sidebar edit of the sentence or the seed reruns
    only this (ui.settings.lesson_only), and so do the lesson's own controls, drawn inside it (issue 35)."""
    scoped = not st.session_state.pop(_FULL, False)  # a rerun of this fragment alone, the sidebar as it was
    if scoped and (sidebar_is_stale(page.url_path) or classmode.role() != st.session_state.get(_ROLE)):
        st.rerun()  # a lesson's button changed what the sidebar shows, or joined or started a class: run it all
    st.session_state.pop(SHOWN, None)  # filled by this run's lesson where it can't show a box's text
    st.session_state.pop(classmode.QUESTIONS, None)  # filled by this run's lesson where its numbers answer some
    sentence_shown = sentence_on_phones(page.url_path)  # a line at the top of a phone's page, filled below
    if not student or classmode.student_banner(student):
        # page.run() may be called once per run of st.navigation; a rerun of this fragment alone runs the same
        # page again (Streamlit 1.67's StreamlitPage keeps that in _can_be_called, set by st.navigation)
        page._can_be_called = True
        page.run()  # a student's lesson is hidden while a question is open, or the class is paused
    if scoped and sidebar_is_stale(page.url_path):  # the lesson's run changed it
        st.rerun()
    sentence_shown()
    write_link()  # the URL holds this run's settings
    if student:
        classmode.drawn(student)  # the page now shows the class as this run read it
    classmode.publish(page.url_path)  # a teacher's lesson page: the class follows it
    classmode.teacher_sidebar(page.url_path)
    if not scoped:
        st.session_state[_ROLE] = classmode.role()
    with st.sidebar:
        share_link()
        identity.draw(report=page.url_path == "classmode")  # who this browser is (ui/identity.py); invisible
        arrival.draw()  # after a navigation, its heading at the top of the page (ui/arrival.py); invisible


_FULL, _ROLE = "_full_run", "_class_role"
st.session_state[_FULL] = True
# Not a fragment for a student: every run of a student's page starts with the class's lesson (classmode.follow),
# and ui/class_watch.py wakes the page that drew it, which must be the whole page. Nor under AppTest: its tree holds
# only a run's own elements, so after a fragment's rerun it would hold the lesson without the sidebar; the browser
# tests check the fragment's reruns against full runs of the same link (tests/browser/test_scoped_reruns_browser.py).
(lesson if student or under_apptest() else st.fragment(lesson, key=LESSON))()
