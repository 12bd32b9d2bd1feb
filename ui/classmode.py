"""Class mode: a teacher teaches from any lesson, a class follows on its own laptops and phones, predicts and
answers; a projector shows the code and the class's answers (issue 33).

Who is who lives in the browser (ui/identity.py): a student is one browser (however many tabs), a teacher's
browser keeps the class's key (never in the address bar of a projected page). So a reload keeps a student in
the class and a teacher teaching, and a copied link makes no one anyone.

- **The teacher** teaches from any lesson as usual. Each run of a lesson page writes its page, its link's
  settings and the questions its own numbers answer into the class (``publish``), when they changed. The
  sidebar of every page says "You are teaching class XXXXXX" and holds the class's controls (ask a question
  of this page, the timer, close the answers, reveal; follow, explore or pause the students' screens; show
  the answers on the projector). Class mode's page is the teacher's desk: the roster, the open question's
  answers, the history of the class's questions, the export, closing the class.
- **A student** joins with the code (Enter joins). Their session then follows the teacher inside itself: the
  app applies the class's lesson (page and settings) to the student's own session and draws it, with the
  class's banner on top (no frame, no second session: ``follow``). While a question is open the lesson is
  hidden and the question shown; paused, the screen says to look up front; in explore mode the student may
  change the lesson, and go back to the teacher's.
- **The projector** (``/classmode?projector=CODE``, no key): the code, the join link and its QR code; the open
  question in large type, how many answered, the timer, and the answers when the teacher shows them.

Live updates: each page tells ui/class_watch.py which class it shows and what it saw of it; one thread per
server process reads the watched classes a few times a second and reruns the pages whose class changed (the
whole page of a student, the live part of the teacher's desk and of the projector). A question's timer counts
down in the browser (static/countdown.js).
"""

from __future__ import annotations

import dataclasses
import functools
import html
import io
import ipaddress
import json
import os
import re
import socket
import time
from urllib.parse import urlsplit

import segno
import streamlit as st

from classmode.store import (
    CLASS_CLOSED,
    CODE_ALPHABET,
    MAX_NICKNAME,
    MODES,
    NO_SUCH_CLASS,
    ClassError,
    ClassView,
    Store,
    database_url,
)
from ui import arrival, class_watch, identity, view
from ui import components as ui
from ui.links import (
    PAGE_SETTINGS,
    PRIVATE,
    READER_SETTINGS,
    SETTINGS,
    SHARED_SETTINGS,
    SPECS,
    check_link,
    link,
    read_into_session,
)
from ui.matrix_editor import EDIT_STATE
from ui.navigation import CLASS_PAGE, LESSONS, url_path
from ui.settings import BARE_VISIT, DEFAULT_SENTENCE
from viz import classmode as V
from viz.i18n import N_, bound, decimal, language, listed, nt, sentences, speaking, t
from viz.labels import markdown_text

CODE_CSS = """<style>
.class-code { font-size: clamp(3rem, 12vw, 7rem); font-weight: 700; letter-spacing: .15em; line-height: 1.1;
              font-family: ui-monospace, monospace; }
.class-code.small { font-size: 2.2rem; letter-spacing: .1em; }
.st-key-projector-question p { font-size: 2rem; line-height: 1.3; }
</style>"""
# The projector, read from the back of a room (issue 47): the status, the results and the question's numbers in
# large type, in the theme's own text colours written out (tests/test_classmode_pages.py computes their contrast
# on Streamlit's light and dark backgrounds; a caption's grey was 12 px).
PROJECTOR_TEXT = ("#262730", "#fafafa")  # light theme, dark theme
PROJECTOR_CSS = """<style>
.st-key-projector-status p, .st-key-projector-spread p, .st-key-projector-answer p,
.st-key-projector-numbers p, .st-key-projector-numbers table {
  font-size: 1.75rem; line-height: 1.35; color: light-dark(%s, %s); }
.st-key-projector-status p { font-weight: 600; }
.st-key-projector-numbers [data-testid="stCaptionContainer"] p { font-size: 1.25rem; }
</style>""" % PROJECTOR_TEXT
NOT_FOLLOWED = PRIVATE | {"class", *READER_SETTINGS}  # in a link, not the lesson: keys, ids, the class code and
# the reader's language (a class may hold students in several)
SHARED_KEYS = SHARED_SETTINGS  # the sidebar's: every lesson reads them
# the lessons whose pages offer questions to a class (ui.exercises.offer_to_class), by address; checked against
# every page's sidebar by tests/test_classmode_pages.py (test_only_the_walkthrough_and_multihead_offer_…)
ASKING = {url_path("lessons/walkthrough.py"): N_("the walkthrough"),
          url_path("lessons/multihead.py"): N_("multi-head attention")}  # English: t() translates
QUESTIONS = "_page_questions"  # this run's page's questions (records), set by the page that can ask them
OPEN_STEP = "_page_open_step"  # and the step it has open (None: no steps, or all of them on one page)
MODE_LABELS = {"follow": N_("Follow me"), "explore": N_("Let them explore"), "pause": N_("Eyes up front")}
TIMERS = (30, 60, 120)  # seconds a teacher may give a question
EXTRA_TIMES = (0, 30, 60, 120)  # seconds more a teacher may give one student on every timer
_COUNTDOWN = st.components.v2.component(
    "attention_lab.countdown", js=view.loader("countdown.js", "countdown.css"),
    isolate_styles=False)  # its stylesheet is the page's (a class its own): no shadow root for it to miss


def store() -> Store:
    """The class database the environment names, opened (and migrated) once per server process. If it
    can't be opened, the page says so and stops; the other lessons go on."""
    try:
        return _opened(database_url())
    except Exception as error:  # sqlite3, psycopg and OS errors alike: say it, and keep the app
        st.error("Class mode can't reach its database (" + markdown_text(type(error).__name__) + "). Ask whoever "
                 "runs this server to check ATTENTION_LAB_DATABASE_URL or ATTENTION_LAB_DATA.",
                 icon=":material/database:")
        st.stop()


@st.cache_resource(show_spinner=False, max_entries=4)
def _opened(url: str) -> Store:
    return Store(url)


def lesson_state(page: str, params: dict, questions: list | None = None, open_step: int | None = None) -> dict:
    """What a class follows: a lesson's address and its link's settings (the share link's, so never the
    teacher's key, a student's id or the class code), and the questions that lesson's numbers answer, with the
    step it has open (the desk's list opens on that step's questions)."""
    state = {"page": page, "query": {k: v for k, v in params.items() if k in SPECS and k not in NOT_FOLLOWED}}
    if questions:
        state |= {"questions": questions, "open_step": open_step}
    return state


