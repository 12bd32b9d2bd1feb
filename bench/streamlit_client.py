"""A learner without a browser: a client that speaks Streamlit's own websocket protocol as the page does.

It opens a session as the page's JavaScript does (GET the page and /_stcore/health, which set the
XSRF cookie; a websocket to /_stcore/stream with the subprotocols "streamlit" and the XSRF token),
asks for the first run (``rerun_script`` with the page's name), and then edits the sentence by sending
the BackMsg a real Chromium page sent for the same edit (``calibrate``: the widget states the page
holds, its query string, its page's script hash), with only the sentence changed and the client's own
message-cache hashes. The answer to an edit is the run's ``script_finished``; the client keeps the
ForwardMsgs in between, so that a benchmark can check that the answer holds the new sentence.

Used by bench/bench_server_load.py and bench/soak.py; tests/test_streamlit_client.py checks its
messages against a real Chromium page's.
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import time
import urllib.parse
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass, field

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect

XSRF_COOKIE = "_streamlit_xsrf"
EARLY_FOR_RERUN = ForwardMsg.FINISHED_EARLY_FOR_RERUN
RUN_LIMIT = 300.0  # seconds a run's answer may take before the client gives up (a benchmark reports it)


def calibrate(base: str, path: str, ready: str, sentence: str = "the cat sat on the mat") -> BackMsg:
    """The rerun_script BackMsg a real Chromium page sends when a learner types ``sentence`` into the
    sidebar's box on ``path`` (after the page has drawn ``ready``, a CSS selector)."""
    from playwright.sync_api import sync_playwright

    from tests.browser.server import launch_chromium

    sent: list[bytes] = []
    with sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page()
        page.set_default_timeout(120_000)
        page.on("websocket", lambda ws: ws.on("framesent", lambda data: sent.append(data)))
        page.goto(base + path)
        page.wait_for_selector(ready)
        page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]")
        before = len(sent)
        page.locator(".st-key-sentence input").fill(sentence)
        page.keyboard.press("Enter")
        deadline = time.monotonic() + 120
        while not any(_is_rerun(d) for d in sent[before:]):
            page.wait_for_timeout(50)
            if time.monotonic() > deadline:
                raise TimeoutError("the page sent no rerun for the edit")
        browser.close()
    msg = BackMsg()
    msg.ParseFromString(next(d for d in sent[before:] if _is_rerun(d)))
    return msg


def template_from(opened: Answer, base: str, path: str) -> BackMsg:
    """An edit BackMsg built from a page's first run, without a browser: the sentence box's widget id as
    the run drew it, the page's script hash (from st.navigation's message). A real page also sends
    the other widgets' values; the server keeps their last values when they are left out, so the run
    is the same (the benchmark's ``calibrate`` copies a real page's message instead)."""
    msg = BackMsg()
    state = msg.rerun_script
    state.page_script_hash = opened.page_hash()
    for element in opened.elements():
        if element.WhichOneof("type") == "text_input" and element.text_input.id.endswith("-sentence"):
            widget = state.widget_states.widgets.add()
            widget.id, widget.string_value = element.text_input.id, element.text_input.value
    state.query_string = urllib.parse.urlparse(path).query
    state.context_info.url = base + path
    return msg


def _is_rerun(data: bytes | str) -> bool:
    if not isinstance(data, bytes):
        return False
    msg = BackMsg()
    msg.ParseFromString(data)
    return msg.WhichOneof("type") == "rerun_script"


def trigger(widget_id: str) -> WidgetState:
    """A button's press, as the page sends it."""
    state = WidgetState(id=widget_id)
    state.trigger_value = True
    return state


@dataclass
class Answer:
    """What the server sent for one run, and how long it took."""

    seconds: float  # from the request leaving until script_finished arrived
    messages: list[ForwardMsg]
    finished: int  # ForwardMsg.ScriptFinishedStatus

    def markdown(self) -> list[str]:
        """The text of every Markdown element the run drew (an alert's too: st.success, st.info…), and the data of
        every view (ui/view.py: the tables are there), as JSON text."""
        texts = []
        for element in self.elements():
            if element.WhichOneof("type") == "markdown":
                texts.append(element.markdown.body)
            elif element.WhichOneof("type") == "alert":
                texts.append(element.alert.body)
            elif element.WhichOneof("type") == "bidi_component":
                texts.append(element.bidi_component.json)
        return texts

    def elements(self) -> Iterable:
        """Every element the run drew (the protobuf ``Element``s), in order."""
        for m in self.messages:
            if m.WhichOneof("type") == "delta" and m.delta.WhichOneof("type") == "new_element":
                yield m.delta.new_element

    def widgets(self) -> dict[str, str]:
        """The widgets the run drew that have a key: key → widget id (Streamlit writes ``$$ID-<hash>-<key>``)."""
        ids = {}
        for element in self.elements():
            widget_id = getattr(getattr(element, element.WhichOneof("type")), "id", "")
            if widget_id.startswith("$$ID-") and widget_id.count("-") >= 2:
                ids[widget_id.split("-", 2)[2]] = widget_id
        return ids

    def page_hash(self) -> str:
        """The script hash of the page that ran (st.navigation's message names it; after a run stopped by
        ``st.switch_page``, the last run's message: the page the browser now shows)."""
        return next((m.navigation.page_script_hash for m in reversed(self.messages)
                     if m.WhichOneof("type") == "navigation"), "")

    def fragments(self) -> list[str]:
        """The fragments that asked to be rerun on a timer (``st.fragment(run_every=…)``), as the page's
        JavaScript would rerun them."""
        return [m.auto_rerun.fragment_id for m in self.messages if m.WhichOneof("type") == "auto_rerun"]

    @property
    def exception(self) -> bool:
        return any(element.WhichOneof("type") == "exception" for element in self.elements())


