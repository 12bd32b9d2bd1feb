"""Class mode's page flow: start or join a class, the teacher's projector view (code, link, QR code,
questions, the class's answers live, reveal), and a student's view that follows the teacher.

What a class follows is the teacher's lesson as its share link holds it: the page and every setting
in its address (sentence, seed, sizes, step, hand edits…). The teacher's other pages publish it
(``publish``, called by app.py after each run); a student's page shows that lesson in a frame of
its own, opened at the teacher's link, so it starts from exactly those settings as any shared link
does.

Live updates: a small fragment polls the database (every 1.5 s for the teacher, 2 s for a student).
A student's fragment draws the teacher's lesson from what it read, so a new lesson reruns only the
fragment; a new question, the reveal or the class's end reruns the whole page once. So a class of
students waiting costs one query each per poll.
"""

from __future__ import annotations

import html
import io
import json
import secrets
from urllib.parse import urlencode, urlsplit

import segno
import streamlit as st

from attention import trace_self_attention
from classmode.store import MAX_NICKNAME, ClassError, ClassView, Store, database_url
from ui import components as ui
from ui.links import PRIVATE, SHARED_SETTINGS, SPECS, check_link, link
from ui.navigation import CLASS_PAGE, LESSONS
from ui.settings import DEFAULT_SENTENCE, Shared, trace_or_explain
from viz import classmode as V
from viz.exercises import make_questions
from viz.labels import markdown_text

CODE_CSS = """<style>
.class-code { font-size: clamp(3rem, 12vw, 7rem); font-weight: 700; letter-spacing: .15em; line-height: 1.1;
              font-family: ui-monospace, monospace; }
.st-key-cm-lesson iframe { border: 1px solid rgba(128, 128, 128, .4); border-radius: .5rem; }
</style>"""
FRAME_HEIGHT = 720  # px: most of a laptop's or a phone's screen, with the page's own header above
NOT_FOLLOWED = PRIVATE | {"class"}  # in a link, but not the lesson: keys, ids and the class code
SHARED_KEYS = SHARED_SETTINGS  # the sidebar's: every lesson reads them


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


def lesson_state(page: str, params: dict) -> dict:
    """What a class follows: a lesson's address and its link's settings (the share link's, so never the
    teacher's key, a student's id or the class code)."""
    return {"page": page, "query": {k: v for k, v in params.items() if k in SPECS and k not in NOT_FOLLOWED}}


def lesson_url(state: dict, *, embed: bool = False) -> str | None:
    """The lesson a class's state names, as a path with its query; None if its page is not a lesson.

    Built only from what a shared link may hold: a known page, and the settings that pass the link's
    own checks (a state is read from the database, so it is treated as a link from anyone)."""
    page, query = state.get("page"), state.get("query")
    if not isinstance(page, str) or page not in LESSONS or not isinstance(query, dict):
        return None
    settings = {k: v for k, v in query.items()
                if isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v))}
    settings = {k: v for k, v in settings.items() if k not in check_link(settings) and k not in NOT_FOLLOWED}
    text = urlencode(settings, doseq=True)
    if embed:  # Streamlit's own embed: no header or toolbar; follow: the sidebar starts closed (app.py)
        text += ("&" if text else "") + "follow=true&embed=true"
    return "/" + page + ("?" + text if text else "")


def sidebar_settings(params: dict) -> dict:
    """The sidebar's settings in a link (the ones every lesson reads)."""
    return {k: v for k, v in params.items() if k in SHARED_KEYS}


def client() -> str:
    """Who a failed join is counted against: the browser's address as the server sees it."""
    return str(getattr(st.context, "ip_address", None) or "unknown")


# ---- starting and joining -------------------------------------------------------------------------------

def start_class(settings: Shared) -> None:
    """The "Start a class" button: a new class with the teacher's lesson; the page becomes the teacher's."""
    try:  # the class starts on the walkthrough, with the sidebar's settings
        teacher = store().create_class(lesson_state("", sidebar_settings(link())))
    except ClassError as error:
        st.session_state["_cm_error"] = str(error)
        return
    st.query_params["teach"] = teacher.secret