def lesson_of(state: object) -> tuple[str, dict] | None:
    """The lesson a class's state names: its page and the settings of its link; None if its page is not a lesson.

    Built only from what a shared link may hold: a known page, and the settings that pass the link's own
    checks (a state is read from the database, so it is treated as a link from anyone)."""
    if not isinstance(state, dict):
        return None
    page, query = state.get("page"), state.get("query")
    if not isinstance(page, str) or page not in LESSONS or not isinstance(query, dict):
        return None
    return page, _linkable(query)


def _linkable(query: dict) -> dict:
    """The settings of a stored state that a link may hold (checked as a link from anyone)."""
    settings = {k: v for k, v in query.items()
                if isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v))}
    return {k: v for k, v in settings.items() if k not in check_link(settings) and k not in NOT_FOLLOWED}


def sidebar_settings(params: dict) -> dict:
    """The sidebar's settings in a link (the ones every lesson reads)."""
    return {k: v for k, v in params.items() if k in SHARED_KEYS}


# ---- who is asking --------------------------------------------------------------------------------------

@functools.cache
def trusted_proxies() -> tuple:
    """The proxies whose X-Forwarded-For the server believes (ATTENTION_LAB_TRUSTED_PROXIES: addresses, networks
    such as 10.0.0.0/8, or host names, comma-separated; the loopback addresses when unset: an nginx on this
    machine, as deploy/ runs it)."""
    names = os.environ.get("ATTENTION_LAB_TRUSTED_PROXIES", "127.0.0.1,::1")
    networks = []
    for name in filter(None, (n.strip() for n in names.split(","))):
        try:
            networks.append(ipaddress.ip_network(name, strict=False))
        except ValueError:  # a host name (Compose's "nginx"): its addresses now
            try:
                networks += [ipaddress.ip_network(a) for a in socket.gethostbyname_ex(name)[2]]
            except OSError:
                continue
    return tuple(networks)


def _trusted(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in trusted_proxies())


def client() -> str:
    """The address wrong join codes count against: the browser's. Behind a proxy the server trusts, the last
    address in X-Forwarded-For that is not a trusted proxy (nginx forwards it, deploy/nginx); otherwise the
    connection's own (Streamlit says None for a loopback connection)."""
    peer = str(getattr(st.context, "ip_address", None) or "127.0.0.1")
    if not _trusted(peer):
        return peer
    headers = getattr(st.context, "headers", None) or {}
    hops = [h.strip() for h in str(headers.get("X-Forwarded-For") or "").split(",") if h.strip()]
    for hop in reversed(hops):
        if not _trusted(hop):
            return hop
    return str(headers.get("X-Real-IP") or peer)


def teaching() -> tuple[str, str] | None:
    """(key, code) of the class this browser teaches, when it is still open."""
    held = identity.get("teach")
    if not isinstance(held, dict) or not isinstance(held.get("secret"), str):
        return None
    cached = st.session_state.get("_cm_teaching")
    if cached and cached[0] == held["secret"]:
        return cached
    found = store().teacher_code(held["secret"])
    if found is None or found[1]:  # gone after a day idle, or closed: this browser teaches no class
        st.session_state.pop("_cm_teaching", None)
        return None
    st.session_state["_cm_teaching"] = (held["secret"], found[0])
    return st.session_state["_cm_teaching"]


def closed_taught() -> str | None:
    """The key of the closed class this browser taught, while the class is kept (its export stays reachable from
    any tab of the teacher's browser, after a reload, and from the teacher link, until the class is deleted)."""
    held = identity.get("teach")
    if st.session_state.get("_cm_closed"):
        return st.session_state["_cm_closed"]
    if not isinstance(held, dict) or not isinstance(held.get("secret"), str):
        return None
    found = store().teacher_code(held["secret"])
    return held["secret"] if found is not None and found[1] else None


def student_of() -> str | None:
    """The code of the class this browser joined, when it is still in it (and is not the class's teacher)."""
    code, me = identity.get("class"), identity.browser()
    if not isinstance(code, str) or me is None:
        return None
    if st.session_state.get("_cm_student") == code:
        return code
    if store().nickname(code, me) is None:
        return None
    st.session_state["_cm_student"] = code
    return code


# ---- starting and joining -------------------------------------------------------------------------------

PENDING = "_cm_pending"  # ("start",) or ("join", code, nickname): pressed before this browser had said who it is


def resume_pending() -> None:
    """A Start or a Join pressed before this browser had said who it is (the page's first run, on a busy server: the
    browser's id comes with the run after): done in the first run that knows it, so that the first click counts, with
    what was submitted. Not done if the browser turns out to teach a class or to be in one already (a teacher who
    reloaded and pressed Start early keeps their class). Until then the page says it is waiting."""
    pending = st.session_state.get(PENDING)
    if pending is None:
        return
    if identity.browser() is None:
        st.info(("Starting the class…" if pending[0] == "start" else "Joining the class…") + " (waiting for this "
                "browser to say who it is; if this stays, reload the page)", icon=":material/hourglass_top:")
        return
    del st.session_state[PENDING]
    if teaching() is not None or student_of() is not None:
        return
    if pending[0] == "start":
        start_class()
    else:
        _join(*pending[1:])


def start_class() -> None:
    """The "Start a class" button: a new class, following the lesson the teacher shows now; this browser keeps
    its key."""
    me = identity.browser()
    if me is None:  # pressed in the page's first moments, on a busy server: done once the browser has said it
        st.session_state[PENDING] = ("start",)
        return
    st.session_state.pop(PENDING, None)
    try:
        teacher = store().create_class(lesson_state("", sidebar_settings(link())), browser=me, address=client())
    except ClassError as error:
        st.session_state["_cm_error"] = said_of(error)
        return
    identity.remember(teach={"secret": teacher.secret, "code": teacher.code})
    st.session_state["_cm_teaching"] = (teacher.secret, teacher.code)


def said_of(error: ClassError) -> str:
    """What the store refused, in the reader's language."""
    return t(error.message, **error.fields)


def join_class() -> None:
    """The join form's submit: join with the code typed, keep the class and the nickname in the browser."""
    _join(str(st.session_state.get("cm_code", "")), str(st.session_state.get("cm_nick") or ""))


def code_from(typed: str) -> str:
    """The class code in what a student typed or pasted: spaces out, in capitals, 12 characters at most; from a
    pasted join link (…/classmode?class=K7Q2XM) or any text with "class=" in it, the letters and digits after the
    last "class=" (in any case)."""
    linked = re.findall(r"class=([0-9A-Za-z]+)", typed, flags=re.IGNORECASE)
    return "".join((linked[-1] if linked else typed).split()).upper()[:12]


