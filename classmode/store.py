"""Class mode's storage: classes, their lesson state and open question, and the students' answers, in
a real database. SQLite (the standard library's ``sqlite3``, WAL, one file) by default; PostgreSQL
(psycopg 3) when ``ATTENTION_LAB_DATABASE_URL`` names one, for several replicas sharing a class.

Every query is parameterised: text from a teacher or a student is only ever a parameter. The schema
is versioned; ``MIGRATIONS`` run in order at start-up, each once, recorded in ``schema_version``.

Who may do what is decided here, not on the page: a teacher's action needs the teacher's secret
(≥ 128 bits, stored only as its SHA-256, unrelated to the join code); a join code only lets a student
read the class and answer its open question once (a changed answer replaces the first, until the
reveal, until the teacher closes the answers or until the timer runs out).

Guessing codes is slowed without blocking a class (issues 33 and 43). Wrong codes count against the browser
that sent them (30 in ten minutes) and against its network (200 in ten minutes): its address, or for IPv6 its
/48 (one machine may fill its /64 with addresses of its own, and one home line is given a /56 or a /48). The
count and the wrong code it lets through are one step: a lock on the browser and the network while counting
(PostgreSQL's advisory locks; SQLite lets one writer at a time), so requests sent at once, to one replica or
several, never get past the limit. Past either, that browser or network may still join every class taught
from its own network (the networks the class's teacher started it or opened its pages from, the projector's
page too) and no other. So a school is never locked out of its own classes by one prankster's script (the
right code of its own teacher's class joins, whatever wrong codes came before; a student already in a class is
never checked), and a script guessing from one network finds an open class elsewhere with at most 200 tries
in ten minutes among 887 million codes: a closed class is, to a new join, a wrong code. The projector's page
counts a code it does not find the same way (else it would be a second door for guessing). A student is one
browser (an id the browser keeps), not one tab.
"""

from __future__ import annotations

import hashlib
import ipaddress
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
FAILED_JOINS = 30  # a browser's wrong codes allowed …
FAILED_JOINS_ADDRESS = 200  # … and a network's (past them, only the classes taught from their network) …
FAILED_JOIN_WINDOW = 600.0  # … in this many seconds
OPEN_CLASSES_A_BROWSER = 3  # a teacher's browser may keep this many classes open at once …
CLASSES_AN_ADDRESS = 30  # … and an address may start this many in CREATION_WINDOW
CREATION_WINDOW = 3600.0
MODES = ("follow", "explore", "pause")  # students' pages follow the teacher, may explore, or look up front
ANSWER_INTERVAL = 0.5  # seconds a student waits between two answers
IPV6_NETWORK = 48  # an IPv6 address counts as its /48 (a home line's /56 or /48 is one network)
MAX_EXTRA = 600.0  # seconds of extra time a teacher may give one student
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
    # 2 (issue 33): what students may do, the projector's results, a timer, answers closed without a reveal,
    # who started a class, when each question was asked; wrong codes counted per browser too
    """
    ALTER TABLE classes ADD COLUMN mode TEXT NOT NULL DEFAULT 'follow';
    ALTER TABLE classes ADD COLUMN show_results INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE classes ADD COLUMN answers_closed INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE classes ADD COLUMN closes_at DOUBLE PRECISION;
    ALTER TABLE classes ADD COLUMN created_by TEXT NOT NULL DEFAULT '';
    ALTER TABLE classes ADD COLUMN created_from TEXT NOT NULL DEFAULT '';
    ALTER TABLE classes ADD COLUMN created DOUBLE PRECISION NOT NULL DEFAULT 0;
    ALTER TABLE students ADD COLUMN joined DOUBLE PRECISION NOT NULL DEFAULT 0;
    ALTER TABLE questions ADD COLUMN asked DOUBLE PRECISION NOT NULL DEFAULT 0;
    ALTER TABLE failed_joins ADD COLUMN browser TEXT NOT NULL DEFAULT '';
    CREATE INDEX failed_joins_browser ON failed_joins (browser, at)
    """,
    # 3 (issue 43): the networks a class is taught from (where its teacher started it or opened its pages): past
    # the limit on wrong codes, a browser there still joins it
    """
    CREATE TABLE teacher_networks (
        class_id TEXT NOT NULL,
        network TEXT NOT NULL,
        PRIMARY KEY (class_id, network)
    )
    """,
    # 4 (issue 44): more time for one student (seconds added to every timer of the class for them); a count of the
    # changes, so that every student's page looks again (the one given more time redraws its form)
    """
    ALTER TABLE students ADD COLUMN extra DOUBLE PRECISION NOT NULL DEFAULT 0;
    ALTER TABLE classes ADD COLUMN extra_changes INTEGER NOT NULL DEFAULT 0
    """,
)


