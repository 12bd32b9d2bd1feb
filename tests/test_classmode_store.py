"""Class mode's storage (issue 24), every test against SQLite and against a real PostgreSQL server that
the tests start (tests/postgres.py): who may do what, one answer a student a question, caps, rate
limits, expiry, migrations, and hostile text kept as data."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from classmode import store as S
from classmode.store import ClassError, Store
from tests.postgres import throwaway_postgres

# The tests' clock: a while before the test runs, so that a class they start is never a day idle when a call without
# a time of its own (the store then looks for idle classes at the real time) deletes the idle ones.
T = time.time() - 10_000.0

QUESTION = {"prompt": "Which key will “forum” attend to most?", "options": ["This", "forum", "is", "awesome"],
            "answer": "is", "also": [], "explanation": "α row 2 is largest at “is” (0.41)."}


@pytest.fixture(scope="module")
def postgres_url():
    with throwaway_postgres() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        return Store(f"sqlite:///{tmp_path / 'classes.sqlite3'}")
    url = request.getfixturevalue("postgres_url")
    db = Store(url)
    with db.transaction() as cursor:  # a clean database for each test
        for table in ("answers", "students", "questions", "classes", "failed_joins", "teacher_networks"):
            cursor.execute(f"DELETE FROM {table}")
    return db


def test_migrations_run_once_and_record_the_schemas_version(store):
    assert store.migrate() == len(S.MIGRATIONS)
    assert Store(store.url).migrate() == len(S.MIGRATIONS)  # a second start finds it done
    with store.transaction() as db:
        assert db.all("SELECT version FROM schema_version ORDER BY version") == [(1,), (2,), (3,), (4,)]


def test_a_database_of_the_first_schema_is_migrated_with_its_classes(tmp_path):
    """A server upgraded in the middle of a class: the version-1 database gets the new columns, its class keeps
    its code, students and answers, and follows on with defaults (students follow, results hidden)."""
    import sqlite3

    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        for statement in filter(str.strip, S.MIGRATIONS[0].split(";")):
            db.execute(statement)
        db.execute("INSERT INTO schema_version VALUES (1)")
        db.execute("INSERT INTO classes VALUES ('c1', 'ABCDEF', ?, '{}', NULL, 0, 0, 0, ?)",
                   (S.secret_hash("k" * 32), T + 1000.0))
        db.execute("INSERT INTO students VALUES ('c1', 's1', 'Ann', 0)")
    store = Store(f"sqlite:///{path}")
    view = store.teacher_view("k" * 32, now=T + 1000.0)
    assert (view.code, view.mode, view.show_results, view.answers_closed) == ("ABCDEF", "follow", False, False)
    assert [s.nickname for s in store.roster("k" * 32)] == ["Ann"]


def test_a_class_has_a_short_code_and_a_long_secret_unrelated_to_it(store):
    teachers = [store.create_class({"sentence": "This forum is awesome"}) for _ in range(20)]
    for t in teachers:
        assert len(t.code) == S.CODE_LENGTH and set(t.code) <= set(S.CODE_ALPHABET)
        assert len(t.secret) >= 32 and t.code not in t.secret  # 24 random bytes: 192 bits
    assert len({t.code for t in teachers}) == len({t.secret for t in teachers}) == 20
    with store.transaction() as db:  # the secret itself is never stored
        stored = {r[0] for r in db.all("SELECT teacher_hash FROM classes")}
    assert not stored & {t.secret for t in teachers}


def test_only_the_teachers_secret_changes_the_class(store):
    t = store.create_class({"sentence": "a"})
    for wrong in ("", t.code, t.secret[:-1] + ("A" if t.secret[-1] != "A" else "B"), "' OR '1'='1"):
        for act in (lambda s: store.set_state(s, {"sentence": "b"}), lambda s: store.open_question(s, QUESTION),
                    store.reveal, store.close, store.answers):
            with pytest.raises(ClassError, match="no class"):
                act(wrong)
    store.set_state(t.secret, {"sentence": "b"})
    assert store.join(t.code, "s1", "", "1.2.3.4").state == {"sentence": "b"}


def test_a_student_answers_once_and_a_change_of_mind_replaces_it_until_the_reveal(store):
    t = store.create_class({})
    view = store.join(t.code, "s1", "Ann", "ip")
    assert view.question is None
    number = store.open_question(t.secret, QUESTION)
    view = store.join(t.code, "s1", "Ann", "ip")
    assert view.question_no == number and "answer" not in view.question and "explanation" not in view.question
    store.answer(t.code, "s1", number, "forum", now=100.0)
    store.answer(t.code, "s1", number, "is", now=101.0)
    store.join(t.code, "s2", "", "ip")
    store.answer(t.code, "s2", number, "This", now=100.0)
    assert store.answers(t.secret) == [(1, "", "This"), (1, "Ann", "is")]
    assert {n: {k: v for k, v in q.items() if k != "asked"} for n, q in store.questions(t.secret).items()} == \
        {1: QUESTION}
    store.reveal(t.secret)
    with pytest.raises(ClassError, match="revealed"):
        store.answer(t.code, "s1", number, "forum", now=200.0)
    assert store.join(t.code, "s1", "Ann", "ip").question["answer"] == "is"  # after the reveal, the answer
    assert store.my_answer(t.code, "s1", number) == "is"


def test_answers_to_a_closed_question_or_not_among_the_options_are_refused(store):
    t = store.create_class({})
    store.join(t.code, "s1", "", "ip")
    first = store.open_question(t.secret, QUESTION)
    second = store.open_question(t.secret, {**QUESTION, "prompt": "again"})
    with pytest.raises(ClassError, match="no longer open"):
        store.answer(t.code, "s1", first, "is")
    with pytest.raises(ClassError, match="not one of the answers"):
        store.answer(t.code, "s1", second, "<b>bold</b>")
    with pytest.raises(ClassError, match="Join the class first"):
        store.answer(t.code, "nobody", second, "is")
    number = store.open_question(t.secret, {"prompt": "α₂₃ to two decimals?", "options": [], "answer": 0.41,
                                            "explanation": ""})
    for bad in ("nan", "inf", "1e999", "x", "1" * 40):
        with pytest.raises(ClassError, match="not one of the answers"):
            store.answer(t.code, "s1", number, bad, now=T + 1000.0)
    store.answer(t.code, "s1", number, "0.4", now=T + 1000.0)


def test_one_answer_at_a_time(store):
    t = store.create_class({})
    store.join(t.code, "s1", "", "ip")
    number = store.open_question(t.secret, QUESTION)
    store.answer(t.code, "s1", number, "is", now=10.0)
    with pytest.raises(ClassError, match="One answer at a time"):
        store.answer(t.code, "s1", number, "forum", now=10.2)
    store.answer(t.code, "s1", number, "forum", now=10.6)


def test_a_pranksters_wrong_codes_keep_no_one_out_of_a_class_taught_from_their_network(store):
    """Issue 33: thirty wrong codes from one address blocked that address for ten minutes, and every student
    behind it (a school is one address) was thrown out at the next question. Issue 43: the fix still refused the
    right code of a new student, or of the guessing browser itself, once its browser (30) or its address (1,000)
    had sent enough wrong codes. Now a class taught from the network always lets its students in, whatever wrong
    codes came before; only a class taught elsewhere is out of the guesser's reach until the window has passed."""
    school, home = "10.0.0.1", "192.0.2.7"
    t = store.create_class({}, browser="teacher", address=school)  # started in the classroom
    away = store.create_class({}, browser="colleague", address=home)  # another teacher's class, taught elsewhere
    store.join(t.code, "ann", "Ann", school, now=T + 1000.0)  # in the class before the prankster starts
    for k in range(S.FAILED_JOINS):
        with pytest.raises(ClassError, match="No class has this code"):
            store.join("ZZZZZZ", "prankster", "", school, now=T + 1000.0 + k)
    with pytest.raises(ClassError, match="Too many wrong codes"):
        store.join("ZZZZZY", "prankster", "", school, now=T + 1100.0)  # the guesser's next wrong code waits
    with pytest.raises(ClassError, match="Too many wrong codes"):
        store.join(away.code, "prankster", "", school, now=T + 1100.0)  # and a class elsewhere is not looked at
    assert store.join(t.code, "prankster", "", school, now=T + 1100.0).code == t.code  # its own class: it joins
    assert store.join(t.code, "ann", "", school, now=T + 1100.0).code == t.code  # a joined student: never checked
    assert store.join(t.code, "bob", "Bob", school, now=T + 1100.0).code == t.code  # a classmate, same address
    assert store.join(away.code, "prankster", "", school, now=T + 1000.0 + S.FAILED_JOIN_WINDOW + 40).code == away.code