def join_class() -> None:
    code = "".join(st.session_state.get("cm_code", "").split()).upper()[:12]
    if code:
        st.query_params["class"] = code


def landing(settings: Shared) -> None:
    store()  # a database it can't reach is named now, not after "Start a class"
    left, right = st.columns(2, gap="large")
    with left:
        st.subheader("Teach", divider="gray")
        st.markdown("Start a class: your students join with a code on their laptops or phones, follow the "
                    "lesson you show (the page, its step and every setting in its link) and answer your "
                    "questions; you see the class's answers arrive, then reveal. Your page's link is your key to "
                    "the class: keep it to yourself.")
        st.button("Start a class", key="cm_start", type="primary", on_click=start_class, args=(settings,),
                  icon=":material/groups:")
        if "_cm_error" in st.session_state:
            st.error(markdown_text(st.session_state.pop("_cm_error")), icon=":material/block:")
    with right:
        st.subheader("Join", divider="gray")
        st.text_input("Class code", key="cm_code", max_chars=12, placeholder="e.g. K7Q2XM")
        st.button("Join the class", key="cm_join", on_click=join_class, icon=":material/login:")


# ---- the teacher ----------------------------------------------------------------------------------------

def teacher(secret: str, settings: Shared, base_url: str) -> None:
    db = store()
    try:
        view = db.teacher_view(secret)
    except ClassError as error:
        st.session_state.pop("_cm_teaching", None)
        st.error(markdown_text(str(error)), icon=":material/block:")
        st.button("Start a new class", key="cm_restart", on_click=_forget_class, args=("teach",))
        return
    st.session_state["_cm_teaching"] = (secret, view.code)  # this session's lesson pages publish to the class
    trace = trace_or_explain(settings, trace_self_attention)  # a sentence it can't show: the last one that worked
    # the sidebar here changes the sentence and settings of the lesson the class follows, not its page
    state = view.state if lesson_url(view.state) is not None else lesson_state("", {})
    query = {k: v for k, v in state["query"].items() if k not in SHARED_KEYS} | sidebar_settings(link())
    state = lesson_state(state["page"], query)
    if state != view.state:
        db.set_state(secret, state)
    st.session_state["_cm_published"] = state
    origin = urlsplit(base_url)  # the page's own address: scheme and host, not its path
    join = f"{origin.scheme}://{origin.netloc}/classmode?class={view.code}"
    st.html(CODE_CSS)
    code_column, qr_column = st.columns([3, 2], vertical_alignment="center")
    with code_column:
        st.markdown("**Join at** the link below, or open Class mode and type the code:")
        st.html(f'<div class="class-code" aria-label="class code">{html.escape(view.code)}</div>')
        st.code(join, language=None)
    with qr_column:
        picture = io.BytesIO()
        segno.make(join, error="m").save(picture, kind="png", scale=8, border=2)
        st.image(picture.getvalue(), caption="The join link as a QR code", width=260)
    st.caption(f"Students follow your lesson: now “{LESSONS[state['page']]}” with “{markdown_text(trace.sentence)}”, "
               f"seed {settings.seed}. Open any lesson from the menu and their pages follow it (its step and "
               "settings too); “Back to class” in the sidebar brings you here. The link in your address bar is "
               "the teacher's key: do not share it.")

    st.subheader("Ask the class", divider="gray")
    questions = make_questions(trace)
    chosen = st.selectbox("Question", range(len(questions)), key="cm_pick",
                          format_func=lambda k: questions[k].prompt)
    st.button("Ask the class", key="cm_ask", type="primary", on_click=_ask,
              args=(secret, V.question_record(questions[chosen or 0])), icon=":material/campaign:")
    _teacher_live(secret)
    st.divider()
    rows = db.answers(secret)
    st.download_button("Download the class's answers (CSV)", V.answers_csv(rows, db.questions(secret)),
                       file_name=f"class-{view.code}.csv", mime="text/csv", key="cm_csv",
                       icon=":material/download:")
    st.button("Close the class", key="cm_close", on_click=_close, args=(secret,), icon=":material/logout:")


