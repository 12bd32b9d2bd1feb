"""Attention Lab: entry point. Page set-up, the shared sidebar, and the navigation between lessons.

The lessons live in lessons/, not pages/: a pages/ folder switches on Streamlit's older automatic
multipage mode next to st.navigation, and then a deep link such as /multihead shows "Page not
found" (and AppTest reruns lose this script).

Class mode (ui/classmode.py) wraps every page: a student's session follows the class's lesson (applied
before any widget is drawn) under the class's banner; a teacher's pages publish their lesson to the class
and carry the class's controls in the sidebar.
"""

import streamlit as st

from ui import arrival, class_watch, classmode, i18n, identity, model_map
from ui.components import TABLE_CSS
from ui.links import clean_link, link, share_link, write_link
from ui.navigation import CLASS_PAGE, pages, script_of, url_path
from ui.settings import (
    DEFAULT_SENTENCE,
    FULL_RUN,
    LESSON,
    SHOWN,
    current_shared,
    draw_shared_sidebar,
    sentence_on_phones,
)

student = classmode.student_of()  # a student of a class (the browser said so on an earlier run)
# A student's page opens with the sidebar closed: their own settings there are not the lesson the class follows;
# the projector's too: the room reads the question, not the menu.
closed = student or "projector" in st.query_params
# An emoji icon: the browser draws it from a data: URL. A ":material/…:" page icon is fetched from
# fonts.gstatic.com on every page load (Streamlit's frontend), which offline fails (issue 34).
# No title yet: Streamlit's tab shows each call's title as it comes, so a first "Attention Lab" would flash in the tab
# on every rerun before the page's own title below (seen by a test on a busy machine).
st.set_page_config(page_icon="🔍", layout="wide",
                   initial_sidebar_state="collapsed" if closed else "auto")
i18n.begin()  # the language of this run's texts (the link's, else the browser's), before any text
clean_link()  # then the session's settings come from the URL once, and a bad value never reaches a widget
followed = classmode.follow(student) if student else None  # the class's lesson, before any widget reads it
page = st.navigation(pages())  # (its menu sits atop the sidebar wherever it is called)
st.set_page_config(page_title=f"{page.title} · Attention Lab")  # each page's tab names it (WCAG 2.4.2)
if followed is not None and followed != page.url_path:  # the class's lesson is on another page: go there
    st.switch_page(script_of(followed))  # before anything is drawn, so the run it stops cost next to nothing
adopted = None if student else classmode.adopt(page.url_path)  # a teacher's new tab: the class's lesson
if adopted is not None and adopted != page.url_path:
    st.switch_page(script_of(adopted))
model_map.switch(allowed=not student)  # a part of a lesson's map chose a walkthrough step: open it
if student:
    classmode.arrived(page.url_path)
st.html(TABLE_CSS)
if page.url_path != url_path(CLASS_PAGE):  # a Start or Join pressed early is the class page's: left behind with it
    st.session_state.pop(classmode.PENDING, None)
st.session_state["_shared"] = draw_shared_sidebar(page.url_path, controls=not (student and classmode.following()))
st.session_state["_page"] = page.url_path  # whose settings the link holds


def lesson() -> None:
    """The page's lesson and everything that reads it: the phone's sentence line, the link, the class's publishing,
    the teacher's controls, the share link and what a screen reader is told."""
    full = st.session_state.pop(FULL_RUN, False)  # a callback changed what is drawn outside the fragment
    if class_watch.fragment_run():  # the lesson fragment's own run (a learner's edit): the sidebar was not drawn
        if full:
            st.rerun()
        st.session_state["_shared"] = current_shared()
    st.session_state.pop(SHOWN, None)  # filled by this run's lesson where it can't show a box's text
    st.session_state.pop(classmode.QUESTIONS, None)  # filled by this run's lesson where its numbers answer some
    st.session_state.pop(classmode.OPEN_STEP, None)
    sentence_shown = sentence_on_phones(page.url_path)  # a line at the top of a phone's page, filled below
    if not student:
        classmode.ended_banner()  # a class that ended in this session: said until dismissed
    drawn = not student or classmode.student_banner(student)
    if drawn:
        # Streamlit 1.67 runs st.navigation's page once a run and marks it run (a private flag); the fragment's own
        # run draws the same page again, which it does not foresee: the flag is set back (tests/test_pages.py's
        # edits run the fragment alone, and would fail on it)
        page._can_be_called = True
        page.run()  # a student's lesson is hidden while a question is open, or the class is paused
    sentence_shown(drawn=drawn, changeable=not student or classmode.exploring(),  # a follower has no box to change
                   teachers=classmode.class_sentence() if student else None)
    write_link()  # the URL holds this run's settings
    if student:
        classmode.drawn(student)  # the page now shows the class as this run read it
    classmode.publish(page.url_path)  # a teacher's lesson page: the class follows it
    classmode.teacher_sidebar(page.url_path)
    with st.sidebar:
        share_link()
        identity.draw(report=page.url_path == "classmode")  # who this browser is (ui/identity.py); invisible
        # after a navigation, its heading at the top of the page; after an edit, a polite word to a screen reader
        settings = link()  # its sentence is the one the lesson shows
        arrival.draw(page.url_path, settings, str(settings.get("sentence", DEFAULT_SENTENCE)), shown=drawn)


# A learner alone on a lesson page: the lesson is a keyed fragment, which a typed sentence or seed and the lesson's own
# widgets rerun without the sidebar (issue 46; ui.settings.rerun_lesson_only). A class's pages and the class page run
# whole, as before: what they read at the top of a run (the class's lesson, who teaches) changes with their clicks.
alone = not student and page.url_path != url_path(CLASS_PAGE) and classmode.teaching() is None
(st.fragment(lesson, key=LESSON) if alone else lesson)()