def test_a_thousand_wrong_codes_from_a_school_keep_no_new_student_out_and_stop_the_guesser(store):
    """Issue 43: after 1,000 wrong codes from one address (a script with a new browser id each time) the right
    code of a student arriving after them was refused for ten minutes: one prankster blocked a school. Now the
    student joins; the script, past FAILED_JOINS_ADDRESS, can't look at a class taught from another network."""
    school = "203.0.113.5"
    t = store.create_class({}, browser="teacher", address=school)
    elsewhere = store.create_class({}, browser="colleague", address="198.51.100.9")
    for k in range(1000):
        with pytest.raises(ClassError, match=r"No class has this code|Too many wrong codes"):
            store.join(f"ZZ{k:04d}", f"bot{k}", "", school, now=T + 1000.0 + k * 0.1)
    assert store.join(t.code, "late-student", "Lee", school, now=T + 1200.0).code == t.code
    assert store.join(t.code, "bot999", "", school, now=T + 1200.0).code == t.code  # the right code joins, whoever
    with pytest.raises(ClassError, match="Too many wrong codes"):
        store.join(elsewhere.code, "bot-new", "", school, now=T + 1200.0)
    assert store.join(elsewhere.code, "far", "", "198.51.100.10", now=T + 1200.0).code == elsewhere.code
    with store.transaction() as db:  # the script was stopped at the limit: its later codes were never looked at
        assert db.one("SELECT COUNT(*) FROM failed_joins WHERE client = ?", (school,))[0] == S.FAILED_JOINS_ADDRESS


