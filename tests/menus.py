"""A selectbox as the browser keeps it, for AppTest (issue 43).

Streamlit passes a selectbox's choice between browser and server as the option's label, not the option. The
browser keeps the label it holds until the learner picks another or the server sends a new one (a proto with
``set_value``); the server sends none when the chosen option keeps its place in the list, even if its label
changed (a query menu "1 · The" after a new sentence whose first token is "This"). AppTest does not do that: it
writes each menu's label afresh from the server's value and the new labels, so a page that read a browser's stale
label back never met one under AppTest.

``browser_menus()`` makes AppTest send what the browser would: for a menu the test has not set, the label the
browser holds (the one the server last sent, or the default's when the menu first appeared); for one it has set,
that option's label, which the browser then holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1.app_test import AppTest
from streamlit.testing.v1.element_tree import InitialValue, Selectbox


@contextmanager
def browser_menus() -> Iterator[dict[str, str]]:
    """While open, every AppTest's selectboxes send the label the browser holds (yields: widget id → label)."""
    held: dict[str, str] = {}
    run, state = AppTest._run, Selectbox._widget_state

    def widget_state(self: Selectbox) -> WidgetState:
        if isinstance(self._value, InitialValue) and self.id in held:  # untouched: what the browser holds
            ws = WidgetState()
            ws.id = self.id
            ws.string_value = held[self.id]
            return ws
        ws = state.fget(self)  # set by the test: the browser holds its label from now on
        if ws.HasField("string_value"):
            held[self.id] = ws.string_value
        return ws

    def run_and_look(self: AppTest, *args, **kwargs) -> AppTest:
        done = run(self, *args, **kwargs)
        for box in done.selectbox:
            proto = box.proto
            if proto.set_value and proto.HasField("raw_value"):
                held[box.id] = proto.raw_value  # the server sent a value: the browser takes its label
            elif box.id not in held and proto.HasField("default") and proto.options:
                held[box.id] = proto.options[proto.default]  # a menu the browser has not held yet: its default
        return done

    with mock.patch.object(AppTest, "_run", run_and_look), \
            mock.patch.object(Selectbox, "_widget_state", property(widget_state)):
        yield held