def _join(typed: str, nickname: str) -> None:
    code = code_from(typed)
    me = identity.browser()
    if not code:
        st.session_state["_cm_error"] = t("Type the code your teacher shows.")
        return
    if me is None:  # as Start's, with what was submitted
        st.session_state[PENDING] = ("join", typed, nickname)
        return
    st.session_state.pop(PENDING, None)
    try:
        store().join(code, me, nickname, client(), browser=me)
    except ClassError as error:
        said = said_of(error)
        if error.message in (NO_SUCH_CLASS, CLASS_CLOSED):  # the code as read (spaces out, capitals, 12 at most)
            said = sentences(said, t("It was read as “{code}”.", code=code))
            if any(c not in CODE_ALPHABET for c in code):  # a look-alike (Cyrillic Х), an invisible or a wide one
                said = sentences(said, t("Class codes use only the digits 2–9 and the letters A–Z without I, L and O."))
        st.session_state["_cm_error"] = said
        return
    identity.remember(**{"class": code, "nick": nickname or identity.get("nick")})
    st.session_state["_cm_student"] = code
    st.session_state.pop("_cm_ended", None)
    st.session_state.pop("_cm_applied", None)  # the class's lesson is applied on the next run


def leave_class() -> None:
    identity.remember(**{"class": None})
    class_watch.forget("student")
    for held in ("_cm_student", "_cm_applied", "_cm_target", "_cm_seen", "_cm_drawing", "_cm_mode", "_cm_extra",
                 "_cm_asked", "_cm_told", "_cm_explored"):
        st.session_state.pop(held, None)


def stop_teaching() -> None:
    """Forget the class in this browser (the class itself goes on until it is closed or idle for a day)."""
    identity.remember(teach=None)
    for held in ("_cm_teaching", "_cm_closed"):
        st.session_state.pop(held, None)


def landing() -> None:
    """Class mode's page for a browser that neither teaches nor is in a class: join first (a phone's student is
    the most common visitor), then teach."""
    store()  # a database it can't reach is named now, not after a click
    st.subheader(t("Join a class"), divider="gray")
    code = st.query_params.get("class", "")
    with st.form("cm_join_form", border=False, enter_to_submit=True):
        # no max_chars on either box: the browser would refuse a longer paste whole (a join link pasted into the
        # code's box gives its code; a nickname's first characters are kept)
        st.text_input(t("Class code"), value=code, key="cm_code", placeholder=t("e.g. {code}", code="K7Q2XM"))
        st.text_input(t("Your nickname (optional; the first {count} characters are kept)", count=MAX_NICKNAME),
                      key="cm_nick",
                      value=identity.get("nick") or "", autocomplete="nickname")  # WCAG 1.3.5: its purpose
        st.form_submit_button(t("Join the class"), type="primary", on_click=join_class, icon=":material/login:",
                              key="cm_join")
    if "_cm_error" in st.session_state:
        st.error(markdown_text(st.session_state.pop("_cm_error")), icon=":material/block:")
    if code:
        return  # a join link: nothing else on a student's screen
    st.subheader(t("Teach"), divider="gray")
    st.markdown(t("Start a class: your students join with a code on their laptops or phones, follow the lesson you "
                  "show and answer your questions; you see the class's answers arrive, then reveal. This browser "
                  "keeps the class's key: keep using it to teach (every page's sidebar has the class's controls)."))
    _loopback_warning(st.context.url or "")
    st.button(t("Start a class"), key="cm_start", on_click=start_class, icon=":material/groups:",
              disabled=st.session_state.get(PENDING) is not None)  # one class a press, pressed early or not


def loopback(base_url: str) -> bool:
    """Whether the page's address is this machine's own (`make run` serves on 127.0.0.1)."""
    host = urlsplit(base_url).hostname or ""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _loopback_warning(base_url: str) -> None:
    """A link to a loopback address opens only on the teacher's own machine: say so before it is projected."""
    if loopback(base_url):
        st.warning(t("This server answers only this computer (its address is 127.0.0.1), so your students can't "
                     "open the join link. Run it for your network (`make run HOST=0.0.0.0`, or deploy/) and open "
                     "it by the computer's network address."), icon=":material/wifi_off:")


def resume_teacher_link() -> None:
    """A teacher's link (?teach=KEY, to go on from another device): this browser keeps the key, and the address
    bar loses it (it must not stay on a projected page)."""
    secret = st.query_params.get("teach")
    if isinstance(secret, str) and store().teacher_code(secret) is not None:
        identity.remember(teach={"secret": secret, "code": store().teacher_code(secret)[0]})
        st.session_state.pop("_cm_teaching", None)
    st.query_params.pop("teach", None)


# ---- the teacher: every page's sidebar ------------------------------------------------------------------

def publish(page: str) -> None:
    """After a run of one of the teacher's lesson pages: that page, its settings and the questions it can ask
    become the class's lesson (written only when they changed)."""
    taught = teaching()
    if taught is None or page not in LESSONS:
        return
    secret, _ = taught
    state = lesson_state(page, link(), st.session_state.get(QUESTIONS), st.session_state.get(OPEN_STEP))
    if state != st.session_state.get("_cm_published"):
        try:
            store().set_state(secret, state)
        except ClassError:  # closed, or gone after a day idle
            st.session_state.pop("_cm_teaching", None)
            return
        except Exception as error:  # the database is out of reach: the lesson goes on, and says so
            st.sidebar.warning(t("Your class can't follow this page: its database is out of reach ({error}).",
                                 error=markdown_text(type(error).__name__)), icon=":material/database:")
            return
        st.session_state["_cm_published"] = state


def adopt(page: str) -> str | None:
    """A teacher's session that has not published yet (a new tab, a reload, the app reopened): before any widget
    is drawn, on its first lesson page, it takes the class's lesson: its settings, and its page when the session
    opened at the app's own address (not a page the teacher named, nor one chosen in this session), so that opening
    the app never publishes its default lesson over the class's (issue 47). A link with lesson settings in its
    address is the teacher's choice: it is published as it stands. Returns the class's page to switch to, or
    None."""
    if page not in LESSONS or st.session_state.get("_cm_adopted") or "_cm_published" in st.session_state:
        return None
    taught = teaching()
    if taught is None:  # not a teacher, or not known yet (the browser reports who it is on the next run)
        return None
    st.session_state["_cm_adopted"] = True
    if any(k in SPECS and k not in NOT_FOLLOWED for k in st.query_params):  # a link: the teacher's lesson
        return None
    lesson = lesson_of(store().teacher_view(taught[0]).state)
    if lesson is None:
        return None
    apply(*lesson)
    opened_here = st.session_state.get("_page", page) == page  # no other page of this session before
    return lesson[0] if page == "" and opened_here else None