def _students(count: int) -> str:
    return f"{count} student" + ("" if count == 1 else "s")


def _ask(secret: str, question: dict) -> None:
    store().open_question(secret, question)


def _close(secret: str) -> None:
    store().close(secret)
    st.session_state.pop("_cm_teaching", None)


def _reveal(secret: str) -> None:
    store().reveal(secret)


def _forget_class(key: str) -> None:
    st.query_params.pop(key, None)


def publish(page: str) -> None:
    """After a run of one of the teacher's lesson pages: that page and its settings become the class's
    lesson (written only when they changed), and the sidebar leads back to the class."""
    teaching = st.session_state.get("_cm_teaching")
    if teaching is None or page not in LESSONS:
        return
    secret, code = teaching
    state = lesson_state(page, link())
    if state != st.session_state.get("_cm_published"):
        try:
            _opened(database_url()).set_state(secret, state)
        except ClassError:  # closed, or gone after a day idle: this session teaches no class any more
            st.session_state.pop("_cm_teaching", None)
            return
        except Exception as error:  # the database is out of reach: the lesson goes on, and says so
            st.sidebar.warning("Your class can't follow this page: its database is out of reach ("
                               + markdown_text(type(error).__name__) + ").", icon=":material/database:")
            return
        st.session_state["_cm_published"] = state
    # a button, not a link: a link would show the teacher's key on the projector when hovered
    if st.sidebar.button(f"Back to class {code}", key="cm_back", icon=":material/groups:", width="stretch",
                         help="Your students' pages follow the lesson you show here."):
        st.switch_page(CLASS_PAGE, query_params={"teach": secret})


@st.fragment(run_every=1.5)
def _teacher_live(secret: str) -> None:
    """The open question and the class's answers as they arrive (the true answer hidden until the reveal)."""
    try:
        view = store().teacher_view(secret)
    except ClassError as error:
        st.info(markdown_text(str(error)))
        return
    if view.question is None:
        st.caption(f"{_students(store().student_count(secret))} joined. No question asked yet.")
        return
    # the answers before the count: whoever answered had joined, so "answered" never exceeds "joined"
    answers = [a for _, _, a in store().answers(secret, view.question_no)]
    joined = store().student_count(secret)
    q = view.question
    st.markdown(f"**Question {view.question_no}:** {markdown_text(q['prompt'])}")
    st.caption(f"{len(answers)} of {_students(joined)} answered.")
    if q["options"]:
        ui.chart(V.tally_figure(q, answers, view.revealed), "cm-tally")
        ui.table(V.tally_frame(q, answers, view.revealed), "cm-tally-table", decimals=None)
    else:
        st.markdown(V.spread_text(q, answers, view.revealed))
    if view.revealed:
        st.success(V.right_text(q, answers), icon=":material/check_circle:")
    else:
        st.button("Reveal the answer", key="cm_reveal", on_click=_reveal, args=(secret,), icon=":material/visibility:")


# ---- a student --------------------------------------------------------------------------------------------

def student(code: str) -> None:
    # who this student is: in the page's URL, so that a page that reconnects to another replica (its
    # session gone with the old one) is still the same student, with the same answers
    me = st.query_params.get("me") or secrets.token_hex(16)
    if st.query_params.get("me") != me:
        st.query_params["me"] = me
    nickname = st.text_input(f"Your nickname (optional, up to {MAX_NICKNAME} characters)", key="cm_nick",
                             max_chars=MAX_NICKNAME)
    try:
        view = store().join(code, me, nickname or "", client())
    except ClassError as error:
        st.error(markdown_text(str(error)), icon=":material/block:")
        st.button("Try another code", key="cm_other", on_click=_forget_class, args=("class",))
        return
    st.session_state["_cm_seen"] = view.seen  # a new lesson redraws only the fragment that shows it
    if view.closed:
        st.info("Your teacher has closed this class. Thank you for taking part!", icon=":material/waving_hand:")
        return
    _student_live(code)
    if view.question is not None:
        _question(code, me, view)


