"""deploy/serve.py: every connection the server accepts has Nagle's algorithm off (TCP_NODELAY); a new session's
first request for a fragment it does not have runs the whole page."""

from __future__ import annotations

import socket
import subprocess
import sys
import urllib.request

from deploy.serve import ROOT, no_delay, patch_streamlit, rerun_unknown_fragments_whole, whole_if_unknown
from tests.browser.server import free_port, wait_healthy


def test_the_launcher_wraps_streamlits_own_socket_binding():
    """If a Streamlit upgrade moves ``_bind_socket``, this fails (and the launcher says so in its log)."""
    from streamlit.web.server.starlette import starlette_server

    assert patch_streamlit() and starlette_server._bind_socket.no_delay
    assert patch_streamlit()  # twice is harmless


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

    assert rerun_unknown_fragments_whole() and AppSession.request_rerun.whole
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


def test_the_launcher_serves_the_app():
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(ROOT / "deploy" / "serve.py"), "--server.address", "127.0.0.1",
                             "--server.port", str(port), "--server.headless", "true"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", 60, proc)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as page:
            assert page.status == 200 and b"<noscript>" in page.read()
    finally:
        proc.terminate()
        output = proc.communicate(timeout=10)[0]
    assert "Nagle's algorithm on" not in output


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