@dataclass
class Learner:
    """One browser-less learner: one Streamlit session on ``base``, on the page ``path``."""

    base: str
    path: str
    cached: dict[str, ForwardMsg] = field(default_factory=dict)  # the cacheable messages received, by hash
    page_hash: str = ""  # the page's script hash, from its first run

    async def open(self) -> Answer:
        """Load the page as a browser does, connect, and run the page once."""
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        loop = asyncio.get_running_loop()
        for url in (self.base + self.path, self.base + "/_stcore/health"):
            await loop.run_in_executor(None, lambda u=url: opener.open(u, timeout=60).read())
        xsrf = next((c.value for c in jar if c.name == XSRF_COOKIE), "")
        ws_url = urllib.parse.urlparse(self.base)._replace(scheme="ws", path="/_stcore/stream").geturl()
        self.ws = await connect(ws_url, subprotocols=["streamlit", xsrf], max_size=None, open_timeout=60,
                                additional_headers={"Cookie": f"{XSRF_COOKIE}={xsrf}", "Origin": self.base})
        first = BackMsg()
        first.rerun_script.page_name = self.path.strip("/").split("?")[0]
        first.rerun_script.query_string = urllib.parse.urlparse(self.path).query
        first.rerun_script.context_info.url = self.base + self.path
        first.rerun_script.context_info.timezone = "UTC"
        first.rerun_script.context_info.locale = "en-US"
        opened = await self._run(first)
        self.page_hash = opened.page_hash()
        return opened

    async def rerun(self, query: str, widgets: Iterable[WidgetState] = (), fragment_id: str = "") -> Answer:
        """A rerun of this page as the browser asks for one: its query string, the widget values that
        changed (a button's press is a trigger), the fragment a timer reruns (or the whole page)."""
        return await self._run(self.rerun_message(query, widgets, fragment_id))

    async def send(self, msg: BackMsg) -> None:
        """Send without waiting for an answer (the server may rightly give none, e.g. for a fragment
        this session does not hold)."""
        await self.ws.send(msg.SerializeToString())

    def rerun_message(self, query: str, widgets: Iterable[WidgetState] = (), fragment_id: str = "") -> BackMsg:
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = query
        state.page_script_hash = self.page_hash
        state.widget_states.widgets.extend(widgets)
        state.context_info.url = self.base + self.path
        if fragment_id:
            state.fragment_id, state.is_auto_rerun = fragment_id, True
        state.cached_message_hashes.extend(sorted(self.cached))
        return msg

    async def edit(self, template: BackMsg, sentence: str) -> Answer:
        """Type ``sentence`` into the sidebar's box: the calibrated BackMsg with the new sentence."""
        msg = BackMsg()
        msg.CopyFrom(template)
        state = msg.rerun_script
        for widget in state.widget_states.widgets:
            if widget.id.endswith("-sentence"):
                widget.string_value = sentence
        query = dict(urllib.parse.parse_qsl(state.query_string))
        query["sentence"] = sentence
        state.query_string = urllib.parse.urlencode(query)
        state.context_info.url = self.base + self.path
        del state.cached_message_hashes[:]
        state.cached_message_hashes.extend(sorted(self.cached))  # as the page does: "I have these"
        return await self._run(msg)

    async def receive(self, timeout: float) -> Answer | None:
        """The next run the server starts by itself (class mode's wakes, ui/class_watch.py), as the page would
        draw it; None if none starts within ``timeout`` seconds."""
        deadline = time.perf_counter() + timeout
        while True:  # a run starts with new_session; anything else between runs (a status) is not a run
            try:
                first = await asyncio.wait_for(self.ws.recv(), max(0.0, deadline - time.perf_counter()))
            except TimeoutError:
                return None
            fwd = ForwardMsg()
            fwd.ParseFromString(first)
            if fwd.WhichOneof("type") == "new_session":
                return await asyncio.wait_for(self._collect(time.perf_counter(), first), RUN_LIMIT)

    async def _run(self, msg: BackMsg) -> Answer:
        start = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        return await asyncio.wait_for(self._collect(start), RUN_LIMIT)

    async def _collect(self, start: float, first: bytes | None = None) -> Answer:
        received: list[ForwardMsg] = []
        while True:
            data = first if first is not None else await self.ws.recv()
            first = None
            fwd = ForwardMsg()
            fwd.ParseFromString(data)
            if fwd.WhichOneof("type") == "ref_hash":  # "the one you have": the page takes it from its cache
                fwd = self.cached[fwd.ref_hash]
            elif fwd.metadata.cacheable and fwd.hash:
                self.cached[fwd.hash] = fwd
            received.append(fwd)
            # a run stopped by st.rerun() is followed by the run it asked for: the answer is that one's end
            if fwd.WhichOneof("type") == "script_finished" and fwd.script_finished != EARLY_FOR_RERUN:
                return Answer(time.perf_counter() - start, received, fwd.script_finished)

    async def close(self) -> None:
        await self.ws.close()
