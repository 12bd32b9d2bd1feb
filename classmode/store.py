"""Class mode's storage: classes, their lesson state and open question, and the students' answers, in
a real database. SQLite (the standard library's ``sqlite3``, WAL, one file) by default; PostgreSQL
(psycopg 3) when ``ATTENTION_LAB_DATABASE_URL`` names one, for several replicas sharing a class.

Every query is parameterised: text from a teacher or a student is only ever a parameter. The schema
is versioned; ``MIGRATIONS`` run in order at start-up, each once, recorded in ``schema_version``.

Who may do what is decided here, not on the page: a teacher's action needs the teacher's secret
(≥ 128 bits, stored only as its SHA-256, unrelated to the join code); a join code only lets a student
read the class and answer its open question once (a changed answer replaces the first, until the
reveal).
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import secrets
import sqlite3
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: read off a projector
CODE_LENGTH = 6  # 31⁶ ≈ 887 million codes; failed joins are rate-limited
MAX_NICKNAME = 24
MAX_STUDENTS = 500  # a class
MAX_OPEN_CLASSES = 200  # a database (all replicas)
IDLE_SECONDS = 24 * 3600  # a class idle this long is deleted with its answers
EXPIRY_CHECK = 600.0  # seconds between two looks for idle classes, per process
FAILED_JOINS = 30  # a client's failed joins allowed … (a school behind one address shares them)
FAILED_JOIN_WINDOW = 600.0  # … in this many seconds
ANSWER_INTERVAL = 0.5  # seconds a student waits between two answers
IDLE_CONNECTIONS = 8  # PostgreSQL connections a server keeps open between calls

MIGRATIONS = (
    # 1: classes, their students and answers, failed joins
    """
    CREATE TABLE classes (
        id TEXT PRIMARY KEY,
        code TEXT NOT NULL UNIQUE,
        teacher_hash TEXT NOT NULL UNIQUE,
        state TEXT NOT NULL,
        question TEXT,
        question_no INTEGER NOT NULL,
        revealed INTEGER NOT NULL,
        closed INTEGER NOT NULL,
        touched DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE students (
        class_id TEXT NOT NULL,
        student TEXT NOT NULL,
        nickname TEXT NOT NULL,
        last_answer DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (class_id, student)
    );
    CREATE TABLE answers (
        class_id TEXT NOT NULL,
        question_no INTEGER NOT NULL,
        student TEXT NOT NULL,
        answer TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (class_id, question_no, student)
    );
    CREATE TABLE questions (
        class_id TEXT NOT NULL,
        question_no INTEGER NOT NULL,
        question TEXT NOT NULL,
        PRIMARY KEY (class_id, question_no)
    );
    CREATE TABLE failed_joins (
        client TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX failed_joins_client ON failed_joins (client, at);
    """,
)


class ClassError(Exception):
    """What a teacher or student asked for can't be done; the message says why, for the page."""


@dataclass(frozen=True)
class Teacher:
    code: str  # the join code students type
    secret: str  # the teacher's link holds it; never shown to students


@dataclass(frozen=True)
class ClassView:
    """What a student (and the teacher) sees of a class."""

    code: str
    state: dict  # the lesson the class follows: {"page": its address, "query": its link's settings}
    question: dict | None  # the open question (its answer only after the reveal, for a student)
    question_no: int
    revealed: bool
    closed: bool

    @property
    def seen(self) -> tuple[int, bool, bool]:
        """What a student's poll compares (``Poll.seen``): the question as the page last drew it."""
        return (self.question_no, self.revealed, self.closed)


@dataclass(frozen=True)
class Poll:
    """What a student's page polls (one read): the lesson as stored, and where the question stands."""

    state: str  # JSON, as stored: decoded only by the page that draws it
    question_no: int
    revealed: bool
    closed: bool

    @property
    def seen(self) -> tuple[int, bool, bool]:
        """What changes the student's page as a whole (a new lesson redraws only its frame)."""
        return (self.question_no, self.revealed, self.closed)


def database_url() -> str:
    """``ATTENTION_LAB_DATABASE_URL`` (postgresql://…), or the SQLite file under ``ATTENTION_LAB_DATA``
    (default ./data)."""
    url = os.environ.get("ATTENTION_LAB_DATABASE_URL", "").strip()
    if url:
        return url
    folder = Path(os.environ.get("ATTENTION_LAB_DATA", "data"))
    return f"sqlite:///{folder / 'classes.sqlite3'}"


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class Store:
    """One database. Each call opens its own short transaction (safe across threads and replicas)."""

    def __init__(self, url: str | None = None) -> None:
        self.url = url or database_url()
        self.postgres = self.url.startswith(("postgresql://", "postgres://"))
        self._idle: queue.Queue = queue.LifoQueue(maxsize=IDLE_CONNECTIONS)
        self._expired_at = float("-inf")  # when this process last deleted idle classes
        if not self.postgres:
            path = Path(self.url.removeprefix("sqlite:///"))
            path.parent.mkdir(parents=True, exist_ok=True)
            self.path = path
            db = sqlite3.connect(path, timeout=30, isolation_level=None)
            try:
                db.execute("PRAGMA journal_mode=WAL")  # kept in the file: readers never wait for a writer
            finally:
                db.close()
        self.migrate()

    @contextmanager
    def transaction(self, *, write: bool = True) -> Iterator:
        if self.postgres:
            db = self._borrow()
            try:
                with db.transaction(), db.cursor() as cursor:
                    yield _Cursor(cursor, "%s")
            finally:
                self._give_back(db)
        else:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            try:
                # a writer takes the lock at once (no deadlock between two that read first); readers go on
                db.execute("BEGIN IMMEDIATE" if write else "BEGIN")  # beside it (WAL, set by migrate)
                yield _Cursor(db.cursor(), "?")
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            finally:
                db.close()

    def _borrow(self):
        """An idle PostgreSQL connection, or a new one: opening one costs milliseconds, and every poll of
        every student would pay it. (Streamlit runs each script run in a new thread, so connections are
        pooled here, not kept per thread.)"""
        import psycopg  # only a deployment with PostgreSQL needs it

        while True:
            try:
                db = self._idle.get_nowait()
            except queue.Empty:
                return psycopg.connect(self.url, autocommit=True)
            if not (db.closed or db.broken):
                return db

    def _give_back(self, db) -> None:
        if db.closed or db.broken:  # a server restart: the next call connects again
            return
        try:
            self._idle.put_nowait(db)
        except queue.Full:
            db.close()

    def migrate(self) -> int:
        """Run the migrations not yet run; the schema's version."""
        with self.transaction() as db:
            if self.postgres:  # two replicas starting at once: one migrates, the other waits and finds it done
                db.execute("SELECT pg_advisory_xact_lock(2025112501)")
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = db.one("SELECT MAX(version) FROM schema_version")
            done = row[0] or 0
            for version, script in enumerate(MIGRATIONS[done:], start=done + 1):
                for statement in filter(str.strip, script.split(";")):
                    db.execute(statement)
                db.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))
            return len(MIGRATIONS)

    # ---- the teacher ----------------------------------------------------------------------------------

    def create_class(self, state: dict, now: float | None = None) -> Teacher:
        now = time.time() if now is None else now
        self.expire(now)
        secret = secrets.token_urlsafe(24)  # 192 bits
        with self.transaction() as db:
            if db.one("SELECT COUNT(*) FROM classes WHERE closed = 0")[0] >= MAX_OPEN_CLASSES:
                raise ClassError(f"This server already has {MAX_OPEN_CLASSES} open classes; close one or try "
                                 "again tomorrow (a class ends after a day without activity).")
            for _ in range(20):
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                if db.one("SELECT COUNT(*) FROM classes WHERE code = ?", (code,))[0] == 0:
                    break
            db.execute("INSERT INTO classes (id, code, teacher_hash, state, question, question_no, revealed, closed, "
                       "touched) VALUES (?, ?, ?, ?, NULL, 0, 0, 0, ?)",
                       (uuid.uuid4().hex, code, secret_hash(secret), json.dumps(state), now))
        return Teacher(code, secret)

    def _expire_now_and_then(self, now: float) -> None:
        """Idle classes are deleted at most every EXPIRY_CHECK seconds per process, on any teacher's or
        student's visit (so they go even if nobody starts a new class)."""
        if now - self._expired_at >= EXPIRY_CHECK:
            self.expire(now)

    def _teacher_class(self, db, secret: str, *, closed_too: bool = False) -> tuple:
        row = db.one("SELECT id, code, closed FROM classes WHERE teacher_hash = ?", (secret_hash(secret),))
        if row is None:
            raise ClassError("This teacher link belongs to no class (it ended after a day idle, or the link is "
                             "wrong). Start a new class.")
        if row[2] and not closed_too:
            raise ClassError("This class is closed.")
        return row

    def teacher_view(self, secret: str, now: float | None = None) -> ClassView:
        self._expire_now_and_then(time.time() if now is None else now)
        with self.transaction() as db:
            class_id, *_ = self._teacher_class(db, secret)
            return self._view(db, class_id, teacher=True)

    def set_state(self, secret: str, state: dict, now: float | None = None) -> None:
        """The teacher's lesson state becomes the class's (students following it see it next)."""
        with self.transaction() as db:
            class_id, *_ = self._teacher_class(db, secret)
            db.execute("UPDATE classes SET state = ?, touched = ? WHERE id = ?",
                       (json.dumps(state), time.time() if now is None else now, class_id))

    def open_question(self, secret: str, question: dict) -> int:
        """Ask the class ``question`` (prompt, options, answer, explanation): a new number, answers reset."""
        with self.transaction() as db:
            class_id, *_ = self._teacher_class(db, secret)
            db.execute("UPDATE classes SET question = ?, question_no = question_no + 1, revealed = 0, touched = ? "
                       "WHERE id = ?", (json.dumps(question), time.time(), class_id))
            number = db.one("SELECT question_no FROM classes WHERE id = ?", (class_id,))[0]
            db.execute("INSERT INTO questions (class_id, question_no, question) VALUES (?, ?, ?)",
                       (class_id, number, json.dumps(question)))
            return number

    def questions(self, secret: str) -> dict[int, dict]:
        """Every question the class was asked, by number."""
        with self.transaction() as db:
            class_id, *_ = self._teacher_class(db, secret, closed_too=True)
            return {int(n): json.loads(q) for n, q in
                    db.all("SELECT question_no, question FROM questions WHERE class_id = ?", (class_id,))}

    def reveal(self, secret: str) -> None:
        with self.transaction() as db:
            class_id, *_ = self._teacher_class(db, secret)
            db.execute("UPDATE classes SET revealed = 1, touched = ? WHERE id = ?", (time.time(), class_id))

    def close(self, secret: str) -> None:
        with self.transaction() as db:
            class_id, *_ = self._teacher_class(db, secret)
            db.execute("UPDATE classes SET closed = 1, touched = ? WHERE id = ?", (time.time(), class_id))

    def student_count(self, secret: str) -> int:
        """How many students have joined the class (each counted once, however often they came back)."""
        with self.transaction(write=False) as db:
            class_id, *_ = self._teacher_class(db, secret, closed_too=True)
            return int(db.one("SELECT COUNT(*) FROM students WHERE class_id = ?", (class_id,))[0])

    def answers(self, secret: str, question_no: int | None = None) -> list[tuple[int, str, str]]:
        """(question number, nickname, answer) of every answer in the class (or to one question)."""
        with self.transaction() as db:
            row = self._teacher_class(db, secret, closed_too=True)
            query = ("SELECT a.question_no, s.nickname, a.answer FROM answers a JOIN students s ON "
                     "s.class_id = a.class_id AND s.student = a.student WHERE a.class_id = ?")
            params: tuple = (row[0],)
            if question_no is not None:
                query += " AND a.question_no = ?"
                params += (question_no,)
            return [(int(q), str(n), str(a)) for q, n, a in db.all(query + " ORDER BY a.question_no, a.at", params)]

    # ---- a student ------------------------------------------------------------------------------------

    def join(self, code: str, student: str, nickname: str, client: str, now: float | None = None) -> ClassView:
        """A student joins (or looks again at) the class with this code. ``client`` (an address) counts
        failed joins: after FAILED_JOINS in FAILED_JOIN_WINDOW seconds it is refused for a while."""
        now = time.time() if now is None else now
        self._expire_now_and_then(now)
        nickname = clean_nickname(nickname)
        with self.transaction() as db:
            failed = db.one("SELECT COUNT(*) FROM failed_joins WHERE client = ? AND at > ?",
                            (client, now - FAILED_JOIN_WINDOW))[0]
            if failed >= FAILED_JOINS:
                raise ClassError(f"Too many wrong codes from here; wait {FAILED_JOIN_WINDOW / 60:.0f} minutes and "
                                 "ask your teacher for the code again.")
            row = db.one("SELECT id, closed FROM classes WHERE code = ?", (code.strip().upper(),))
            if row is None:  # counted (committed), then refused
                db.execute("INSERT INTO failed_joins (client, at) VALUES (?, ?)", (client, now))
        if row is None:
            raise ClassError("No class has this code. Check it with your teacher.")
        with self.transaction() as db:
            class_id = row[0]
            known = db.one("SELECT nickname FROM students WHERE class_id = ? AND student = ?", (class_id, student))
            if known is None:
                if db.one("SELECT COUNT(*) FROM students WHERE class_id = ?", (class_id,))[0] >= MAX_STUDENTS:
                    raise ClassError(f"This class is full ({MAX_STUDENTS} students).")
                db.execute("INSERT INTO students (class_id, student, nickname, last_answer) VALUES (?, ?, ?, 0)",
                           (class_id, student, nickname))
            elif known[0] != nickname:
                db.execute("UPDATE students SET nickname = ? WHERE class_id = ? AND student = ?",
                           (nickname, class_id, student))
            return self._view(db, class_id, teacher=False)

    def answer(self, code: str, student: str, question_no: int, answer: str, now: float | None = None) -> None:
        """The student's answer to open question ``question_no`` (a later one replaces it, until the reveal)."""
        now = time.time() if now is None else now
        with self.transaction() as db:
            row = db.one("SELECT id, question_no, revealed, closed, question FROM classes WHERE code = ?", (code,))
            if row is None or row[3]:
                raise ClassError("This class has ended.")
            class_id, open_no, revealed, _, question = row
            if question is None or open_no != question_no:
                raise ClassError("That question is no longer open.")
            if revealed:
                raise ClassError("The answer has been revealed; answers are closed.")
            if answer not in _allowed_answers(json.loads(question)):
                raise ClassError("That is not one of the answers.")
            last = db.one("SELECT last_answer FROM students WHERE class_id = ? AND student = ?", (class_id, student))
            if last is None:
                raise ClassError("Join the class first.")
            if now - last[0] < ANSWER_INTERVAL:
                raise ClassError("One answer at a time: try again in a moment.")
            db.execute("UPDATE students SET last_answer = ? WHERE class_id = ? AND student = ?",
                       (now, class_id, student))
            db.execute("INSERT INTO answers (class_id, question_no, student, answer, at) VALUES (?, ?, ?, ?, ?) "
                       "ON CONFLICT (class_id, question_no, student) DO UPDATE SET answer = excluded.answer, "
                       "at = excluded.at", (class_id, question_no, student, answer, now))
            db.execute("UPDATE classes SET touched = ? WHERE id = ?", (now, class_id))

    def version(self, code: str) -> Poll | None:
        """What a student's page polls, or None for no such class. One read; the page draws itself again
        only when this changes."""
        with self.transaction(write=False) as db:
            row = db.one("SELECT state, question_no, revealed, closed FROM classes WHERE code = ?", (code,))
        return None if row is None else Poll(str(row[0]), int(row[1]), bool(row[2]), bool(row[3]))

    def my_answer(self, code: str, student: str, question_no: int) -> str | None:
        with self.transaction() as db:
            row = db.one("SELECT a.answer FROM answers a JOIN classes c ON c.id = a.class_id WHERE c.code = ? AND "
                         "a.student = ? AND a.question_no = ?", (code, student, question_no))
            return None if row is None else str(row[0])

    # ---- housekeeping ---------------------------------------------------------------------------------

    def expire(self, now: float | None = None) -> int:
        """Delete the classes idle for IDLE_SECONDS, with their students and answers; old failed joins."""
        now = time.time() if now is None else now
        self._expired_at = now
        with self.transaction() as db:
            old = [r[0] for r in db.all("SELECT id FROM classes WHERE touched < ?", (now - IDLE_SECONDS,))]
            for class_id in old:
                db.execute("DELETE FROM answers WHERE class_id = ?", (class_id,))
                db.execute("DELETE FROM questions WHERE class_id = ?", (class_id,))
                db.execute("DELETE FROM students WHERE class_id = ?", (class_id,))
                db.execute("DELETE FROM classes WHERE id = ?", (class_id,))
            db.execute("DELETE FROM failed_joins WHERE at < ?", (now - FAILED_JOIN_WINDOW,))
            return len(old)

    def _view(self, db, class_id: str, *, teacher: bool) -> ClassView:
        code, state, question, number, revealed, closed = db.one(
            "SELECT code, state, question, question_no, revealed, closed FROM classes WHERE id = ?", (class_id,))
        asked = None if question is None else json.loads(question)
        if asked is not None and not teacher and not revealed:
            asked = {k: v for k, v in asked.items() if k not in ("answer", "also", "explanation")}
        return ClassView(code, json.loads(state), asked, int(number), bool(revealed), bool(closed))


def clean_nickname(nickname: str) -> str:
    """A nickname as stored: printable, one line, at most MAX_NICKNAME characters ("" for none)."""
    text = "".join(c if c.isprintable() else " " for c in nickname).strip()
    return text[:MAX_NICKNAME]


def _allowed_answers(question: dict) -> set[str] | _AnyNumber:
    return set(question["options"]) if question.get("options") else _AnyNumber()


class _AnyNumber:
    """A number question accepts any finite number written as text."""

    def __contains__(self, text: object) -> bool:
        try:
            value = float(str(text))
        except ValueError:
            return False
        return value == value and abs(value) != float("inf") and len(str(text)) <= 32


class _Cursor:
    """A DB-API cursor with the store's placeholder (``?``) turned into the driver's."""

    def __init__(self, cursor, placeholder: str) -> None:
        self.cursor, self.placeholder = cursor, placeholder

    def execute(self, query: str, params: tuple = ()) -> None:
        self.cursor.execute(query.replace("?", self.placeholder), params)

    def one(self, query: str, params: tuple = ()):
        self.execute(query, params)
        return self.cursor.fetchone()

    def all(self, query: str, params: tuple = ()) -> list:
        self.execute(query, params)
        return self.cursor.fetchall()