@pytest.mark.parametrize("wrong_browser, wrong_address", [
    (0, 0), (1, 0), (S.FAILED_JOINS, 0), (0, S.FAILED_JOINS_ADDRESS), (S.FAILED_JOINS, 3 * S.FAILED_JOINS)])
def test_a_right_code_from_its_classs_network_joins_whatever_wrong_codes_came_before(store, wrong_browser,
                                                                                      wrong_address):
    """Wrong codes from this browser, then from others at its address, in any number: the right code joins."""
    t = store.create_class({}, browser="teacher", address="10.9.8.7")
    now = 5000.0
    for k in range(wrong_browser):
        with pytest.raises(ClassError):
            store.join(f"Z{k:05d}", "me", "", "10.9.8.7", now=now)
    for k in range(wrong_address):
        with pytest.raises(ClassError):
            store.join(f"Y{k:05d}", f"other{k}", "", "10.9.8.7", now=now)
    assert store.join(t.code, "me", "Me", "10.9.8.7", now=now).code == t.code


def test_a_guesser_elsewhere_is_slowed_to_its_limits_whatever_the_browser_ids(store):
    """The per-browser limit stops a browser; a script that sends a new id with every code is stopped by its
    address's limit; an IPv6 machine that sends every code from a new address of its /64 is stopped there too
    (one machine may hold the whole /64), and so is every /64 of its /48 (one home line may hold a /48); the
    window's end frees it."""
    target = store.create_class({}, browser="teacher", address="198.51.100.1")
    for k in range(S.FAILED_JOINS):
        with pytest.raises(ClassError, match="No class has this code"):
            store.join(f"X{k:05d}", "guesser", "", "192.0.2.50", now=T + 2000.0)
    with pytest.raises(ClassError, match="Too many wrong codes"):
        store.join(target.code, "guesser", "", "192.0.2.50", now=T + 2000.0)  # its right guess is not looked at
    for k in range(S.FAILED_JOINS_ADDRESS):
        with pytest.raises(ClassError, match="No class has this code"):
            store.join(f"W{k:05d}", f"id{k}", "", f"2001:db8:1:2::{k + 1:x}", now=T + 2000.0)
    with pytest.raises(ClassError, match="Too many wrong codes"):
        store.join(target.code, "id-new", "", "2001:db8:1:2:ffff::1", now=T + 2000.0)
    with pytest.raises(ClassError, match="Too many wrong codes"):  # another /64 of the same /48: one home line
        store.join(target.code, "id-next", "", "2001:db8:1:3::1", now=T + 2000.0)
    assert store.join(target.code, "neighbour", "", "2001:db8:2::1", now=T + 2000.0).code == target.code  # next /48
    assert store.join(target.code, "guesser", "", "192.0.2.50",
                      now=T + 2000.0 + S.FAILED_JOIN_WINDOW + 1).code == target.code


