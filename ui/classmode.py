"""Class mode's page flow: start or join a class, the teacher's projector view (code, link, QR code,
questions, the class's answers live, reveal), and a student's view that follows the teacher.

Live updates: a small fragment polls the database (every 1.5 s for the teacher, 2 s for a student) and
draws only a status line; when the class changed (the teacher's lesson, a new question, the reveal),
it reruns the whole page once. So a class of students waiting costs one query each per poll.
"""

from __future__ import annotations

import html
import io
import json
import secrets
from dataclasses import asdict
from urllib.parse import urlencode, urlsplit

import segno
import streamlit as st

from attention import trace_self_attention
from attention.tokens import SentenceError
from classmode.store import MAX_NICKNAME, ClassError, ClassView, Store, database_url
from ui import components as ui
from ui.settings import Shared, trace_or_explain
from viz import classmode as V
from viz import figures as F
from viz import tables as T
from viz.exercises import make_questions
from viz.labels import markdown_text

CODE_CSS = """<style>
.class-code { font-size: clamp(3rem, 12vw, 7rem); font-weight: 700; letter-spacing: .15em; line-height: 1.1;
              font-family: ui-monospace, monospace; }
</style>"""
STATE_KEYS = ("sentence", "seed", "d_model", "positional", "causal")


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


def state_of(settings: Shared) -> dict:
    """The teacher's lesson state that students follow: the shared settings."""
    return {k: v for k, v in asdict(settings).items() if k in STATE_KEYS}


def lesson_link(state: dict) -> str:
    """The walkthrough at the class's state, as a path with its query (the learner's own copy)."""
    query = {"sentence": state["sentence"], "seed": state["seed"], "d_model": state["d_model"],
             "pe": str(state["positional"]).lower(), "causal": str(state["causal"]).lower(), "step": 7}
    return "/?" + urlencode(query)


def client() -> str:
    """Who a failed join is counted against: the browser's address as the server sees it."""
    return str(getattr(st.context, "ip_address", None) or "unknown")


# ---- starting and joining -------------------------------------------------------------------------------

def start_class(settings: Shared) -> None:
    """The "Start a class" button: a new class with the teacher's lesson; the page becomes the teacher's."""
    try:
        teacher = store().create_class(state_of(settings))
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
                    "lesson you show (your sentence and settings in the sidebar) and answer your questions; you "
                    "see the class's answers arrive, then reveal. Your page's link is your key to the class: "
                    "keep it to yourself.")
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
        st.error(markdown_text(str(error)), icon=":material/block:")
        st.button("Start a new class", key="cm_restart", on_click=_forget_class, args=("teach",))
        return
    trace = trace_or_explain(settings, trace_self_attention)  # a sentence it can't show: the last one that worked
    state = {**state_of(settings), "sentence": trace.sentence}
    if state != view.state:  # the teacher changed the sentence or a setting: the class follows
        db.set_state(secret, state)
    origin = urlsplit(base_url)  # the page's own address: scheme and host, not its path
    link = f"{origin.scheme}://{origin.netloc}/classmode?class={view.code}"
    st.html(CODE_CSS)
    code_column, qr_column = st.columns([3, 2], vertical_alignment="center")
    with code_column:
        st.markdown("**Join at** the link below, or open Class mode and type the code:")
        st.html(f'<div class="class-code" aria-label="class code">{html.escape(view.code)}</div>')
        st.code(link, language=None)
    with qr_column:
        picture = io.BytesIO()
        segno.make(link, error="m").save(picture, kind="png", scale=8, border=2)
        st.image(picture.getvalue(), caption="The join link as a QR code", width=260)
    st.caption("Students follow the lesson of your sidebar: sentence, seed, d_model, positions, mask "
               f"(now “{markdown_text(trace.sentence)}”, seed {settings.seed}). The link in your address bar "
               "is the teacher's key: do not share it.")

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


def _ask(secret: str, question: dict) -> None:
    store().open_question(secret, question)


def _close(secret: str) -> None:
    store().close(secret)


def _reveal(secret: str) -> None:
    store().reveal(secret)


def _forget_class(key: str) -> None:
    st.query_params.pop(key, None)


@st.fragment(run_every=1.5)
def _teacher_live(secret: str) -> None:
    """The open question and the class's answers as they arrive (the true answer hidden until the reveal)."""
    try:
        view = store().teacher_view(secret)
    except ClassError as error:
        st.info(markdown_text(str(error)))
        return
    if view.question is None:
        st.caption("No question asked yet.")
        return
    q = view.question
    answers = [a for _, _, a in store().answers(secret, view.question_no)]
    st.markdown(f"**Question {view.question_no}:** {markdown_text(q['prompt'])}")
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
    st.session_state["_cm_seen"] = _version(view)
    _student_live(code, me)
    if view.closed:
        st.info("Your teacher has closed this class. Thank you for taking part!", icon=":material/waving_hand:")
        return
    st.subheader("Your teacher's lesson", divider="gray")
    state = view.state
    st.markdown(f"Sentence: “{markdown_text(str(state.get('sentence', '')))}” · seed {state.get('seed')} · "
                f"d_model {state.get('d_model')}" + (" · causal mask" if state.get("causal") else ""))
    try:
        trace = trace_self_attention(str(state["sentence"]), d_model=int(state["d_model"]), seed=int(state["seed"]),
                                     positional=bool(state["positional"]), causal=bool(state["causal"]))
    except (SentenceError, ValueError, KeyError, TypeError) as error:  # shown as far as it can be
        st.warning(f"This lesson can't be drawn here: {markdown_text(str(error))}")
    else:
        if view.question is None or view.revealed:  # before the reveal, the numbers would give the answer away
            ui.matrix(F.query_key_figure(trace, trace.weights, "α weights", weights=True),
                      T.query_key_frame(trace, trace.weights, weights=True), "cm-weights", names=("query", "key"))
        else:
            st.caption("The attention weights are hidden while a question is open.")
    st.link_button("Explore this lesson on my own (new tab)", lesson_link(state), icon=":material/open_in_new:")
    if view.question is not None:
        _question(code, me, view)


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


def _version(view: ClassView) -> tuple:
    """What the poll compares: the class as this page last drew it."""
    return (view.state, view.question_no, view.revealed, view.closed)


@st.fragment(run_every=2)
def _student_live(code: str, me: str) -> None:
    """Polls the class; when it changed, the whole page is drawn again once (a wrong or expired code
    too: the page then says so)."""
    row = store().version(code)  # one read: joining again (a write) only when the page is drawn again
    if row is None or (json.loads(row[0]), int(row[1]), bool(row[2]), bool(row[3])) != st.session_state.get("_cm_seen"):
        st.rerun(scope="app")
    st.caption(":material/sync: Following your teacher: this page updates when the lesson or the question changes.")