def _lesson(state: dict, hidden: bool) -> None:
    """The teacher's lesson: its name and sentence, and the page itself in a frame at the teacher's link
    (``hidden`` while a question is open: the lesson's numbers would give the answer away)."""
    st.subheader("Your teacher's lesson", divider="gray")
    url = lesson_url(state)
    if url is None:
        st.warning("Your teacher's lesson can't be shown here; the questions still work.")
        return
    sentence = state["query"].get("sentence", DEFAULT_SENTENCE)
    st.markdown(f"**{LESSONS[state['page']]}** · Sentence: “{markdown_text(str(sentence))}”")
    if hidden:
        st.caption("The lesson is hidden while a question is open; it comes back after the reveal.")
    else:
        st.html(CODE_CSS)
        with st.container(key="cm-lesson"):  # the lesson itself, at the teacher's link: a page of its own
            # a height of its own: the frame's page can't be measured from here (and scrolls inside)
            st.iframe(lesson_url(state, embed=True), height=FRAME_HEIGHT,
                      alt=f"The lesson your teacher shows: {LESSONS[state['page']]}")
    st.caption("It follows your teacher. To try things of your own, open it in a tab of its own; this page "
               "keeps following.")
    st.link_button("Explore this lesson on my own (new tab)", url, icon=":material/open_in_new:")


def _question(code: str, me: str, view: ClassView) -> None:
    q, number = view.question, view.question_no
    st.subheader(f"Question {number}", divider="gray")
    st.markdown(markdown_text(q["prompt"]))
    mine = store().my_answer(code, me, number)
    if view.revealed:
        if mine is None:
            st.info(V.right_text(q, []).split(". Right:")[0] + ". You did not answer this one.")
        elif V.is_right(q, mine):
            st.success(f"Right: you said {markdown_text(mine)}. " + markdown_text(q.get("explanation", "")),
                       icon=":material/check_circle:")
        else:
            answer = q["answer"] if q["options"] else f"{float(q['answer']):.2f}"
            st.error(f"You said {markdown_text(mine)}; the answer is {markdown_text(str(answer))}. "
                     + markdown_text(q.get("explanation", "")), icon=":material/cancel:")
        return
    if q["options"]:
        choice = st.radio("Your answer", q["options"], key=f"cm_answer_{number}", index=None)
    else:
        choice = st.number_input("Your guess, to two decimals", key=f"cm_answer_{number}", value=None,
                                 min_value=-1e6, max_value=1e6, step=0.01, format="%.2f")
    if st.button("Send my answer", key=f"cm_send_{number}", disabled=choice is None, icon=":material/send:"):
        try:
            store().answer(code, me, number, str(choice))
            mine = str(choice)
        except ClassError as error:
            st.warning(markdown_text(str(error)))
    if mine is not None:
        st.caption(f"Your answer: {markdown_text(mine)}. You can change it until your teacher reveals the answer.")


@st.fragment(run_every=2)
def _student_live(code: str) -> None:
    """Polls the class (one read) and draws the teacher's lesson from it: a new lesson reruns only this
    fragment. A new question, the reveal or the class's end (or an expired code) redraws the whole page."""
    poll = store().version(code)
    if poll is None or poll.seen != st.session_state.get("_cm_seen"):
        st.rerun(scope="app")
    st.caption(":material/sync: Following your teacher: this page updates when the lesson or the question changes.")
    _lesson(json.loads(poll.state), hidden=poll.question_no > 0 and not poll.revealed)