def test_a_class_started_at_home_is_taught_from_school_once_its_teacher_opens_it_there(store):
    """The networks a class is taught from: where it was started, and every network its teacher's pages ran on
    (the sidebar passes the teacher's address to teacher_view)."""
    t = store.create_class({}, browser="teacher", address="192.0.2.7")  # at home, the night before
    for k in range(S.FAILED_JOINS_ADDRESS):
        with pytest.raises(ClassError):
            store.join(f"V{k:05d}", f"bot{k}", "", "203.0.113.8", now=T + 3000.0)
    with pytest.raises(ClassError, match="Too many wrong codes"):
        store.join(t.code, "pupil", "", "203.0.113.8", now=T + 3000.0)
    store.teacher_view(t.secret, now=T + 3000.0, address="203.0.113.8")  # the teacher's laptop in the classroom
    assert store.join(t.code, "pupil", "", "203.0.113.8", now=T + 3000.0).code == t.code


def test_the_projectors_page_counts_a_code_it_does_not_find_as_a_join_does(store):
    """The projector (/classmode?projector=CODE) needs no key: without the limit it was a door for guessing that
    no wrong-code count watched."""
    t = store.create_class({}, browser="teacher", address="10.1.1.1")
    elsewhere = store.create_class({}, browser="colleague", address="10.2.2.2")
    assert store.find(t.code, "10.3.3.3", now=T + 4000.0) and not store.find("ZZZZZZ", "10.3.3.3", now=T + 4000.0)
    for k in range(S.FAILED_JOINS_ADDRESS - 1):
        assert not store.find(f"U{k:05d}", "10.3.3.3", now=T + 4000.0)
    with pytest.raises(ClassError, match="Too many wrong codes"):
        store.find(elsewhere.code, "10.3.3.3", now=T + 4000.0)
    with pytest.raises(ClassError, match="Too many wrong codes"):
        store.join(elsewhere.code, "s", "", "10.3.3.3", now=T + 4000.0)  # one count for the page and the join
    assert store.find(t.code, "10.1.1.1", now=T + 4000.0)  # the teacher's own projector, in the classroom


def test_wrong_codes_count_against_a_network(store):
    assert [S.network(a) for a in ("10.0.0.1", " 10.0.0.1", "2001:db8:1:2:3:4:5:6", "2001:DB8:1:2::9",
                                   "::ffff:192.0.2.1", "127.0.0.1", "ip", "")] == [
        "10.0.0.1", "10.0.0.1", "2001:db8:1::/48", "2001:db8:1::/48", "192.0.2.1", "127.0.0.1", "ip", ""]


def test_a_reload_keeps_the_nickname_and_one_browser_is_one_student(store):
    t = store.create_class({})
    store.join(t.code, "ann-browser", "Ann", "ip", now=T + 1000.0)
    store.join(t.code, "ann-browser", "", "ip", now=T + 1001.0)  # a reload: the box is empty
    store.join(t.code, "ann-browser", "", "ip", now=T + 1002.0)  # a second tab of the same browser
    assert [(s.id, s.nickname) for s in store.roster(t.secret)] == [("ann-browser", "Ann")]
    assert store.nickname(t.code, "ann-browser") == "Ann" and store.nickname(t.code, "nobody") is None


def test_one_browser_or_address_cannot_fill_the_server_with_classes(store, monkeypatch):
    """Issue 33: one browser opened 200 classes (the server's cap) in a minute and blocked every teacher."""
    for _ in range(S.OPEN_CLASSES_A_BROWSER):
        store.create_class({}, browser="teacher", address="10.0.0.1")
    with pytest.raises(ClassError, match="already has 3 open classes"):
        store.create_class({}, browser="teacher", address="10.0.0.1")
    store.create_class({}, browser="colleague", address="10.0.0.1")  # another teacher at the same school
    monkeypatch.setattr(S, "CLASSES_AN_ADDRESS", S.OPEN_CLASSES_A_BROWSER + 1)
    with pytest.raises(ClassError, match="classes were started from here"):
        store.create_class({}, browser="third", address="10.0.0.1")


