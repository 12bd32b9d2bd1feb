"""deploy/serve.py: every connection the server accepts has Nagle's algorithm off (TCP_NODELAY); a new session's
first request for a fragment it does not have runs the whole page; an address with a malformed percent-escape is
redirected to one the browser's decodeURIComponent reads."""

from __future__ import annotations

import http.client
import http.server
import json
import re
import socket
import subprocess
import sys
import threading
import urllib.parse
import urllib.request

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deploy import serve
from deploy.serve import ROOT, no_delay, patch_streamlit, rerun_unknown_fragments_whole, whole_if_unknown
from tests.browser.server import free_port, nginx_in_front, wait_healthy


def test_the_launcher_wraps_streamlits_own_socket_binding():
    """If a Streamlit upgrade moves ``_bind_socket``, this fails (and the launcher says so in its log)."""
    from streamlit.web.server.starlette import starlette_server

    assert patch_streamlit() and starlette_server._bind_socket.attention_lab
    assert patch_streamlit()  # twice is harmless


def test_a_name_that_has_moved_is_reported_not_raised():
    """What a Streamlit upgrade can do to each wrapped name: its module, its class or the name itself gone. The
    launcher then says False (and logs it) and changes nothing."""
    for where, name in (("streamlit.no_such_module", "x"), ("streamlit.runtime.app_session:NoSuchClass", "x"),
                        ("streamlit.runtime.app_session:AppSession", "no_such_method")):
        assert serve._wrap(where, name, lambda original: original) is False


def test_a_connection_accepted_by_streamlits_listening_socket_has_nagle_off():
    """The socket Streamlit binds, through the launcher's wrapper, passes TCP_NODELAY to the connection it
    accepts (a real loopback connection; without the wrapper the accepted socket has it off)."""
    from streamlit.web.server.starlette import starlette_server

    patch_streamlit()
    for wrapped in (True, False):
        bind = starlette_server._bind_socket if wrapped else starlette_server._bind_socket.__wrapped__
        listening = bind("127.0.0.1", free_port(), 8)
        try:
            listening.setblocking(True)
            client = socket.create_connection(listening.getsockname(), timeout=10)
            accepted, _ = listening.accept()
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == int(wrapped)
            accepted.close()
            client.close()
        finally:
            listening.close()


def test_a_new_sessions_request_for_an_unknown_fragment_runs_the_whole_page():
    """The first request, naming a fragment the session lacks, loses its fragment; a later one, or one naming a
    fragment the session has, goes on as it came (Streamlit drops a fragment a full run removed, as it should)."""
    from streamlit.proto.ClientState_pb2 import ClientState
    from streamlit.runtime.app_session import AppSession

    assert rerun_unknown_fragments_whole() and AppSession.request_rerun.attention_lab
    assert rerun_unknown_fragments_whole()  # twice is harmless

    class Session:
        def has_fragment(self, fragment_id: str) -> bool:
            return fragment_id == "known"

    for fragment, later, expected in (("lost", False, ""), ("lost", True, "lost"), ("known", False, "known")):
        session = Session()
        if later:
            whole_if_unknown(session, ClientState())
        sent = whole_if_unknown(session, ClientState(fragment_id=fragment, is_auto_rerun=True))
        assert (sent.fragment_id, sent.is_auto_rerun) == (expected, bool(expected))
    assert whole_if_unknown(Session(), None) is None


def test_no_delay_leaves_other_sockets_alone():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        no_delay(udp)  # no TCP option on a datagram socket: nothing to set, nothing raised


@pytest.fixture(scope="module")
def served():
    """The app through the launcher, as make run serves it: its port, and its output so far (read as it comes)."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(ROOT / "deploy" / "serve.py"), "--server.address", "127.0.0.1",
                             "--server.port", str(port), "--server.headless", "true"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output: list[str] = []
    reader = threading.Thread(target=lambda: output.extend(proc.stdout), daemon=True)
    reader.start()
    try:
        wait_healthy(f"http://127.0.0.1:{port}", 60, proc)
        yield port, output
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        reader.join(timeout=10)


def test_the_launcher_serves_the_app(served):
    port, output = served
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as page:
        assert page.status == 200 and b"<noscript>" in page.read()
    assert output and not [line for line in output if "was not found" in line]  # every wrapper found its function


def _get(port: int, target: str) -> tuple[int, str | None]:
    """The status and Location of a GET of ``target`` sent byte for byte (urllib would quote it first)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.putrequest("GET", target, skip_accept_encoding=True)
        connection.endheaders()
        answer = connection.getresponse()
        answer.read()
        return answer.status, answer.getheader("Location")
    finally:
        connection.close()