def teacher_sidebar(page: str) -> None:
    """Every page's sidebar, in a teacher's browser: which class, and its controls."""
    taught = teaching()
    if taught is None:
        return
    secret, code = taught
    asked = st.session_state.pop(ASKED, None)  # an Ask pressed since the last run (``_ask``): this run's, or nobody's
    try:
        view = store().teacher_view(secret, address=client())  # the class is taught from this network (the limits)
    except ClassError:  # closed since this tab last looked (on the desk in another tab), or gone after a day idle
        st.session_state.pop("_cm_teaching", None)  # (it raised "This class is closed." on the page: the truth audit)
        return
    with st.sidebar.container(border=True, key="cm-teacher-box"):
        st.markdown(t("**You are teaching class {code}**", code=code))
        _teacher_controls(secret, page, view, asked)
        if page != "classmode":
            st.page_link(CLASS_PAGE, label=t("The teacher's desk: roster, answers, export"), icon=":material/groups:")


def _teacher_controls(secret: str, page: str, view: ClassView, asked: tuple | None) -> None:
    if page != "classmode":
        questions, step = st.session_state.get(QUESTIONS), st.session_state.get(OPEN_STEP)
        if asked is not None and asked[0] == page:
            _asked_of_this_lesson(view, questions or [], *asked[1:])
    else:  # the class's stored questions and step: data from anyone
        older, questions, step = V.stored_questions(view.state)
        if older and not questions:  # stored before questions carried their steps and numbers (issue 47)
            lesson = lesson_of(view.state)
            where = t(ASKING.get(lesson[0], N_("its lesson"))) if lesson else t("its lesson")
            st.caption(t("This class's questions were stored by an earlier version of the app, without the numbers "
                         "they ask about. Open {lesson} in this browser: its questions are stored again with them.",
                         lesson=markdown_text(where)))
    if questions:
        chosen = _pick(questions, step)
        # the question is read from the list when the button is pressed, not bound to it as this run drew it: a
        # question picked and asked at once (its run not yet back) asked the one picked before (seen under load)
        st.button(t("Ask the class"), key="cm_ask", on_click=_ask, args=(secret, questions, chosen, page),
                  type="primary", icon=":material/campaign:", width="stretch")
    elif page != "classmode":
        st.caption(t("This lesson has no questions to ask; {lessons} have.", lessons=_asking_names()))
    if view.question is not None and not view.revealed:
        closed = view.answers_closed or _timed_out(view)
        st.caption(t("Question {number} is closed.", number=view.question_no) if closed else
                   t("Question {number} is open.", number=view.question_no))
        left, right = st.columns(2)
        left.button(t("Reveal"), key="cm_reveal", on_click=_act, args=("reveal", secret), icon=":material/visibility:",
                    width="stretch")
        right.button(t("Close answers"), key="cm_close_answers", on_click=_act, args=("close_answers", secret),
                     disabled=closed, width="stretch")
        timer = st.segmented_control(t("Timer"), TIMERS, key="cm_timer", format_func=bound(_seconds),
                                     selection_mode="single", default=None)
        if timer and st.session_state.get("_cm_timer_set") != (view.question_no, timer):
            st.session_state["_cm_timer_set"] = (view.question_no, timer)
            store().set_timer(secret, float(timer))
    # Each shows the class as stored and changes it only when the teacher changes it here (a callback): a value this
    # tab last drew, compared on every run, put back what the teacher's other tab had set (the issue 44 audit)
    st.session_state["cm_mode"], st.session_state["cm_show"] = view.mode, view.show_results
    st.segmented_control(t("Students' screens"), MODES, key="cm_mode",
                         format_func=bound(lambda mode: t(MODE_LABELS[mode])),
                         selection_mode="single", on_change=_chosen, args=("cm_mode", secret))
    st.toggle(t("Show the answers on the projector as they arrive"), key="cm_show", on_change=_chosen,
              args=("cm_show", secret))


def _asking_names(style: str = "and") -> str:
    """The lessons that ask questions, named in the running language: "the walkthrough and multi-head attention"."""
    return listed([t(name) for name in ASKING.values()], style)


def _seconds(seconds: float) -> str:
    """A timer's length as the teacher picks it: "60 s"."""
    return t("{seconds} s", seconds=f"{seconds:.0f}")


def _chosen(key: str, secret: str) -> None:
    """The teacher changed the students' screens' mode (``cm_mode``) or the projector's results (``cm_show``)."""
    value = st.session_state.get(key)
    if key == "cm_mode" and value:
        store().set_mode(secret, value)
    elif key == "cm_show":
        store().show_results(secret, bool(value))


def _pick(questions: list[dict], step: int | None) -> int:
    """The teacher's list (issue 47: it opened on step 3's question on step 7, and cut questions off mid-formula in a
    select box): a radio list of whole questions that opens on the open step's (``V.ask_list``). Returns the index
    of the chosen question."""
    here = step is not None and any(V.step_of(q) == step for q in questions)
    every = here and len(questions) > sum(V.step_of(q) == step for q in questions) and st.toggle(
        t("Every step's questions"), key="cm_every_step",
        help=t("Show the questions of the other steps too, not only step {step}'s.", step=step))
    offered, opens, note = V.ask_list(questions, step, every)
    signature = (step, tuple(q["key"] for q in questions), every)
    if st.session_state.get("_cm_pick_for") != signature:  # another step or lesson: open on its questions again
        st.session_state["_cm_pick_for"] = signature
        st.session_state.pop("cm_pick", None)
    if note:
        st.caption(markdown_text(note))
    several = len({V.step_of(questions[k]) for k in offered}) > 1
    chosen = st.radio(t("A question about this lesson's numbers"), offered, index=offered.index(opens), key="cm_pick",
                      format_func=bound(lambda k: markdown_text(V.ask_label(questions[k], several))))
    return opens if chosen is None or chosen not in offered else chosen


def _ask(secret: str, questions: list[dict], shown: int, page: str = "classmode") -> None:
    """"Ask the class": the question the list holds now (``cm_pick``), or the one it showed (``shown``) when it holds
    none this list offers. ``questions`` are about the lesson as the button's run drew it; the run this click starts
    checks that they still are (``_asked_of_this_lesson``)."""
    picked = st.session_state.get("cm_pick")
    chosen = picked if isinstance(picked, int) and 0 <= picked < len(questions) else shown
    number = store().open_question(secret, questions[chosen])
    st.session_state.pop("cm_timer", None)
    if page != "classmode":
        st.session_state[ASKED] = (page, questions[chosen]["key"], number)


ASKED = "_cm_asked_here"  # (page, key, number) of the question an Ask on a lesson page just asked


