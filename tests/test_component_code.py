"""Our components' code is fetched once a page, never sent with each element (issue 46).

Streamlit sends a component's inline JavaScript and CSS inside every element of it: the arrival's script (11 KB) went
out with every run that changed its data (every edit and every navigation, on every page; its message cache sends an
unchanged element of 10 KB or more as a reference), a third of a learner's edit. Each of our components is now
``ui.view.loader``'s few lines, which import the component's script (and stylesheet) from static/ once. Checked on
the elements the pages really send, in states that draw every component the code defines: every lesson, a step with
the player open, and a class's question with a timer on a student's page and the teacher's desk.
"""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.test_classmode_pages import browser, join, on, start_class
from tests.test_classmode_pages import database as database  # the class pages' fixture: one SQLite file
from tests.test_pages import APP, TIMEOUT, assert_no_exception
from ui.navigation import PAGES

ROOT = Path(__file__).resolve().parent.parent
LOADER_MAX = 1_000  # characters: ui.view.loader's script is ~350–620 (with a stylesheet)


def components(at: AppTest) -> list:
    """Every component element (its protobuf) the run drew, in the main area and the sidebar."""
    found = []

    def walk(node) -> None:
        children = getattr(node, "children", None)
        for child in (children.values() if isinstance(children, dict) else ()):
            walk(child)
        proto = getattr(node, "proto", None)
        if proto is not None and type(proto).__name__ == "BidiComponent":
            found.append(proto)

    walk(at._tree)
    return found


DEFINITION = re.compile(r"""components\.v2\.component\(\s*(?:name\s*=\s*)?["']([^"']+)["']""")


def defined() -> set[str]:
    """The components the code defines: every ``st.components.v2.component("name", …)`` in the app's Python files."""
    files = [ROOT / "app.py", *(ROOT / "ui").rglob("*.py"), *(ROOT / "lessons").rglob("*.py")]
    return {name for path in files for name in DEFINITION.findall(path.read_text(encoding="utf-8"))}


def assert_fetched_once(proto) -> None:
    name = proto.component_name
    assert len(proto.js_content) <= LOADER_MAX, f"{name} sends {len(proto.js_content)} characters of code"
    assert proto.css_content == "" and proto.html_content == "", f"{name} sends its stylesheet or markup"
    imported = re.findall(r'import\(url\("([^"]+)"\)', proto.js_content)
    assert len(imported) == 1 and (ROOT / "static" / imported[0]).is_file(), (name, imported)
    for stylesheet in re.findall(r'link\.href = url\("([^"]+)"\)', proto.js_content):
        assert (ROOT / "static" / stylesheet).is_file(), (name, stylesheet)
        # the stylesheet is added to the document, which does not reach into a shadow root
        assert not proto.isolate_styles, f"{name}: its stylesheet cannot reach its shadow root"


def test_every_component_fetches_its_code_once_and_every_one_is_drawn_somewhere(database):
    seen: dict[str, int] = {}

    def check(at: AppTest) -> None:
        assert_no_exception(at)
        for proto in components(at):
            assert_fetched_once(proto)
            seen[proto.component_name] = seen.get(proto.component_name, 0) + 1

    for script, _, _ in PAGES:
        at = AppTest.from_file(APP, default_timeout=TIMEOUT)
        check(at.switch_page(script).run())
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["step"] = "5"
    at = at.run()
    at.toggle(key="play-scores").set_value(True)  # the player (a step's "Play" switch)
    check(at.run())

    teacher, secret, code = start_class()
    student = join("a" * 32, code, "Ann")
    database.open_question(secret, {"key": "t", "prompt": "Which?", "options": ["1", "2"], "answer": "1",
                                    "also": [], "explanation": ""})
    database.set_timer(secret, 60.0)
    check(student.run())  # the student's question and its countdown
    check(on(teacher, "lessons/classmode.py"))  # the desk's countdown
    check(browser("c" * 32))  # the class page of a browser in no class

    assert set(seen) == {f"attention_lab.{name}" for name in
                         ("view", "model_map", "identity", "arrival", "player", "countdown")}, seen
    assert set(seen) == defined(), (seen, defined())