def test_a_full_class_and_too_many_classes_are_refused_with_a_message(store, monkeypatch):
    monkeypatch.setattr(S, "MAX_STUDENTS", 3)
    monkeypatch.setattr(S, "MAX_OPEN_CLASSES", 2)
    t = store.create_class({})
    for k in range(3):
        store.join(t.code, f"s{k}", "", "ip")
    with pytest.raises(ClassError, match="full"):
        store.join(t.code, "s9", "", "ip")
    store.join(t.code, "s1", "again", "ip")  # a student already in may come back
    store.create_class({})
    with pytest.raises(ClassError, match="already holds 2 open classes"):
        store.create_class({})
    store.close(t.secret)
    store.create_class({})  # a closed class no longer counts


def test_the_cap_on_open_classes_is_the_databases_and_its_message_says_so(store, monkeypatch):
    """Issue 43: "This server already has 200 open classes", said on a replica that had started none of them: the
    cap counts every class in the database the replicas share. The message now names the database, and the
    number is the cap's."""
    monkeypatch.setattr(S, "MAX_OPEN_CLASSES", 3)
    other_replica = Store(store.url)
    for _ in range(3):
        other_replica.create_class({})
    with pytest.raises(ClassError) as refused:
        store.create_class({})
    assert str(refused.value).startswith("Class mode is full: this app's class database already holds 3 open "
                                         "classes, counting every server that shares it.")
    assert "server already has" not in str(refused.value)


def test_a_class_idle_for_a_day_is_deleted_with_its_answers(store):
    t = store.create_class({}, now=T + 1000.0)
    store.join(t.code, "s1", "", "ip", now=T + 1000.0)
    number = store.open_question(t.secret, QUESTION)
    store.answer(t.code, "s1", number, "is", now=T + 2000.0)
    assert store.expire(now=T + 2000.0 + S.IDLE_SECONDS - 1) == 0  # the answer kept it alive
    assert store.expire(now=T + 2000.0 + S.IDLE_SECONDS + 1) == 1
    with store.transaction() as db:
        assert [db.one(f"SELECT COUNT(*) FROM {table}")[0]
                for table in ("classes", "students", "answers", "questions")] == [0, 0, 0, 0]
    with pytest.raises(ClassError, match="No class"):
        store.join(t.code, "s1", "", "ip")


def test_hostile_nicknames_and_states_are_kept_as_data(store):
    hostile = ["'); DROP TABLE classes; --", "**bold** <img src=x onerror=alert(1)>", "=HYPERLINK(\"x\")",
               "a\nb\x00c\u202e", "😀" * 30]
    t = store.create_class({"sentence": hostile[0]})
    for k, name in enumerate(hostile):
        store.join(t.code, f"s{k}", name, "ip")
    number = store.open_question(t.secret, QUESTION)
    for k in range(len(hostile)):
        store.answer(t.code, f"s{k}", number, "is", now=10.0)
    names = sorted(n for _, n, _ in store.answers(t.secret))
    assert names == sorted(S.clean_nickname(h) for h in hostile)
    assert all(len(n) <= S.MAX_NICKNAME and "\n" not in n and "\x00" not in n for n in names)
    assert store.join(t.code, "s0", "", "ip").state == {"sentence": hostile[0]}  # the table is still there
    assert json.loads(json.dumps(QUESTION)) == store.teacher_view(t.secret).question