def _asked_of_this_lesson(view: ClassView, questions: list[dict], key: str, number: int) -> None:
    """The run after an Ask on this page, once its lesson is drawn and published: the question asked (``key``, as
    ``number``) is one of this run's, or the page's numbers changed in the same run as the click (a sentence typed, a
    block of weights applied, another head opened, then Ask at once: its callback ran with the questions of the
    numbers before). The question stands and the teacher is told, unless this run asks the same question word for
    word and number for number (the seed changed, and a shape question reads no weight)."""
    if any(q["key"] == key for q in questions):
        return
    if view.question_no != number or view.revealed or view.question is None:  # revealed or followed already
        return
    content = {k: v for k, v in view.question.items() if k != "key"}
    if any({k: v for k, v in q.items() if k != "key"} == content for q in questions):
        return
    st.warning(t("The numbers on this page changed as you pressed Ask. Question {number} was made from the numbers "
                 "before the change, and may not match the ones shown now. To ask about these, pick a question and "
                 "ask again.", number=number), icon=":material/info:")


def _act(action: str, secret: str) -> None:
    getattr(store(), action)(secret)


def _timed_out(view: ClassView) -> bool:
    """The timer has ended for the view's reader (a student: with their extra time; the teacher: for every student)."""
    return view.ends is not None and time.time() >= view.ends


# ---- the teacher's desk (class mode's page) -------------------------------------------------------------

def teacher_desk(secret: str, code: str, base_url: str) -> None:
    """The teacher's page: the join code and link, the open question's answers live, the roster, the history
    and the export, closing the class. Holds nothing a projector should show: the projector has its own page."""
    db = store()
    origin = urlsplit(base_url)  # the page's own address: scheme and host, not its path
    join = f"{origin.scheme}://{origin.netloc}/classmode?class={code}"
    projector = f"{origin.scheme}://{origin.netloc}/classmode?projector={code}"
    st.html(CODE_CSS)
    st.markdown(t("**Class {code}** · students join at the link below, or open Class mode and type the code.",
                  code=code))
    st.code(join, language=None)
    _loopback_warning(base_url)
    st.link_button(t("Open the projector view (a new tab: no key on it)"), projector, icon=":material/present_to_all:")
    _teacher_live(secret, code)
    st.subheader(t("The class's questions and answers"), divider="gray")
    questions = db.questions(secret)
    if questions:  # none yet: "Now" says so (issue 47: the desk said "No question asked yet." twice)
        ui.table(V.history_frame(questions, db.all_answers(secret), teacher_zone()), "cm-history", decimals=None)
    _export(secret, code, "cm_csv")
    with st.expander(t("Go on from another device (your teacher link: keep it to yourself)"), icon=":material/key:"):
        st.code(f"{origin.scheme}://{origin.netloc}/classmode?teach={secret}", language=None)
    st.subheader(t("Close the class"), divider="gray")
    sure = st.checkbox(t("Yes, end the class for every student"), key="cm_close_sure")
    st.button(t("Close the class"), key="cm_close", on_click=_close, args=(secret,), disabled=not sure,
              icon=":material/logout:", help=t("Students are told the class has ended; the answers stay for your "
                                               "export until the class is deleted, a day from now."))


def closed_desk(secret: str, base_url: str) -> None:
    """A closed class: its export stays until the class is deleted (in every tab of the teacher's browser, and
    wherever the teacher link is opened)."""
    db = store()
    found = db.teacher_code(secret)
    if found is None:  # deleted since (a day after its last activity)
        stop_teaching()
        st.info(t("This class has been deleted with its answers, a day after its last activity."),
                icon=":material/info:")
        return
    code, _ = found
    origin = urlsplit(base_url)
    st.info(t("Class {code} is closed. Its answers can be downloaded until it is deleted, a day after its last "
              "activity.", code=code), icon=":material/info:")
    _export(secret, code, "cm_csv_closed")
    with st.expander(t("Download them later from another device (your teacher link: keep it to yourself)"),
                     icon=":material/key:"):
        st.code(f"{origin.scheme}://{origin.netloc}/classmode?teach={secret}", language=None)
    st.button(t("Start another class"), key="cm_again", on_click=stop_teaching,
              help=t("This browser then forgets the closed class: download its answers first, or keep its teacher "
                     "link."))


def teacher_zone() -> str | None:
    """The time zone the teacher's browser reports (an IANA name), for the times the desk writes; None before it has
    (the server's clock then)."""
    zone = st.context.timezone
    return zone if isinstance(zone, str) and zone else None


def _export(secret: str, code: str, key: str) -> None:
    """The answers' CSV, built when it is clicked (so it holds the answer sent a second before)."""
    db = store()
    lang, zone = language(), teacher_zone()

    def built() -> str:  # in a later request, maybe outside this session's run: in the language of the page shown
        with speaking(lang):
            return V.answers_csv(db.all_answers(secret), db.questions(secret), db.roster(secret), zone)
    st.download_button(t("Download the class's answers (CSV)"), built, file_name=f"class-{code}.csv",
                       mime="text/csv", key=key, icon=":material/download:", on_click="ignore",
                       help=t("Built when you click: every answer so far, who did not answer, the right answers, each "
                              "student's total."))


def _close(secret: str) -> None:
    store().close(secret)
    st.session_state["_cm_closed"] = secret
    st.session_state.pop("_cm_teaching", None)
    st.session_state.pop("cm_close_sure", None)


@st.fragment(run_every=class_watch.SAFETY)
def _teacher_live(secret: str, code: str) -> None:
    """The open question and the class's answers as they arrive (the teacher always sees them), and the roster.
    Run again by ui/class_watch.py whenever an answer, a student or the question changes."""
    _watch_as_teacher(code, desk=True)
    try:
        view = store().teacher_view(secret)
    except ClassError as error:
        st.info(markdown_text(said_of(error)))
        return
    roster = store().roster(secret)
    joined = len(roster)
    st.subheader(t("Now"), divider="gray")
    if view.question is None:
        st.caption(t("No question asked yet. Ask from the sidebar of {lessons}: the lessons with questions, each about "
                     "its own numbers.", lessons=_asking_names("or")))
    else:
        answers = [a for _, _, a in store().answers(secret, view.question_no)]
        _question_results(view, answers, joined, big=False)  # "k of N students answered"
    if not roster:
        st.caption(t("No student has joined yet."))
        return
    missing = [s.nickname or t("(no nickname)") for s in roster if not s.answered] if view.question else []
    # the class's size once: in the question's count, else here (issue 47: the desk said it twice or three times)
    if missing and not view.revealed:
        st.caption(t("Not answered yet: {students}.", students=markdown_text(listed(missing))))
    elif view.question is None:
        st.caption(nt("{n} student in the class.", "{n} students in the class.", joined))
    with st.expander(t("The roster: who joined, when, and who answered"), icon=":material/group:"):
        ui.table(V.roster_frame(roster, teacher_zone()), "cm-roster", decimals=None)
    _more_time(secret, roster)


