"""Serve Attention Lab: ``streamlit run`` with Nagle's algorithm off on every connection.

    python deploy/serve.py [script.py] [streamlit run options]     (make run, the Dockerfile and the tests
                                                                   use it; the script is app.py unless named)

Streamlit 1.67 binds its listening socket itself (``socket.socket(family)``, so ``proto`` is 0), and
asyncio turns Nagle's algorithm off (TCP_NODELAY) only on sockets whose ``proto`` is IPPROTO_TCP. With
Nagle on, a small answer written just after another waits for the client's delayed ACK: the server
wrote a rerun's answer in 7 ms and the browser received it 40 ms later (strace, issue 26). This
launcher sets TCP_NODELAY on the listening socket as Streamlit binds it; Linux gives every accepted
connection the listening socket's TCP_NODELAY. The upstream report is docs/streamlit-nagle.md.

If a Streamlit upgrade moves the function this wraps, the app is still served (with Nagle on) and
says so in its log; tests/test_serve.py fails, so the upgrade is noticed before it lands.

It also makes a new session's first request a whole run when it names a fragment the session does not have
(``rerun_unknown_fragments_whole``). After a reconnection to a new session (a replica died, the server restarted)
a fragment that looks at something on a timer (a long action's progress, a student's look at the class) asks the
new session for itself, and Streamlit 1.67 drops that request without a word (``AppSession.request_rerun``: "does
not exist anymore"): the progress bar stood still for good. Now the page runs again, with the browser's values.

And it sends an address that JavaScript's ``decodeURIComponent`` can't read (a stray ``%`` from a mail client:
``/%ZZ``, ``/?sentence=100%``, or escapes that are not UTF-8, ``%FF``) to the same address with each bad ``%``
written ``%25`` (``well_formed``). Streamlit 1.67's page decodes its path and, on "URI malformed", stayed a page of
grey bars for good; now a path that names no page opens the first lesson under Streamlit's "Page not found". Its
query the page already read (Python parses it), but the address a learner copies from the bar is now well formed
too, and the learner's text arrives as typed (``100%``).
"""

from __future__ import annotations

import functools
import importlib
import socket
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app.py"


def no_delay(sock: socket.socket) -> socket.socket:
    """TCP_NODELAY on a TCP socket (a listening one passes it to every connection it accepts)."""
    if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _wrap(module: str, name: str, wrapper) -> bool:
    """Replace ``name`` in ``module`` (an object: a module or a class, given by its dotted path, "package.module" or
    "package.module:Class") with ``wrapper(original)``, once: a second call finds the mark and leaves it. False if
    the import or the name is not where Streamlit 1.67 has it (then nothing is changed)."""
    path, _, attribute = module.partition(":")
    try:
        owner = importlib.import_module(path)
    except ImportError:
        return False
    owner = getattr(owner, attribute, None) if attribute else owner
    original = getattr(owner, name, None)  # (None too when the class has moved)
    if original is None or getattr(original, "attention_lab", False):
        return original is not None
    wrapped = functools.wraps(original)(wrapper(original))
    wrapped.attention_lab = True
    setattr(owner, name, wrapped)
    return True


def patch_streamlit() -> bool:
    """Wrap Streamlit's socket binding so that its listening socket has TCP_NODELAY; False if the
    function is not where Streamlit 1.67 keeps it."""
    return _wrap("streamlit.web.server.starlette.starlette_server", "_bind_socket",
                 lambda bind: lambda *args, **kwargs: no_delay(bind(*args, **kwargs)))


def whole_if_unknown(session, client_state):
    """The request ``session`` runs: its first, when it names a fragment the session has not drawn, without that
    fragment (a run of the whole page, with the browser's widget values); any other as it came."""
    first, session._attention_lab_asked = not getattr(session, "_attention_lab_asked", False), True
    if not (first and client_state is not None and client_state.fragment_id
            and not session.has_fragment(client_state.fragment_id)):
        return client_state
    from streamlit.proto.ClientState_pb2 import ClientState

    whole = ClientState()
    whole.CopyFrom(client_state)
    whole.fragment_id, whole.is_auto_rerun = "", False
    return whole


def rerun_unknown_fragments_whole() -> bool:
    """Wrap ``AppSession.request_rerun`` with ``whole_if_unknown``. Later requests stay Streamlit's: a fragment a
    full run removed is rightly dropped. False if the method is not where Streamlit 1.67 has it."""
    return _wrap("streamlit.runtime.app_session:AppSession", "request_rerun",
                 lambda request: lambda self, client_state: request(self, whole_if_unknown(self, client_state)))


_HEX = frozenset(b"0123456789abcdefABCDEF")


def _utf8_length(lead: int) -> int:
    """How many bytes the UTF-8 sequence that ``lead`` begins holds (0: no sequence begins with it)."""
    return 1 if lead < 0x80 else 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else \
        4 if 0xF0 <= lead <= 0xF4 else 0