def test_idle_classes_go_even_when_nobody_starts_a_new_class(store):
    """A student's visit (or a teacher's) deletes the classes idle for a day, at most every 10 minutes."""
    old = store.create_class({}, now=T + 1000.0)
    live = store.create_class({}, now=T + 1000.0 + S.IDLE_SECONDS)
    store.join(live.code, "s1", "", "ip", now=T + 1000.0 + S.IDLE_SECONDS + 10)  # within 10 minutes of the last look
    assert store.teacher_view(old.secret, now=T + 1000.0 + S.IDLE_SECONDS + 20).code == old.code
    store.join(live.code, "s1", "", "ip", now=T + 1000.0 + S.IDLE_SECONDS + S.EXPIRY_CHECK + 10)
    with pytest.raises(ClassError, match="no class"):
        store.teacher_view(old.secret, now=T + 1000.0 + S.IDLE_SECONDS + S.EXPIRY_CHECK + 11)


def test_the_teacher_counts_each_student_once(store):
    """ "{n} students joined", "{k} of {n} students answered": a student who comes back (the same id) is
    counted once; a student of another class is not counted; only the teacher's key reads the count."""
    teacher, other = store.create_class({}), store.create_class({})
    assert store.student_count(teacher.secret) == 0
    for student in ("a" * 32, "b" * 32, "a" * 32):
        store.join(teacher.code, student, "", "10.0.0.1")
    store.join(other.code, "c" * 32, "", "10.0.0.1")
    assert store.student_count(teacher.secret) == 2 and store.student_count(other.secret) == 1
    with pytest.raises(ClassError):
        store.student_count(teacher.code)


def test_a_students_poll_changes_with_the_question_the_reveal_and_the_end_not_with_the_lesson(store):
    """A student's page redraws itself whole when ``Poll.seen`` changes (a new lesson redraws its frame
    only): each step of a class, read back as the poll reads it."""
    teacher = store.create_class({"page": "", "query": {}})
    assert store.version("ZZZZZZ") is None
    seen = [store.version(teacher.code).seen]
    store.set_state(teacher.secret, {"page": "multihead", "query": {"heads": "2"}})
    poll = store.version(teacher.code)
    assert poll.seen == seen[-1] and json.loads(poll.state) == {"page": "multihead", "query": {"heads": "2"}}
    for step in (lambda: store.open_question(teacher.secret, QUESTION), lambda: store.reveal(teacher.secret),
                 lambda: store.open_question(teacher.secret, QUESTION), lambda: store.close(teacher.secret)):
        step()
        seen.append(store.version(teacher.code).seen)
        # what the page drew when it joined compares equal to the poll of the same moment
        assert store.join(teacher.code, "s" * 32, "", "10.0.0.1").seen == seen[-1]
    assert [s[:3] for s in seen] == [(0, False, False), (1, False, False), (1, True, False), (2, False, False),
                                     (2, False, True)]


def test_the_teachers_switches_reach_the_poll_and_close_the_answers(store):
    """Pause, explore, a timer, answers closed without the reveal: each changes what a student's page draws,
    and closed answers refuse an answer until the next question."""
    t = store.create_class({})
    store.join(t.code, "ann", "", "ip", now=T + 1000.0)
    number = store.open_question(t.secret, QUESTION, now=T + 1000.0)
    store.set_mode(t.secret, "pause")
    assert store.version(t.code).mode == "pause" and store.teacher_view(t.secret).mode == "pause"
    with pytest.raises(ClassError, match="mode"):
        store.set_mode(t.secret, "'; DROP TABLE classes; --")
    store.set_timer(t.secret, 30, now=T + 1000.0)
    assert store.version(t.code).closes_at == T + 1030.0
    store.answer(t.code, "ann", number, "is", now=T + 1029.0)
    with pytest.raises(ClassError, match="The time is up for this question"):
        store.answer(t.code, "ann", number, "forum", now=T + 1031.0)  # the timer ran out (not the teacher)
    number = store.open_question(t.secret, QUESTION, now=T + 1040.0)  # asked again: a new number, no timer
    store.close_answers(t.secret)
    with pytest.raises(ClassError, match="closed the answers"):
        store.answer(t.code, "ann", number, "is", now=T + 1041.0)
    assert not store.teacher_view(t.secret).revealed and store.version(t.code).answers_closed
    assert [q["prompt"] for q in store.questions(t.secret).values()] == [QUESTION["prompt"]] * 2  # the history


