"""ui/identity.py: what the server asks the browser to keep reaches it, even when the run that asked is stopped
by ``st.switch_page`` before the component is drawn (issue 33: a student who joined lost the class on the
next page, since the server forgot the request at the first draw, before the browser had kept it)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

ME = "c" * 32


def page() -> None:
    import streamlit as st

    from ui import identity

    if st.session_state.pop("ask", None):
        identity.remember(**st.session_state.pop("values"))
        if st.session_state.pop("switch", False):
            st.stop()  # as st.switch_page: the run ends before the component's draw
    identity.draw()
    st.write(repr(identity.get("class")))


def session(**held) -> AppTest:
    at = AppTest.from_function(page)
    at.session_state["_identity"] = {"browser": ME, **held}
    return at.run()


def ask(at: AppTest, switch: bool, **values) -> AppTest:
    at.session_state["ask"], at.session_state["values"], at.session_state["switch"] = True, values, switch
    return at.run()


def test_a_request_is_kept_until_the_browser_reports_it_keeps_it():
    for switch in (False, True):
        at = ask(session(), switch, **{"class": "K7Q2XM"})
        at.run()  # the run after: the component is drawn; the browser has not reported yet
        assert at.session_state["_identity_pending"] == {"class": "K7Q2XM"}
        assert at.markdown[-1].value == "'K7Q2XM'"  # the server sees it at once
        at.session_state["_identity"] = {"browser": ME, "class": "K7Q2XM"}  # the browser's report
        at.run()
        assert "_identity_pending" not in at.session_state
        assert at.markdown[-1].value == "'K7Q2XM'"


def test_forgetting_is_a_request_too():
    at = ask(session(**{"class": "K7Q2XM"}), True, **{"class": None})
    at.run()
    assert at.markdown[-1].value == "None" and at.session_state["_identity_pending"] == {"class": None}
    at.session_state["_identity"] = {"browser": ME}
    at.run()
    assert "_identity_pending" not in at.session_state and at.markdown[-1].value == "None"


def test_a_stale_report_does_not_undo_a_request():
    at = ask(session(), False, **{"class": "K7Q2XM"})
    at.session_state["_identity"] = {"browser": ME, "class": "OLD222"}  # a report sent before the request arrived
    at.run()
    assert at.markdown[-1].value == "'K7Q2XM'" and at.session_state["_identity_pending"] == {"class": "K7Q2XM"}