def _more_time(secret: str, roster: list) -> None:
    """More time for one student (issue 44): seconds added to every timer of the class for them, from now on."""
    with st.expander(t("More time for a student"), icon=":material/more_time:"):
        st.caption(t("Added to every timer of this class for one student, the open question's too. Their own "
                     "countdown shows it; the projector shows the class's timer."))
        students = {s.id: s for s in roster}
        zone = teacher_zone()
        labels = {s.id: V.student_label(s, k, zone) for k, s in enumerate(roster, start=1)}  # the roster's numbers
        who = st.selectbox(t("Student"), list(students), key="cm_extra_who", index=None,
                           placeholder=t("Choose a student"),
                           format_func=bound(lambda sid: labels.get(sid, t("a student who left the list"))))
        if who in students:
            st.caption(t("Now: {extra}.", extra=V.extra_label(students[who].extra)))
        seconds = st.segmented_control(t("More time on every timer"), EXTRA_TIMES, key="cm_extra_seconds",
                                       format_func=bound(V.extra_label), selection_mode="single", default=None)
        st.button(t("Give this time"), key="cm_extra_give", on_click=_give_time, args=(secret,),
                  disabled=who not in students or seconds is None, icon=":material/more_time:")
    done = st.session_state.pop("_cm_extra_given", None)  # (saved, the app's own words: no nickname in them)
    if done:
        (st.success if done[0] else st.error)(done[1], icon=":material/check_circle:" if done[0] else
                                              ":material/error:")


def _give_time(secret: str) -> None:
    who, seconds = st.session_state.get("cm_extra_who"), st.session_state.get("cm_extra_seconds")
    if who is None or seconds is None:
        return
    try:
        store().give_time(secret, who, float(seconds))
    except ClassError as error:
        st.session_state["_cm_extra_given"] = (False, said_of(error))
        return
    st.session_state["_cm_extra_given"] = (True, t("Saved: {extra} for this student on every timer.",
                                                   extra=V.extra_label(seconds))
                                           if seconds else t("Saved: no extra time for this student."))


def _watch_as_teacher(code: str, *, desk: bool) -> None:
    """Before the fragment reads the class: a change after this read wakes it again. The ``desk`` is woken when the
    last student's time ends (its answers are open until then), the projector when the class's does."""
    pulse = store().pulses([code]).get(code)
    if pulse is not None:
        extra = pulse.most_extra if desk else 0.0
        class_watch.watch(store(), code, "teacher", class_watch.teacher_sees(pulse, extra=extra), extra)


def _time_left(view: ClassView, key: str, big: bool = False) -> None:
    """The question's timer, counting down in the browser (static/countdown.js)."""
    _COUNTDOWN(key=key, data={"left": max(0.0, view.ends - time.time()), "big": big,
                              "texts": {"left": t("{seconds} s left"), "up": t("time is up")}})  # filled in the browser


def _question_results(view: ClassView, answers: list[str], joined: int, *, big: bool, shown: bool = True,
                      answered: int | None = None) -> None:
    """A question, how many answered (``answered``, or the answers' count), the timer, and (``shown``) the answers;
    after the reveal, the answer."""
    q = V.in_language(view.question)  # the teacher's language (the projector's: its reader's)
    text = t("**Question {number}:** {prompt}", number=view.question_no, prompt=markdown_text(q["prompt"]))
    if big:
        with st.container(key="projector-question"):
            st.markdown(text)
            _numbers(q, "projector-numbers", view.state)
    else:
        st.markdown(text)
        _numbers(q, "cm-desk-numbers", view.state)
    # "time is up", not "answers closed", when the timer ended: on the projector (the class's timer) a student given
    # more time may still answer (the issue 44 audit)
    timed = not (view.revealed or view.answers_closed or _timed_out(view)) and bool(view.closes_at)
    state = (t("revealed") if view.revealed else t("answers closed") if view.answers_closed else
             t("time is up") if _timed_out(view) else t("answers close when the timer ends") if timed else t("open"))
    answered = len(answers) if answered is None else answered
    status = nt("{answered} of {n} student answered · {state}.", "{answered} of {n} students answered · {state}.",
                joined, answered=answered, state=state)
    if view.extra and timed and not big:  # the teacher's: the last student's end
        status = sentences(status, t("Students with more time have up to {seconds} s more; the countdown is for the "
                                     "last of them.", seconds=f"{view.extra:.0f}"))
    if big:  # large, in the page's text colour (PROJECTOR_CSS), not a caption's 12 px grey (issue 47)
        with st.container(key="projector-status"):
            st.markdown(status)
            if not (shown or view.revealed):
                st.markdown(t("The answers are hidden until your teacher shows them."))
    else:
        st.caption(status)
    if timed:
        with st.container(key=f"cm-timer{'-big' if big else ''}"):
            _time_left(view, f"cm_countdown{'_big' if big else ''}", big)
    if shown or view.revealed:
        if q["options"] and big:
            ui.chart(V.projector_tally_figure(q, answers, view.revealed), "cm-tally-big")
        elif q["options"]:
            ui.chart(V.tally_figure(q, answers, view.revealed), "cm-tally")
            ui.table(V.tally_frame(q, answers, view.revealed), "cm-tally-table", decimals=None)
        else:
            with st.container(key="projector-spread" if big else None):
                st.markdown(V.spread_text(q, answers, view.revealed))
    if view.revealed:
        with st.container(key="projector-answer" if big else None):
            st.success(V.right_text(q, answers), icon=":material/check_circle:")


def _numbers(q: dict, key: str, state: dict) -> None:
    """The numbers a question asks about, under it (issue 47: while it is open the lesson is hidden, and the
    projector shows only the question): the row of the lesson's table as it showed it, and the same as a sentence
    (the table's text alternative; on a phone, its reading without scrolling sideways). A question asked before
    questions carried their numbers takes them from the class's lesson (``V.shown_for``)."""
    shown = V.shown_for(q, state.get("questions") if isinstance(state, dict) else None)
    if shown is None:
        return
    shown = dataclasses.replace(shown, values=tuple(decimal(v) for v in shown.values))  # as the reader writes them
    with st.container(key=key):
        st.markdown(f"**{markdown_text(shown.title)}**")
        st.markdown(V.numbers_table(shown))
        st.caption(markdown_text(shown.text()))


# ---- the projector -----------------------------------------------------------------------------------------

def projector(code: str, base_url: str) -> None:
    """A page for the projector: no key, nothing a student could not see, large type. The open question comes
    first (at 1280 × 720 it must be in view), the join code under it. Anyone may open it with a code, so the code
    is looked up as a join's is (a wrong one counts against this browser and network), once a session."""
    st.html(CODE_CSS + PROJECTOR_CSS)
    code = code.strip().upper()
    if st.session_state.get("_cm_projector", (None,))[0] != code:
        try:
            found = store().find(code, client(), browser=identity.browser() or "")
        except ClassError as error:
            st.error(markdown_text(said_of(error)), icon=":material/block:")
            return
        st.session_state["_cm_projector"] = (code, found)
    if not st.session_state["_cm_projector"][1]:
        st.error(t("No class has this code."), icon=":material/block:")
        return
    _projector_live(code, base_url)