def test_one_student_given_more_time_answers_after_the_class_timer_and_the_others_do_not(store):
    """Issue 44: the teacher gives one student more time. Their answer is taken until the class's end plus their
    extra seconds, on this question and the next; the others' are refused at the class's end; the student's view and
    poll end later, the teacher's view at the last student's end, the projector's at the class's; every student's
    poll changes (their pages look again); only the teacher's key gives time, to a student of the class, 0–600 s."""
    t = store.create_class({})
    for who in ("ann", "bob"):
        store.join(t.code, who, who.title(), "ip", now=T + 1000.0)
    number = store.open_question(t.secret, QUESTION, now=T + 1000.0)
    store.set_timer(t.secret, 30, now=T + 1000.0)
    before = store.version(t.code, "bob").seen
    store.give_time(t.secret, "ann", 60, now=T + 1001.0)
    assert store.version(t.code, "bob").seen != before  # every student's page looks again
    assert [(s.nickname, s.extra) for s in store.roster(t.secret)] == [("Ann", 60.0), ("Bob", 0.0)]
    assert store.version(t.code, "ann").extra == 60.0 and store.version(t.code, "bob").extra == 0.0
    assert store.student_view(t.code, "ann").ends == T + 1090.0 and store.student_view(t.code, "bob").ends == T + 1030.0
    assert store.teacher_view(t.secret).ends == T + 1090.0 and store.public_view(t.code)[0].ends == T + 1030.0
    with pytest.raises(ClassError, match="The time is up"):
        store.answer(t.code, "bob", number, "is", now=T + 1031.0)
    store.answer(t.code, "ann", number, "is", now=T + 1089.0)
    with pytest.raises(ClassError, match="The time is up"):
        store.answer(t.code, "ann", number, "forum", now=T + 1090.0)
    number = store.open_question(t.secret, QUESTION, now=T + 1100.0)  # the next question: the extra time stays
    store.set_timer(t.secret, 30, now=T + 1100.0)
    store.answer(t.code, "ann", number, "is", now=T + 1150.0)
    store.give_time(t.secret, "ann", 0, now=T + 1151.0)  # taken back
    with pytest.raises(ClassError, match="The time is up"):
        store.answer(t.code, "ann", number, "forum", now=T + 1153.0)
    for secret, who, seconds, why in ((t.code, "ann", 30, "no class"), (t.secret, "nobody", 30, "not in this class"),
                                      (t.secret, "ann", -5, "0 to 600"), (t.secret, "ann", 601, "0 to 600"),
                                      (t.secret, "ann", float("nan"), "0 to 600")):
        with pytest.raises(ClassError, match=why):
            store.give_time(secret, who, seconds)


def test_the_projector_shows_answers_only_when_the_teacher_does(store):
    t = store.create_class({})
    store.join(t.code, "ann", "", "ip", now=T + 1000.0)
    number = store.open_question(t.secret, QUESTION)
    store.answer(t.code, "ann", number, "is", now=T + 1000.0)
    view, answers, joined, answered = store.public_view(t.code)
    assert answers == [] and joined == 1 and "answer" not in view.question  # hidden, and so is the answer
    assert answered == 1  # but counted (issue 47: the projector said "0 of 2 answered" while the desk said 2 of 2)
    store.show_results(t.secret, True)
    assert store.public_view(t.code)[1] == ["is"]
    store.show_results(t.secret, False)
    store.reveal(t.secret)
    view, answers, _, answered = store.public_view(t.code)
    assert answers == ["is"] and answered == 1 and view.question["answer"] == "is"  # after the reveal: always


def test_a_closed_class_keeps_its_answers_for_the_export_until_it_expires(store):
    t = store.create_class({}, now=T + 1000.0)
    store.join(t.code, "ann", "Ann", "ip", now=T + 1000.0)
    number = store.open_question(t.secret, QUESTION, now=T + 1000.0)
    store.answer(t.code, "ann", number, "is", now=T + 1001.0)
    store.close(t.secret)
    assert [(a.nickname, a.answer) for a in store.all_answers(t.secret)] == [("Ann", "is")]
    assert store.teacher_code(t.secret) == (t.code, True)


README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def _readme_paragraph(start: str) -> str:
    """The README's paragraph that begins with ``start``, on one line."""
    paragraph = README[README.index(start):].split("\n\n")[0]
    return " ".join(paragraph.split())