def test_an_address_with_a_stray_percent_is_redirected_to_a_well_formed_one(served):
    """Issue 43: /%ZZ (a mail client's stray %) opened a page of grey bars for good ("URI malformed"). The server
    now answers it, and a query with a stray % (/?sentence=100%), with a redirect to the same address, the bad %
    written %25, which decodes back to what the learner typed; a well-formed address is served as it is."""
    port, _ = served
    for target, expected, read in (
            ("/%ZZ", "/%25ZZ", {}),
            ("/?sentence=50%", "/?sentence=50%25", {"sentence": ["50%"]}),
            ("/walkthrough?sentence=100%%20sure&seed=3", "/walkthrough?sentence=100%25%20sure&seed=3",
             {"sentence": ["100% sure"], "seed": ["3"]}),
            ("/?sentence=caf%C3%A9%FF", "/?sentence=caf%C3%A9%25FF", {"sentence": ["café%FF"]})):
        status, location = _get(port, target)
        assert (status, location) == (302, expected), target
        assert _get(port, location)[0] == 200  # the redirect's address is served
        address = urllib.parse.urlsplit(location)  # what the page reads from it: the learner's text, % and all
        assert urllib.parse.parse_qs(address.query, errors="strict") == read
    assert urllib.parse.unquote(urllib.parse.urlsplit("/%25ZZ").path) == "/%ZZ"
    for target in ("/", "/?sentence=50%25", "/walkthrough?sentence=caf%C3%A9", "/_stcore/health"):
        assert _get(port, target) == (200, None), target
    # a path that starts with // is Streamlit's to refuse, never redirected to another host
    status, location = _get(port, "//evil.example/%ZZ")
    assert status == 400 and location is None


def test_nginx_sends_a_path_it_cannot_read_to_the_app_and_passes_a_query_on():
    """Behind deploy/'s nginx, /%ZZ never reaches the app: nginx refused it with its own "400 Bad Request" page. It
    now sends the browser to the app's folder (/); a query with a stray % goes on to the app as it came (whose
    server redirects it, above). The replica here is a stub that says which address it was asked for."""

    class Replica(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("X-Asked", self.path)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")  # /_stcore/health's answer, which nginx_in_front waits for

        def log_message(self, *args):
            pass

    replica = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Replica)
    threading.Thread(target=replica.serve_forever, daemon=True).start()
    try:
        with nginx_in_front([f"http://127.0.0.1:{replica.server_port}"]) as base:
            port = int(base.rsplit(":", 1)[1])
            for target in ("/%ZZ", "/walkthrough%ZZ", "/x%4"):
                assert _get(port, target) == (302, "./"), target
                assert urllib.parse.urljoin(f"{base}{target}", "./") == f"{base}/"
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.putrequest("GET", "/?sentence=50%", skip_accept_encoding=True)
            connection.endheaders()
            answer = connection.getresponse()
            answer.read()
            assert (answer.status, answer.getheader("X-Asked")) == (200, "/?sentence=50%")
            connection.close()
    finally:
        replica.shutdown()


def test_the_launcher_puts_the_redirect_in_streamlits_middleware():
    """If a Streamlit upgrade moves ``create_streamlit_middleware``, this fails (and the launcher says so)."""
    from streamlit.web.server.starlette import starlette_app

    assert serve.redirect_malformed_addresses() and serve.redirect_malformed_addresses()  # twice is harmless
    names = [m.cls.__name__ for m in starlette_app.create_streamlit_middleware()]
    assert names[:2] == ["PathSecurityMiddleware", "RedirectMalformed"]
    assert names.count("RedirectMalformed") == 1


# pieces of an address: characters (a stray % among them) and escapes, whole UTF-8 or not
ADDRESS_PIECES = st.sampled_from([*"%aZ9fF/?=&+ é€😀", "%C3", "%A9", "%ED%A0%80", "%C0%AF", "%F0%9F%98%80", "%E2%82",
                                  "%25", "%4", "%41", "%C3%A9"])


@settings(max_examples=3, deadline=None)
@given(st.lists(st.lists(ADDRESS_PIECES, min_size=1, max_size=8).map("".join), min_size=150, max_size=150))
def test_what_well_formed_returns_is_read_by_the_browsers_own_decoder(addresses):
    """JavaScript's decodeURIComponent (Node's: the same function the page calls) reads every address
    ``well_formed`` returns; an address it already read comes back unchanged; and the only change is a % written
    %25 (the learner's text is kept)."""
    raw = [a.encode() for a in addresses]
    fixed = [serve.well_formed(a).decode() for a in raw]
    script = ("const xs = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "console.log(JSON.stringify(xs.map(x => { try { decodeURIComponent(x); return true } "
              "catch (e) { return false } })))")
    reads = json.loads(subprocess.run(["node", "-e", script], input=json.dumps(addresses + fixed), text=True,
                                      capture_output=True, check=True).stdout)
    before, after = reads[:len(raw)], reads[len(raw):]
    assert all(after), [f for f, ok in zip(fixed, after, strict=True) if not ok]
    for address, result, read in zip(addresses, fixed, before, strict=True):
        assert (result == address) == read, address  # changed exactly when the browser could not read it
        assert re.sub("%25", "%", result) == re.sub("%25", "%", address)  # only % → %25
    assert not all(before)  # the examples hold addresses the browser refuses (else this proves nothing)


def test_scripts_of_this_checkout_import_its_packages_and_another_checkouts_do_not(tmp_path):
    """bench/floor_app.py imports the app's packages (the launcher puts the checkout on the path); another
    checkout's app.py, measured beside this one in bench_browser.py, must import its own, not ours."""
    probe = ("import sys; sys.path.insert(0, sys.argv[2]); import serve; serve.freeze_startup_heap(sys.argv[1]); "
             "import importlib.util; print(importlib.util.find_spec('attention') is not None)")
    found = {}
    for script in (ROOT / "bench" / "floor_app.py", tmp_path / "app.py"):
        out = subprocess.run([sys.executable, "-c", probe, str(script), str(ROOT / "deploy")], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120, check=True)
        found[script.name] = out.stdout.strip()
    assert found == {"floor_app.py": "True", "app.py": "False"}