@st.fragment(run_every=class_watch.SAFETY)
def _projector_live(code: str, base_url: str) -> None:
    """Run again by ui/class_watch.py whenever the question, its answers or what the teacher shows change."""
    _watch_as_teacher(code, desk=False)
    found = store().public_view(code)
    if found is None:
        st.error(t("No class has this code."), icon=":material/block:")
        return
    view, answers, joined, answered = found
    origin = urlsplit(base_url)
    join = f"{origin.scheme}://{origin.netloc}/classmode?class={code}"
    if view.closed:
        st.info(t("This class has ended."), icon=":material/waving_hand:")
        return
    if view.question is not None:
        _question_results(view, answers, joined, big=True, shown=view.show_results, answered=answered)
        joining = t("Join: {code}", code=code)  # not inside the f-string: the catalogs' extractor reads no call there
        st.html(f'<div class="class-code small">{html.escape(joining)}</div>')
        return
    code_column, qr_column = st.columns([3, 2], vertical_alignment="center")
    with code_column:
        st.markdown(t("**Join at** this link, or open Class mode and type the code:"))
        st.html(f'<div class="class-code">{html.escape(code)}</div>')
        st.code(join, language=None)
        st.caption(nt("{n} student joined.", "{n} students joined.", joined))
    with qr_column:
        picture = io.BytesIO()
        segno.make(join, error="m").save(picture, kind="png", scale=8, border=2)
        st.image(picture.getvalue(), caption=t("The join link as a QR code"), width=260)


# ---- a student ------------------------------------------------------------------------------------------------

def follow(code: str) -> str | None:
    """Before a student's page is drawn (app.py calls this before any widget): the class's lesson applied to this
    session whenever it changed (every setting of its link), unless the teacher lets students explore (then only
    when the student asks to go back to the teacher's lesson, and when the teacher ends the exploring). Returns the
    address of the page it shows (app.py switches to it once the pages are known), or None."""
    poll = store().version(code, identity.browser() or "")  # with this student's extra time
    st.session_state["_cm_drawing"] = None if poll is None else class_watch.student_sees(poll)
    st.session_state["_cm_extra"] = 0.0 if poll is None else poll.extra
    # (the sidebar is drawn before the banner: ``following`` and ``exploring`` read what this run found)
    st.session_state["_cm_mode"] = None if poll is None or poll.closed else poll.mode
    if poll is None or poll.closed:
        return None
    lesson = lesson_of(json.loads(poll.state))
    applied = st.session_state.get("_cm_applied")
    if poll.mode == "explore":
        st.session_state["_cm_explored"] = True  # from now on the student's settings may be their own
    elif st.session_state.pop("_cm_explored", False):
        applied = None  # the teacher ended the exploring: back to the class's lesson, not the student's own
    wanted = applied is None or poll.mode != "explore" or st.session_state.pop("_cm_go_back", False)
    if applied != poll.state and wanted and lesson is not None:
        apply(*lesson)
        st.session_state["_cm_applied"] = poll.state
        st.session_state["_cm_target"] = lesson[0]  # until a run gets there (its switch may be cut short)
    return st.session_state.get("_cm_target")


def arrived(page: str) -> None:
    """A student's run is on ``page``: a lesson the class moved to is reached."""
    if st.session_state.get("_cm_target") == page:
        del st.session_state["_cm_target"]


def drawn(code: str) -> None:
    """At the end of a student's run: the page shows the class as ``follow`` read it. Only now is it what the
    page saw (ui/class_watch.py wakes it when that changes): a run cut short by another request leaves the
    page as it was, and the wake is tried again."""
    seen = st.session_state.get("_cm_drawing")
    st.session_state["_cm_seen"] = seen
    if seen is not None:
        class_watch.watch(store(), code, "student", seen, st.session_state.get("_cm_extra", 0.0))


def apply(page: str, query: dict) -> None:
    """The class's lesson (``lesson_of``) into this session: every setting of its page and the sidebar, as its
    link says (a setting the link leaves out goes back to its default). A walkthrough the student is on that
    moves to another step opens it at the top of the page, as the teacher's Next does (ui/arrival.py)."""
    step_before = st.session_state.get("step", 1) if st.session_state.get("_page") == page else None
    # a setting the class's link leaves out is the link's default (the English example), as for any link that names a
    # lesson: not the reader's own language's example, or a Spanish student followed "Este foro es genial" while the
    # teacher's page and questions were on "This forum is awesome" (the truth audit)
    st.session_state[BARE_VISIT] = False
    for key in (*SHARED_SETTINGS, *PAGE_SETTINGS.get(page, ())):
        if key in query:
            read_into_session(key, query[key])
        else:
            st.session_state.pop(SETTINGS[key].key_of(key), None)
    # what is built once from a link: the hand editors' cells and the phonebook's table start again from it
    for held in (EDIT_STATE, "_pb_base", "book"):
        st.session_state.pop(held, None)
    if page == "" and step_before is not None and st.session_state.get("step", 1) != step_before:
        arrival.go(f"step-{st.session_state.get('step', 1)}")


def _go_back() -> None:
    st.session_state["_cm_go_back"] = True
    st.session_state.pop("_cm_applied", None)


def student_banner(code: str) -> bool:
    """Top of a student's page: the class, the open question or the pause. Returns whether the lesson is drawn
    under it (not while a question is open, nor paused)."""
    me = identity.browser() or ""
    view = store().student_view(code, me)
    if view is None or view.closed:
        leave_class()
        st.session_state["_cm_ended"] = code  # said on this session's next pages too, until dismissed
        ended_banner()
        return True
    nickname = store().nickname(code, me) or ""
    st.session_state["_cm_mode"] = view.mode
    with st.container(border=True, key="cm-student-banner"):
        left, right = st.columns([4, 1], vertical_alignment="center")
        said = {"follow": t("your page follows your teacher"), "explore": t("you may explore on your own"),
                "pause": t("paused")}[view.mode]
        left.markdown(t("**Class {code}**", code=code) + (f" · {markdown_text(nickname)}" if nickname else "")
                      + f" · {said}")
        right.button(t("Leave"), key="cm_leave", on_click=leave_class, icon=":material/logout:")
        if view.mode == "explore":
            st.button(t("Back to my teacher's lesson"), key="cm_go_back", on_click=_go_back,
                      icon=":material/u_turn_left:")
        _student_live(code)
    if view.mode == "pause":
        st.info(t("**Eyes up front.** Your teacher has paused the class's screens."), icon=":material/visibility:")
        return False
    if view.question is not None:
        _question(code, view)
        return view.revealed
    return True


def following() -> bool:
    """Whether this run's student follows the class's lesson (an open class, not exploring), as ``follow`` read it."""
    return st.session_state.get("_cm_mode") in ("follow", "pause")