# every column class mode keeps, and the words of the README's "What is stored" that name it
STORED = {
    "classes.id": "an internal id", "classes.code": "its code", "classes.teacher_hash": "the SHA-256 of your key",
    "classes.created": "when it was started", "classes.touched": "last active",
    "classes.created_by": "your browser's id", "classes.created_from": "the network addresses you started it",
    "teacher_networks.network": "and opened its pages from",
    "classes.state": "your lesson's page, link settings and questions", "classes.question": "the open question",
    "classes.question_no": "with its number", "classes.closes_at": "timer",
    "classes.answers_closed": "answers closed", "classes.revealed": "revealed",
    "classes.show_results": "shown on the projector", "classes.mode": "what the students' screens do",
    "classes.closed": "whether the class is closed", "questions.question": "every question asked",
    "questions.asked": "and when", "students.nickname": "each student's nickname",
    "students.student": "browser id", "students.joined": "when they joined",
    "students.last_answer": "and last answered", "students.extra": "the extra time you gave them",
    "classes.extra_changes": "how many times you changed a student's extra time",
    "answers.answer": "their answers with their times",
    "answers.at": "with their times", "failed_joins.browser": "a wrong join code",
    "failed_joins.client": "and network address", "failed_joins.at": "with its time",
}
LINKS = {"students.class_id", "answers.class_id", "answers.question_no", "answers.student", "questions.class_id",
         "questions.question_no", "teacher_networks.class_id", "schema_version.version"}  # which class, which row


def test_the_readme_names_every_column_class_mode_keeps(tmp_path):
    """Issue 43: the README's list of what is stored left out the teacher's browser id and address kept with each
    class. Every column of the schema, as the migrations build it, is either named there or only links rows."""
    store = Store(f"sqlite:///{tmp_path / 'classes.sqlite3'}")
    with store.transaction() as db:
        tables = [t for (t,) in db.all("SELECT name FROM sqlite_master WHERE type = 'table'")]
        columns = {f"{t}.{c[1]}" for t in tables for c in db.all(f"PRAGMA table_info({t})")}
    assert columns == set(STORED) | LINKS, columns ^ (set(STORED) | LINKS)
    stored = _readme_paragraph("What is stored, and for how long")
    assert [words for words in STORED.values() if words not in stored] == []


def test_the_readmes_numbers_on_guessing_are_the_stores():
    """The limits and the chances the README gives, from the store's own constants: at most FAILED_JOINS_ADDRESS
    codes tried in any window, so at most that many times the day's windows in a day; a class's code is one of
    len(CODE_ALPHABET) ** CODE_LENGTH; the chance of finding one of 200 classes is at most tries × 200 / codes."""
    text = _readme_paragraph("What is stored, and for how long")
    codes = len(S.CODE_ALPHABET) ** S.CODE_LENGTH
    window = S.FAILED_JOIN_WINDOW / 60
    a_day = S.FAILED_JOINS_ADDRESS * 24 * 3600 / S.FAILED_JOIN_WINDOW
    assert window == 10 and (S.FAILED_JOINS, S.FAILED_JOINS_ADDRESS, S.MAX_OPEN_CLASSES) == (30, 200, 200)
    assert f"after {S.FAILED_JOINS} in ten minutes from one browser, or {S.FAILED_JOINS_ADDRESS} from one network" \
        in text
    assert f"at most {S.FAILED_JOINS_ADDRESS} of the {codes:,} codes in ten minutes" in text
    assert f"({a_day:,.0f} a day)" in text and a_day == int(a_day)
    assert f"{S.MAX_OPEN_CLASSES} open classes a database" in text
    assert "with 200 open classes in the database, less than 1 chance in 22,000" in text
    assert "(an address; for IPv6, its /48, so one home line's /56 or /48 is one network)" in text
    assert S.IPV6_NETWORK == 48
    assert S.FAILED_JOINS_ADDRESS * 200 / codes < 1 / 22_000
    assert "and less than 1 in 150 in a whole day" in text and a_day * 200 / codes < 1 / 150
    assert f"{S.MAX_STUDENTS} students a class; three open classes a browser, thirty new classes an hour" in text
    assert (S.OPEN_CLASSES_A_BROWSER, S.CLASSES_AN_ADDRESS, S.CREATION_WINDOW) == (3, 30, 3600)