class ClassError(Exception):
    """What a teacher or student asked for can't be done; the message says why, for the page: ``message`` is English
    with ``{fields}`` (a catalog's message: the page shows it in the reader's language, ``viz.i18n.t``), and
    ``str(error)`` is it in English."""

    def __init__(self, message: str, **fields: object):
        super().__init__(message.format(**fields) if fields else message)
        self.message, self.fields = message, fields

    @staticmethod
    def named(message: str) -> str:
        """A refusal's message named once and raised where it applies (the catalogs' extractor reads it here too)."""
        return message


# a code that joins no open class, in the store's words (the join page says how it read the code after either)
NO_SUCH_CLASS = ClassError.named("No class has this code. Check it with your teacher.")
CLASS_CLOSED = ClassError.named("This class is closed. Ask your teacher for the code of the class they teach now.")


@dataclass(frozen=True)
class Pulse:
    """A class as all its pages show it (one read for many classes: ``Store.pulses``)."""

    poll: Poll  # what a student's page shows
    show_results: bool  # the projector's
    students: int  # the roster's length: the teacher's desk
    answers: int  # every answer to every question, and the time of the latest (a changed answer too)
    last_answer: float | None
    most_extra: float = 0.0  # the most extra time a student has: the desk's answers are open until it ends

def _poll(row, extra: float = 0.0) -> Poll:
    """A Poll from (state, question_no, revealed, closed, mode, answers_closed, closes_at, extra_changes), as the
    queries read them."""
    return Poll(str(row[0]), int(row[1]), bool(row[2]), bool(row[3]), str(row[4]), bool(row[5]),
                None if row[6] is None else float(row[6]), int(row[7]), float(extra))


@dataclass(frozen=True)
class Teacher:
    code: str  # the join code students type
    secret: str  # the teacher's link holds it; never shown to students


@dataclass(frozen=True)
class ClassView:
    """What a student (and the teacher, and the projector) sees of a class."""

    code: str
    state: dict  # the lesson the class follows: {"page": its address, "query": its link's settings, …}
    question: dict | None  # the open question (its answer only after the reveal, for a student)
    question_no: int
    revealed: bool
    closed: bool
    mode: str = "follow"  # "follow", "explore" or "pause" (MODES)
    show_results: bool = False  # the projector shows the answers as they arrive
    answers_closed: bool = False  # the teacher closed the answers (or the timer ran out), not yet revealed
    closes_at: float | None = None  # the timer's end (epoch seconds), or None
    extra_changes: int = 0
    # the student's own extra seconds (``student_view``); the teacher's view: the most any student has (the answers
    # are open until the last of them ends); the projector's: 0 (the class's timer)
    extra: float = 0.0

    @property
    def ends(self) -> float | None:
        """When the timer ends for this view's reader: the class's end plus their extra time (None: no timer)."""
        return None if self.closes_at is None else self.closes_at + self.extra

    @property
    def seen(self) -> tuple:
        """What a student's poll compares (``Poll.seen``): what the page last drew as a whole."""
        return (self.question_no, self.revealed, self.closed, self.mode, self.answers_closed, self.closes_at,
                self.extra_changes)


@dataclass(frozen=True)
class Poll:
    """What a student's page polls (one read): the lesson as stored, and where the question stands."""

    state: str  # JSON, as stored: decoded only by the page that draws it
    question_no: int
    revealed: bool
    closed: bool
    mode: str = "follow"
    answers_closed: bool = False
    closes_at: float | None = None
    extra_changes: int = 0  # how many times the teacher changed a student's extra time
    extra: float = 0.0  # the polling student's extra seconds (``version(code, student)``), else 0

    @property
    def seen(self) -> tuple:
        """What changes the student's page as a whole (a new lesson only reapplies the lesson)."""
        return (self.question_no, self.revealed, self.closed, self.mode, self.answers_closed, self.closes_at,
                self.extra_changes)