def class_sentence() -> str | None:
    """The sentence of the class's lesson as last applied to this session (the link's default where the link leaves
    it out), or None outside a class."""
    applied = st.session_state.get("_cm_applied")
    lesson = lesson_of(json.loads(applied)) if isinstance(applied, str) else None
    if lesson is None:
        return None
    sentence = lesson[1].get("sentence", DEFAULT_SENTENCE)
    return sentence[-1] if isinstance(sentence, list) else str(sentence)


def exploring() -> bool:
    """Whether this student's teacher lets the class explore (then the sidebar's settings are the student's own), as
    this run's banner read it."""
    return st.session_state.get("_cm_mode") == "explore"


def ended_banner() -> None:
    """Top of a page of a browser whose class has ended: said on every page of the session until the student
    dismisses it or joins a class (a banner drawn once was gone on the next run: leaving the class writes to the
    browser, which runs the page again)."""
    code = st.session_state.get("_cm_ended")
    if not isinstance(code, str):
        return
    with st.container(border=True, key="cm-student-banner"):
        left, right = st.columns([4, 1], vertical_alignment="center")
        left.markdown(t("**Class {code}** · Your teacher has ended this class. Thank you for taking part!",
                        code=markdown_text(code)))
        right.button(t("Dismiss"), key="cm_ended_ok", on_click=lambda: st.session_state.pop("_cm_ended", None),
                     icon=":material/close:")


@st.fragment(run_every=class_watch.SAFETY)
def _student_live(code: str) -> None:
    """In case a wake from ui/class_watch.py is lost: a slow look at the class (one read); when what the page
    shows changed, the page runs again."""
    if not class_watch.fragment_run():  # the page's run: follow() read the class a moment ago, and a change
        return  # since is the watch's to wake (drawn() tells it what this run shows)
    poll = store().version(code, identity.browser() or "")
    seen = st.session_state.get("_cm_seen")  # the page as last drawn whole
    if poll is None or seen is None or class_watch.student_sees(poll) != seen or \
            st.session_state.get("_cm_target"):  # a run cut short before the class's page
        st.rerun(scope="app")


def _question(code: str, view: ClassView) -> None:
    q, number = V.in_language(view.question), view.question_no  # in this student's language
    me = identity.browser() or ""
    with st.container(border=True, key="cm-question"):
        # a heading, and a new question's arrival: at the top of the page with the keyboard's focus, so a screen reader
        # reads it and a page the lesson left scrolled down shows it (the lesson above it is gone while it is open)
        st.subheader(t("Question {number}", number=number), anchor=f"question-{number}")
        if st.session_state.get("_cm_asked") != (code, number):
            st.session_state["_cm_asked"] = (code, number)
            arrival.go(f"question-{number}", gentle=True)
        st.markdown(markdown_text(q["prompt"]))
        _numbers(q, "cm-numbers", view.state)
        mine = store().my_answer(code, me, number)
        if view.revealed:
            if st.session_state.get("_cm_told") != (code, number):  # said once, as the box changes above the reader
                st.session_state["_cm_told"] = (code, number)
                arrival.say(V.revealed_said(q, number, mine))
            why = markdown_text(q.get("explanation", ""))
            said = None if mine is None else markdown_text(V.label_of(q, mine) if q["options"] else decimal(mine))
            if mine is None:
                st.info(sentences(t("**Answer: {answer}**. You did not answer this one.",
                                    answer=markdown_text(V.answer_text(q))), why))
            elif V.is_right(q, mine):
                st.success(sentences(t("Right: you said {answer}.", answer=said), why), icon=":material/check_circle:")
            else:
                st.error(sentences(t("You said {answer}; the answer is {right}.", answer=said,
                                     right=markdown_text(V.answer_text(q))), why), icon=":material/cancel:")
            found = store().public_view(code)  # the class's answers, as the projector shows them after the reveal
            if found is not None and found[0].question_no == number:
                with st.container(key="cm-class-result"):
                    st.markdown(V.class_result_text(q, found[1], found[2]))
            return
        closed = view.answers_closed or _timed_out(view)
        # a refusal is shown once, under the form it refused; a page without the form drops it (the issue 44 audit: it
        # came back under a form a teacher's extra time brought back, "The time is up", while it was not)
        said = st.session_state.pop("_cm_refused", None)
        if view.closes_at and not closed:
            with st.container(key="cm-timer"):
                _time_left(view, "cm_countdown")
        if view.answers_closed:
            st.caption(t("Your teacher has closed the answers; the answer comes next."))
        elif closed:
            st.caption(t("The time is up for this question; the answer comes next."))
        else:
            # One form: the first click or tap on the button, or Enter in the box, sends what is typed or chosen
            # (a button disabled until the box was committed took the first click only to commit it, issue 47)
            with st.form(f"cm_answer_form_{number}", border=False, enter_to_submit=True):
                if q["options"]:
                    st.radio(t("Your answer"), q["options"], key=f"cm_answer_{number}", index=None,
                             format_func=bound(functools.partial(V.label_of, q)))  # sent: the option as stored
                else:
                    st.text_input(t("Your answer, at most two decimals (0.3 or 0,3)"), key=f"cm_answer_{number}",
                                  placeholder=t("e.g. {number}", number=decimal("0.25")))
                st.form_submit_button(t("Send my answer"), key=f"cm_send_{number}", icon=":material/send:",
                                      on_click=_send_answer, args=(code, me, number, q))
            if said is not None and said[0] == number:
                st.warning(markdown_text(said[1]), icon=":material/error:")
        if mine is not None:
            shown = V.label_of(q, mine) if q["options"] else decimal(mine)  # as the reveal writes it: "0,18" in es
            st.success(sentences(t("Received: your answer {answer}.", answer=markdown_text(shown)),
                                 "" if closed else t("You can change it until the answers close.")),
                       icon=":material/check_circle:")


def _send_answer(code: str, me: str, number: int, q: dict) -> None:
    """The answer form's submit (a click, a tap or Enter): the form's value, sent; a refusal is kept for the run to
    show under the form."""
    given = st.session_state.get(f"cm_answer_{number}")
    if q["options"]:
        answer = None if given is None else str(given)
        refusal = t("Choose an answer first.")
    else:
        answer = V.parse_number(str(given or ""))
        refusal = t("Type a number from 0 to 1, such as 0.25 (or 0,25).")
        if answer is not None and not V.in_range(q, answer):
            answer = None
        elif answer is not None and not V.two_decimals(answer):
            answer, refusal = None, t("Type it with at most two decimals, such as 0.25 (or 0,25).")
    if answer is None:
        st.session_state["_cm_refused"] = (number, refusal)
        return
    try:
        store().answer(code, me, number, answer)
    except ClassError as error:
        st.session_state["_cm_refused"] = (number, said_of(error))
