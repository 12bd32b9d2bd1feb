"""AppTest as a browser sees a fragment's own run (issue 46: a learner's edit reruns the lesson fragment alone).

Streamlit 1.67's AppTest starts a new script runner for each ``run()`` and builds its element tree from that run's
messages alone. After a run of one fragment the tree holds only what the fragment drew, and the sidebar's controls,
drawn by the last whole run and kept by the browser, are missing from it. The browser keeps every element outside the
fragment and replaces the fragment's own (``st.fragment``'s docstring; the frontend clears a fragment's elements its
run did not send again). This module gives AppTest that page: after a fragment's run, each of the tree's top blocks
(main, sidebar) holds the last tree's elements before the fragment's first, then the fragment's. That is exactly the
browser's page for app.py, whose lesson fragment is the last thing drawn in the main area and in the sidebar.

Installed for every test by tests/conftest.py. tests/test_lesson_fragment.py checks that such a page equals the one a
whole run draws for the same settings."""

from __future__ import annotations

from streamlit.runtime.scriptrunner.script_runner import ScriptRunnerEvent
from streamlit.testing.v1 import app_test, local_script_runner

_run_script = local_script_runner.LocalScriptRunner.run
_run_app = app_test.AppTest._run  # (both Streamlit's own, wrapped by ``install``)
_pages: dict = {}  # the pages the running AppTest's last run registered (st.navigation's)


class _PagesManager(app_test.PagesManager):
    """A run's pages manager holding the last run's pages, as a server's session does: a fragment's own run calls no
    ``st.navigation``, and its ``st.page_link`` must find the page (AppTest makes a new manager for each run)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if _pages:
            self._pages = dict(_pages)


def fragment_only(runner: local_script_runner.LocalScriptRunner) -> bool:
    """Whether the runner's last script run was a fragment's alone (its SCRIPT_STARTED named fragments)."""
    started = [data for event, data in zip(runner.events, runner.event_data, strict=True)
               if event == ScriptRunnerEvent.SCRIPT_STARTED]
    return bool(started and started[-1].get("fragment_ids_this_run"))


def _run(self, *args, **kwargs):
    tree = _run_script(self, *args, **kwargs)
    tree._fragment_only = fragment_only(self)
    return tree


def _app_run(self, *args, **kwargs):
    before = getattr(self, "_tree", None)
    _pages.clear()
    _pages.update(getattr(self, "_registered_pages", None) or {})
    try:
        result = _run_app(self, *args, **kwargs)
    finally:
        _pages.clear()
    after = self._tree
    if before is not None and getattr(after, "_fragment_only", False):
        for place, block in after.children.items():
            old = before.children.get(place)
            if old is None or not hasattr(old, "children") or not hasattr(block, "children"):
                continue
            first = min(block.children, default=None)
            if first is None:  # the fragment drew nothing here: the browser keeps what it had
                after.children[place] = old
                _adopt(old, after)
                continue
            kept = {i: node for i, node in old.children.items() if i < first}
            block.children = {**kept, **block.children}
            for node in kept.values():
                _adopt(node, after)
    return result


def _adopt(node, root) -> None:
    """``node`` and what it holds now belong to the tree ``root`` (a widget's interaction runs ``root``'s AppTest)."""
    node.root = root
    for child in getattr(node, "children", {}).values():
        _adopt(child, root)


def install() -> None:
    local_script_runner.LocalScriptRunner.run = _run
    app_test.AppTest._run = _app_run
    app_test.PagesManager = _PagesManager