@dataclass(frozen=True)
class Student:
    """A student of the class, as the teacher's roster shows them."""

    id: str
    nickname: str
    joined: float
    answered: bool  # answered the open question
    extra: float = 0.0  # seconds added to every timer for them


@dataclass(frozen=True)
class Answer:
    """One answer, as the export writes it."""

    question_no: int
    student: str
    nickname: str
    answer: str
    at: float


def database_url() -> str:
    """``ATTENTION_LAB_DATABASE_URL`` (postgresql://…), or the SQLite file under ``ATTENTION_LAB_DATA``
    (default ./data)."""
    url = os.environ.get("ATTENTION_LAB_DATABASE_URL", "").strip()
    if url:
        return url
    folder = Path(os.environ.get("ATTENTION_LAB_DATA", "data"))
    return f"sqlite:///{folder / 'classes.sqlite3'}"


def network(address: str) -> str:
    """What wrong codes count against, for a browser at ``address``: the address itself (IPv4: a school behind
    one NAT shares it), but an IPv6 address's /48: one machine can fill its /64 with addresses of its own, and
    one home line is given a /56 or a /48 (RIPE-690), 256 /64s or more. An IPv4 address written as IPv6
    (::ffff:a.b.c.d) is that IPv4 address; text that is no address is itself."""
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, IPV6_NETWORK), strict=False))
    return str(ip)