def _decodes(character: bytes) -> bool:
    try:
        character.decode("utf-8")  # strict: no overlong forms, no surrogates (decodeURIComponent refuses them too)
    except UnicodeDecodeError:
        return False
    return True


def well_formed(raw: bytes) -> bytes:
    """``raw`` (a path or a query string as the browser sent it) with the ``%`` of every escape that
    ``decodeURIComponent`` refuses written ``%25``: a ``%`` not followed by two hexadecimal digits, and each
    escaped byte that is not part of a whole UTF-8 character (``%FF``, ``%C3`` alone, an overlong ``%C0%AF``, a
    surrogate ``%ED%A0%80``). What decodes stays as it was, byte for byte."""
    out, i, n = bytearray(), 0, len(raw)
    while i < n:
        if raw[i] != ord("%"):
            out.append(raw[i])
            i += 1
            continue
        run = i  # a run of escapes %XX%XX…: the bytes of one or more characters
        escaped = []
        while run + 2 < n and raw[run] == ord("%") and raw[run + 1] in _HEX and raw[run + 2] in _HEX:
            escaped.append(int(raw[run + 1:run + 3], 16))
            run += 3
        if not escaped:  # a stray %
            out += b"%25"
            i += 1
            continue
        k = 0
        while k < len(escaped):
            length = _utf8_length(escaped[k])
            if 0 < length <= len(escaped) - k and _decodes(bytes(escaped[k:k + length])):
                out += raw[i + 3 * k:i + 3 * (k + length)]
                k += length
            else:
                out += b"%25" + raw[i + 3 * k + 1:i + 3 * k + 3]
                k += 1
        i = run
    return bytes(out)


class RedirectMalformed:
    """ASGI middleware: a GET or HEAD whose path or query ``well_formed`` changes is answered with a redirect to
    the well-formed address (302, as nginx's own redirects; the address is the server's own, one leading slash)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope.get("method") in ("GET", "HEAD"):
            path = scope.get("raw_path") or scope["path"].encode("utf-8")
            query = scope.get("query_string") or b""
            fixed_path, fixed_query = well_formed(path), well_formed(query)
            if (fixed_path, fixed_query) != (path, query):
                location = b"/" + fixed_path.lstrip(b"/\\") + (b"?" + fixed_query if fixed_query else b"")
                await send({"type": "http.response.start", "status": 302,
                            "headers": [(b"location", location), (b"content-length", b"0"),
                                        (b"cache-control", b"no-store")]})
                await send({"type": "http.response.body", "body": b""})
                return
        await self.app(scope, receive, send)


def redirect_malformed_addresses() -> bool:
    """Put ``RedirectMalformed`` in Streamlit's middleware, right after its path security check (which refuses
    ``//host`` paths first); False if the function is not where Streamlit 1.67 has it."""

    def with_redirect(create):
        def create_streamlit_middleware():
            from starlette.middleware import Middleware

            middleware = create()
            middleware.insert(1, Middleware(RedirectMalformed))
            return middleware

        return create_streamlit_middleware

    return _wrap("streamlit.web.server.starlette.starlette_app", "create_streamlit_middleware", with_redirect)


def freeze_startup_heap(script: str) -> None:
    """Import what every run uses, then move every object alive now out of the garbage collector's
    sight (``gc.freeze``): a full collection, which Python runs now and then as objects accumulate,
    then skips the ~94,000 objects of NumPy, pandas, Streamlit and the app's modules (40 ms of work
    each time, measured here) and looks only at what the sessions made since."""
    import gc

    import numpy  # noqa: F401
    import pandas  # noqa: F401

    if Path(script).resolve().is_relative_to(ROOT):  # the app's packages, not another checkout's (a benchmark's)
        sys.path.insert(0, str(ROOT))
        import attention.pretrained  # noqa: F401
        import ui.components
        import ui.walkthrough  # noqa: F401
        import viz.figures  # noqa: F401

    gc.collect()
    gc.freeze()


def main(argv: list[str]) -> int:
    from streamlit.web import cli

    script, options = (argv[0], argv[1:]) if argv and argv[0].endswith(".py") else (str(APP), argv)
    freeze_startup_heap(script)
    if not patch_streamlit():
        print("deploy/serve.py: Streamlit's _bind_socket was not found; serving with Nagle's algorithm on",
              file=sys.stderr)
    if not rerun_unknown_fragments_whole():
        print("deploy/serve.py: Streamlit's AppSession.request_rerun was not found; after a reconnection the "
              "first click inside a lesson does nothing", file=sys.stderr)
    if not redirect_malformed_addresses():
        print("deploy/serve.py: Streamlit's create_streamlit_middleware was not found; a link with a stray % opens "
              "a page that never loads", file=sys.stderr)
    sys.argv = ["streamlit", "run", script, *options]
    return cli.main()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