def lock_key(name: str) -> int:
    """A PostgreSQL advisory lock's key (a signed 64-bit integer) for ``name``."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big", signed=True)


CLASSES_LOCK = "classes: the caps on open and new classes"


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

    def create_class(self, state: dict, now: float | None = None, *, browser: str = "", address: str = "") -> Teacher:
        """A new class following ``state``. One browser keeps at most OPEN_CLASSES_A_BROWSER open, one address
        starts at most CLASSES_AN_ADDRESS an hour, the database holds at most MAX_OPEN_CLASSES open: one
        prankster can't fill the server and lock every teacher out."""
        now = time.time() if now is None else now
        address = network(address)
        self.expire(now)
        secret = secrets.token_urlsafe(24)  # 192 bits
        with self.transaction() as db:
            self._lock(db, CLASSES_LOCK)  # two teachers at once: the second counts the first's class
            if db.one("SELECT COUNT(*) FROM classes WHERE closed = 0")[0] >= MAX_OPEN_CLASSES:
                raise ClassError("Class mode is full: this app's class database already holds {count} open "
                                 "classes, counting every server that shares it. Close one of yours, or try again "
                                 "later: a class frees its place when its teacher closes it, or after a day without "
                                 "activity.", count=MAX_OPEN_CLASSES)
            if browser and db.one("SELECT COUNT(*) FROM classes WHERE closed = 0 AND created_by = ?",
                                  (browser,))[0] >= OPEN_CLASSES_A_BROWSER:
                raise ClassError("This browser already has {count} open classes: close one of them (Class mode, "
                                 "“Close the class”) before starting another.", count=OPEN_CLASSES_A_BROWSER)
            if address and db.one("SELECT COUNT(*) FROM classes WHERE created_from = ? AND created > ?",
                                  (address, now - CREATION_WINDOW))[0] >= CLASSES_AN_ADDRESS:
                raise ClassError("{count} classes were started from here in the last hour; wait a "
                                 "while before starting another.", count=CLASSES_AN_ADDRESS)
            for _ in range(20):
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                if db.one("SELECT COUNT(*) FROM classes WHERE code = ?", (code,))[0] == 0:
                    break
            class_id = uuid.uuid4().hex
            db.execute("INSERT INTO classes (id, code, teacher_hash, state, question, question_no, revealed, closed, "
                       "touched, created_by, created_from, created) VALUES (?, ?, ?, ?, NULL, 0, 0, 0, ?, ?, ?, ?)",
                       (class_id, code, secret_hash(secret), json.dumps(state), now, browser, address, now))
            if address:
                db.execute("INSERT INTO teacher_networks (class_id, network) VALUES (?, ?)", (class_id, address))
        return Teacher(code, secret)

    def _lock(self, db, *names: str) -> None:
        """Hold these locks until the transaction ends (PostgreSQL; in ascending order of key, so two transactions
        never wait for each other). SQLite needs none: a writing transaction (``BEGIN IMMEDIATE``) is the only
        writer until it ends."""
        if self.postgres:
            for key in sorted({lock_key(n) for n in names}):
                db.execute("SELECT pg_advisory_xact_lock(?)", (key,))

    def _expire_now_and_then(self, now: float) -> None:
        """Idle classes are deleted at most every EXPIRY_CHECK seconds per process, before any call of the store
        (a teacher's or a student's page, the projector, the pages' polls a few times a second, the export): so
        they go even if nobody starts a new class, and a class idle a day is found by none of them once the server
        looked (at most EXPIRY_CHECK later)."""
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

    def teacher_view(self, secret: str, now: float | None = None, *, address: str = "") -> ClassView:
        """The class as its teacher sees it; ``address``, the teacher's browser's, becomes one of the networks the
        class is taught from (a class started at home the night before is taught from school in the morning)."""
        self._expire_now_and_then(time.time() if now is None else now)
        with self.transaction() as db:
            class_id, *_ = self._teacher_class(db, secret)
            if address:
                db.execute("INSERT INTO teacher_networks (class_id, network) VALUES (?, ?) ON CONFLICT (class_id, "
                           "network) DO NOTHING", (class_id, network(address)))
            most = db.one("SELECT MAX(extra) FROM students WHERE class_id = ?", (class_id,))[0]
            return self._view(db, class_id, teacher=True, extra=float(most or 0))

    def set_state(self, secret: str, state: dict, now: float | None = None) -> None:
        """The teacher's lesson state becomes the class's (students following it see it next)."""
        self._expire_now_and_then(time.time() if now is None else now)
        with self.transaction() as db:
            class_id, *_ = self._teacher_class(db, secret)
            db.execute("UPDATE classes SET state = ?, touched = ? WHERE id = ?",
                       (json.dumps(state), time.time() if now is None else now, class_id))

    def open_question(self, secret: str, question: dict, now: float | None = None) -> int:
        """Ask the class ``question`` (prompt, options, answer, explanation): a new number, answers reset, no
        timer. Asking a question again (re-ask) is a new number too: the earlier answers stay in the history."""
        self._expire_now_and_then(time.time() if now is None else now)
        now = time.time() if now is None else now
        with self.transaction() as db:
            class_id, *_ = self._teacher_class(db, secret)
            db.execute("UPDATE classes SET question = ?, question_no = question_no + 1, revealed = 0, "
                       "answers_closed = 0, closes_at = NULL, touched = ? WHERE id = ?",
                       (json.dumps(question), now, class_id))
            number = db.one("SELECT question_no FROM classes WHERE id = ?", (class_id,))[0]
            db.execute("INSERT INTO questions (class_id, question_no, question, asked) VALUES (?, ?, ?, ?)",
                       (class_id, number, json.dumps(question), now))
            return number

    def close_answers(self, secret: str) -> None:
        """No more answers to the open question, the answer still hidden (the teacher reveals it when ready)."""
        self._set(secret, "answers_closed = 1")

    def set_timer(self, secret: str, seconds: float | None, now: float | None = None) -> None:
        """Answers to the open question close ``seconds`` from now (None: no timer)."""
        self._expire_now_and_then(time.time() if now is None else now)
        now = time.time() if now is None else now
        with self.transaction() as db:
            class_id, *_ = self._teacher_class(db, secret)
            db.execute("UPDATE classes SET closes_at = ?, touched = ? WHERE id = ?",
                       (None if seconds is None else now + seconds, now, class_id))

    def set_mode(self, secret: str, mode: str) -> None:
        """Students' pages follow the teacher, may explore on their own, or are paused ("eyes up front")."""
        self._expire_now_and_then(time.time())
        if mode not in MODES:
            raise ClassError("A class's mode is one of {modes}.", modes=", ".join(MODES))
        with self.transaction() as db:
            class_id, *_ = self._teacher_class(db, secret)
            db.execute("UPDATE classes SET mode = ?, touched = ? WHERE id = ?", (mode, time.time(), class_id))

    def show_results(self, secret: str, show: bool) -> None:
        """Whether the projector shows the class's answers as they arrive (always after the reveal)."""
        self._set(secret, f"show_results = {1 if show else 0}")

    def _set(self, secret: str, assignment: str) -> None:
        """One of the teacher's switches (``assignment`` is the store's own constant SQL, never user text)."""
        self._expire_now_and_then(time.time())
        with self.transaction() as db:
            class_id, *_ = self._teacher_class(db, secret)
            db.execute(f"UPDATE classes SET {assignment}, touched = ? WHERE id = ?", (time.time(), class_id))

    def questions(self, secret: str) -> dict[int, dict]:
        """Every question the class was asked, by number (each with ``asked``, when)."""
        self._expire_now_and_then(time.time())
        with self.transaction() as db:
            class_id, *_ = self._teacher_class(db, secret, closed_too=True)
            return {int(n): {**json.loads(q), "asked": float(at)} for n, q, at in
                    db.all("SELECT question_no, question, asked FROM questions WHERE class_id = ? ORDER BY question_no",
                           (class_id,))}

    def roster(self, secret: str) -> list[Student]:
        """Every student of the class, in the order they joined, and whether they answered the open question."""
        self._expire_now_and_then(time.time())
        with self.transaction(write=False) as db:
            class_id, *_ = self._teacher_class(db, secret, closed_too=True)
            number = db.one("SELECT question_no FROM classes WHERE id = ?", (class_id,))[0]
            rows = db.all("SELECT s.student, s.nickname, s.joined, a.student IS NOT NULL, s.extra FROM students s "
                          "LEFT JOIN answers a ON a.class_id = s.class_id AND a.student = s.student AND "
                          "a.question_no = ? WHERE s.class_id = ? ORDER BY s.joined, s.student", (number, class_id))
            return [Student(str(s), str(n), float(j), bool(a), float(x)) for s, n, j, a, x in rows]

    def give_time(self, secret: str, student: str, seconds: float, now: float | None = None) -> None:
        """``seconds`` more on every timer of the class for one ``student`` (0: none), from now on, the open question
        included; every student's page looks again."""
        if not (isinstance(seconds, int | float) and 0 <= seconds <= MAX_EXTRA):
            raise ClassError("Extra time is 0 to {seconds} seconds.", seconds=round(MAX_EXTRA))
        self._expire_now_and_then(time.time() if now is None else now)
        now = time.time() if now is None else now
        with self.transaction() as db:
            class_id, *_ = self._teacher_class(db, secret)
            if db.one("SELECT 1 FROM students WHERE class_id = ? AND student = ?", (class_id, student)) is None:
                raise ClassError("That student is not in this class.")
            db.execute("UPDATE students SET extra = ? WHERE class_id = ? AND student = ?",
                       (float(seconds), class_id, student))
            db.execute("UPDATE classes SET extra_changes = extra_changes + 1, touched = ? WHERE id = ?",
                       (now, class_id))

    def all_answers(self, secret: str) -> list[Answer]:
        """Every answer of the class, in the order of the questions and of the answers (the export's rows)."""
        self._expire_now_and_then(time.time())
        with self.transaction(write=False) as db:
            class_id, *_ = self._teacher_class(db, secret, closed_too=True)
            rows = db.all("SELECT a.question_no, a.student, s.nickname, a.answer, a.at FROM answers a JOIN students s "
                          "ON s.class_id = a.class_id AND s.student = a.student WHERE a.class_id = ? "
                          "ORDER BY a.question_no, a.at", (class_id,))
            return [Answer(int(q), str(s), str(n), str(a), float(t)) for q, s, n, a, t in rows]

    def reveal(self, secret: str) -> None:
        self._expire_now_and_then(time.time())
        with self.transaction() as db:
            class_id, *_ = self._teacher_class(db, secret)
            db.execute("UPDATE classes SET revealed = 1, touched = ? WHERE id = ?", (time.time(), class_id))

    def close(self, secret: str) -> None:
        """The class ends: students are told, nothing more is asked or answered. Its answers stay for the
        teacher's export until the class is deleted, a day after this."""
        self._expire_now_and_then(time.time())
        with self.transaction() as db:
            class_id, *_ = self._teacher_class(db, secret)
            db.execute("UPDATE classes SET closed = 1, touched = ? WHERE id = ?", (time.time(), class_id))

    def teacher_code(self, secret: str) -> tuple[str, bool] | None:
        """(code, closed) of the class this teacher's key opens, or None: a browser that remembers a key finds
        out whether its class is still there."""
        self._expire_now_and_then(time.time())
        with self.transaction(write=False) as db:
            row = db.one("SELECT code, closed FROM classes WHERE teacher_hash = ?", (secret_hash(secret),))
        return None if row is None else (str(row[0]), bool(row[1]))

    def student_count(self, secret: str) -> int:
        """How many students have joined the class (each counted once, however often they came back)."""
        self._expire_now_and_then(time.time())
        with self.transaction(write=False) as db:
            class_id, *_ = self._teacher_class(db, secret, closed_too=True)
            return int(db.one("SELECT COUNT(*) FROM students WHERE class_id = ?", (class_id,))[0])

    def answers(self, secret: str, question_no: int | None = None) -> list[tuple[int, str, str]]:
        """(question number, nickname, answer) of every answer in the class (or to one question)."""
        self._expire_now_and_then(time.time())
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

    def join(self, code: str, student: str, nickname: str, address: str = "", now: float | None = None, *,
             browser: str = "") -> ClassView:
        """A student joins (or looks again at) the class with this code. A student already in the class is never
        checked; a class taught from the student's network always lets them in. Any other code is checked only
        while ``browser`` and ``address`` are under their limits on wrong codes (``_guessing``), and a wrong one is
        counted against both. ``browser`` defaults to the student's id (which a browser keeps)."""
        now = time.time() if now is None else now
        browser = browser or student
        self._expire_now_and_then(now)
        nickname = clean_nickname(nickname)
        with self.transaction() as db:
            row = db.one("SELECT id, closed FROM classes WHERE code = ?", (code.strip().upper(),))
            known = None if row is None else db.one(
                "SELECT nickname FROM students WHERE class_id = ? AND student = ?", (row[0], student))
            if known is None:  # a new join: is this browser or network guessing? (a closed class: a wrong code)
                found = self._guessing(db, row, address, browser, now)
        if known is None and (found is None or found[1]):
            if row is not None and row[1]:  # counted as a wrong code unless asked from its own network
                raise ClassError(CLASS_CLOSED)
            raise ClassError(NO_SUCH_CLASS)
        with self.transaction() as db:
            class_id = row[0]
            if known is None:
                if db.one("SELECT COUNT(*) FROM students WHERE class_id = ?", (class_id,))[0] >= MAX_STUDENTS:
                    raise ClassError("This class is full ({count} students).", count=MAX_STUDENTS)
                db.execute("INSERT INTO students (class_id, student, nickname, last_answer, joined) VALUES "
                           "(?, ?, ?, 0, ?) ON CONFLICT (class_id, student) DO NOTHING",
                           (class_id, student, nickname, now))
            elif nickname and known[0] != nickname:  # an empty box (a reload) keeps the nickname
                db.execute("UPDATE students SET nickname = ? WHERE class_id = ? AND student = ?",
                           (nickname, class_id, student))
            return self._view(db, class_id, teacher=False)

    def find(self, code: str, address: str, now: float | None = None, *, browser: str = "") -> bool:
        """Whether a class has this code, for the projector's page (anyone may open it with a code): a code it
        does not find is counted, and refused past the limits, as a join's is (``_guessing``)."""
        now = time.time() if now is None else now
        self._expire_now_and_then(now)
        with self.transaction() as db:
            row = db.one("SELECT id, closed FROM classes WHERE code = ?", (code.strip().upper(),))
            row = self._guessing(db, row, address, browser, now)
            # the projector is one of the class's pages: its room's network is one the class is taught from
            if row is not None and not row[1] and address:
                db.execute("INSERT INTO teacher_networks (class_id, network) VALUES (?, ?) ON CONFLICT (class_id, "
                           "network) DO NOTHING", (row[0], network(address)))
            return row is not None

    def _guessing(self, db, row: tuple | None, address: str, browser: str, now: float) -> tuple | None:
        """``row`` (the class a code names, (id, closed), or None), asked for by someone not in it. A class taught
        from the asker's network is theirs whatever wrong codes came from it. Otherwise, past FAILED_JOINS wrong
        codes from ``browser`` or FAILED_JOINS_ADDRESS from the network of ``address`` in FAILED_JOIN_WINDOW
        seconds, the code is not looked at (right or wrong, the same refusal: a guesser learns nothing); a wrong
        one, or a closed class's, is counted (committed with the transaction) and None returned for it (an open
        class's row is returned). The browser and the network are locked while counting, so two requests at once
        can't both find the count under the limit and both add to it."""
        address = network(address)
        if row is not None and address and db.one(
                "SELECT COUNT(*) FROM teacher_networks WHERE class_id = ? AND network = ?", (row[0], address))[0]:
            return row
        self._lock(db, f"wrong codes from browser {browser}", f"wrong codes from network {address}")
        since = now - FAILED_JOIN_WINDOW
        if (browser and db.one("SELECT COUNT(*) FROM failed_joins WHERE browser = ? AND at > ?",
                               (browser, since))[0] >= FAILED_JOINS) or \
                (address and db.one("SELECT COUNT(*) FROM failed_joins WHERE client = ? AND at > ?",
                                    (address, since))[0] >= FAILED_JOINS_ADDRESS):
            raise ClassError("Too many wrong codes from here; wait {minutes} minutes and ask your teacher for the code "
                             "again.", minutes=round(FAILED_JOIN_WINDOW / 60))
        if row is None or row[1]:  # no class, or a closed one: nothing to join, a code a guesser may not count on
            db.execute("INSERT INTO failed_joins (client, at, browser) VALUES (?, ?, ?)", (address, now, browser))
            return None
        return row

    def student_view(self, code: str, student: str) -> ClassView | None:
        """The class as a student who joined it sees it (the answer only after the reveal); None when the code is
        wrong or the student is not in the class. A read: a page that follows the class asks it every run."""
        self._expire_now_and_then(time.time())
        with self.transaction(write=False) as db:
            row = db.one("SELECT c.id, s.extra FROM classes c JOIN students s ON s.class_id = c.id WHERE c.code = ? "
                         "AND s.student = ?", (code.strip().upper(), student))
            return None if row is None else self._view(db, row[0], teacher=False, extra=float(row[1]))

    def nickname(self, code: str, student: str) -> str | None:
        """The nickname a student joined with (None: not in this class)."""
        self._expire_now_and_then(time.time())
        with self.transaction(write=False) as db:
            row = db.one("SELECT s.nickname FROM students s JOIN classes c ON c.id = s.class_id WHERE c.code = ? "
                         "AND s.student = ?", (code.strip().upper(), student))
        return None if row is None else str(row[0])

    def public_view(self, code: str) -> tuple[ClassView, list[str], int, int] | None:
        """What the projector shows (no key needed, nothing secret): the class as a student sees it, the open
        question's answers when the teacher shows them or after the reveal (else none), how many joined, and how
        many answered the open question (counted whether or not the answers are shown)."""
        self._expire_now_and_then(time.time())
        with self.transaction(write=False) as db:
            row = db.one("SELECT id, question_no, revealed, show_results FROM classes WHERE code = ?",
                         (code.strip().upper(),))
            if row is None:
                return None
            class_id, number, revealed, show = row
            view = self._view(db, class_id, teacher=bool(revealed))
            answers = [str(a) for (a,) in db.all("SELECT answer FROM answers WHERE class_id = ? AND question_no = ? "
                                                  "ORDER BY at", (class_id, number))]
            joined = int(db.one("SELECT COUNT(*) FROM students WHERE class_id = ?", (class_id,))[0])
            return view, answers if revealed or show else [], joined, len(answers)

    def answer(self, code: str, student: str, question_no: int, answer: str, now: float | None = None) -> None:
        """The student's answer to open question ``question_no`` (a later one replaces it until the reveal, until the
        teacher closes the answers or until the timer runs out)."""
        self._expire_now_and_then(time.time() if now is None else now)
        now = time.time() if now is None else now
        with self.transaction() as db:
            row = db.one("SELECT c.id, c.question_no, c.revealed, c.closed, c.question, c.answers_closed, c.closes_at, "
                         "s.extra FROM classes c LEFT JOIN students s ON s.class_id = c.id AND s.student = ? "
                         "WHERE c.code = ?", (student, code))
            if row is None or row[3]:
                raise ClassError("This class has ended.")
            class_id, open_no, revealed, _, question, answers_closed, closes_at, extra = row
            closes_at = None if closes_at is None else closes_at + float(extra or 0)  # the student's own end
            if question is None or open_no != question_no:
                raise ClassError("That question is no longer open.")
            if revealed:
                raise ClassError("The answer has been revealed; answers are closed.")
            if answers_closed:
                raise ClassError("Your teacher has closed the answers to this question.")
            if closes_at is not None and now >= closes_at:
                raise ClassError("The time is up for this question.")
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

    def version(self, code: str, student: str = "") -> Poll | None:
        """What a student's page polls (with ``student``'s extra time), or None for no such class. One read; the
        page draws itself again only when this changes."""
        self._expire_now_and_then(time.time())
        with self.transaction(write=False) as db:
            row = db.one("SELECT c.state, c.question_no, c.revealed, c.closed, c.mode, c.answers_closed, c.closes_at, "
                         "c.extra_changes, s.extra FROM classes c LEFT JOIN students s ON s.class_id = c.id AND "
                         "s.student = ? WHERE c.code = ?", (student, code))
        return None if row is None else _poll(row[:8], row[8] or 0.0)

    def pulses(self, codes: list[str]) -> dict[str, Pulse]:
        """What every page of these classes shows, in one read (ui/class_watch.py asks it a few times a second
        for the classes this server's pages show). A class that is gone is left out."""
        self._expire_now_and_then(time.time())
        if not codes:
            return {}
        with self.transaction(write=False) as db:
            rows = db.all("SELECT c.code, c.state, c.question_no, c.revealed, c.closed, c.mode, c.answers_closed, "
                          "c.closes_at, c.extra_changes, c.show_results, "
                          "(SELECT COUNT(*) FROM students s WHERE s.class_id = c.id), "
                          "(SELECT COUNT(*) FROM answers a WHERE a.class_id = c.id), "
                          "(SELECT MAX(a.at) FROM answers a WHERE a.class_id = c.id), "
                          "(SELECT MAX(s.extra) FROM students s WHERE s.class_id = c.id) "
                          f"FROM classes c WHERE c.code IN ({', '.join('?' * len(codes))})", tuple(codes))
        return {str(r[0]): Pulse(_poll(r[1:9]), bool(r[9]), int(r[10]), int(r[11]),
                                 None if r[12] is None else float(r[12]), float(r[13] or 0)) for r in rows}

    def my_answer(self, code: str, student: str, question_no: int) -> str | None:
        self._expire_now_and_then(time.time())
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
                db.execute("DELETE FROM teacher_networks WHERE class_id = ?", (class_id,))
                db.execute("DELETE FROM classes WHERE id = ?", (class_id,))
            db.execute("DELETE FROM failed_joins WHERE at < ?", (now - FAILED_JOIN_WINDOW,))
            return len(old)

    def _view(self, db, class_id: str, *, teacher: bool, extra: float = 0.0) -> ClassView:
        code, state, question, number, revealed, closed, mode, show, answers_closed, closes_at, changes = db.one(
            "SELECT code, state, question, question_no, revealed, closed, mode, show_results, answers_closed, "
            "closes_at, extra_changes FROM classes WHERE id = ?", (class_id,))
        asked = None if question is None else json.loads(question)
        if asked is not None and not teacher and not revealed:
            asked = {k: v for k, v in asked.items() if k not in ("answer", "also", "explanation", "low", "high")}
            if isinstance(asked.get("texts"), dict):  # what a student may read of each language's (not its explanation)
                asked["texts"] = {lang: {k: v for k, v in text.items() if k in ("prompt", "labels", "shown")}
                                  for lang, text in asked["texts"].items() if isinstance(text, dict)}
        return ClassView(code, json.loads(state), asked, int(number), bool(revealed), bool(closed), str(mode),
                         bool(show), bool(answers_closed), None if closes_at is None else float(closes_at),
                         int(changes), extra)


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
