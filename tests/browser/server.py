"""Start a real `streamlit run` on 127.0.0.1 and a Debian Chromium driven by Playwright.

Shared by the browser tests and the browser benchmark.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVE = ROOT / "deploy" / "serve.py"  # streamlit run, with Nagle's algorithm off (as make run and the Dockerfile)
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served(str):
    """A server's base URL, with the process behind it (so a test can stop one replica)."""

    process: subprocess.Popen


@contextlib.contextmanager
def streamlit_server(script: str | Path = "app.py", *, timeout: float = 60.0,
                     env: dict[str, str] | None = None) -> Iterator[Served]:
    """Serve ``script`` on a free loopback port (``env`` added to its environment); yield its base URL
    once /_stcore/health says ok."""
    port = free_port()
    artifacts = ROOT / "test-artifacts"
    # class mode's SQLite file: a fresh folder for each server, removed after it, unless the caller chose one
    data = None if os.environ.get("ATTENTION_LAB_DATA") else tempfile.TemporaryDirectory(prefix="attention-lab-")
    log = open(artifacts / f"server-{port}.log", "w") if artifacts.is_dir() else subprocess.DEVNULL
    proc = subprocess.Popen(
        [sys.executable, str(SERVE), str(script), "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1",
             "ATTENTION_LAB_DATA": data.name if data else os.environ["ATTENTION_LAB_DATA"], **(env or {})},
    )
    try:
        with _serving(proc, port, timeout) as base:
            yield base
    finally:  # (the server has stopped: _serving waited for it)
        if log is not subprocess.DEVNULL:
            log.close()
        if data is not None:
            data.cleanup()


@contextlib.contextmanager
def _serving(proc: subprocess.Popen, port: int, timeout: float) -> Iterator[Served]:
    """``proc``'s base URL on ``port`` once it is healthy; stop it at the end."""
    base = Served(f"http://127.0.0.1:{port}")
    base.process = proc
    try:
        wait_healthy(base, timeout, proc)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def wait_healthy(base: str, timeout: float, proc: subprocess.Popen) -> None:
    """Wait until ``base``/_stcore/health answers ok (Streamlit's, or through nginx)."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args[0]} exited with code {proc.returncode} before it was healthy")
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as r:
                if r.read().decode().strip() == "ok":
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{base} was not healthy within {timeout} s")
        time.sleep(0.2)


NGINX = "/usr/sbin/nginx"
NGINX_CONF = ROOT / "deploy" / "nginx" / "attention-lab.conf"
TEMP_PATHS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")


@contextlib.contextmanager
def nginx_in_front(replicas: list[str], *, timeout: float = 30.0) -> Iterator[Served]:
    """Debian's nginx on a free loopback port, with deploy/'s Attention Lab config in front of
    ``replicas`` (base URLs). Only the listen line and the replica list differ from deploy/."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="attention-lab-nginx-") as tmp:
        conf = Path(tmp)
        conf.chmod(0o755)  # nginx's workers run as nobody when the tests run as root
        for name in TEMP_PATHS:
            (conf / name).mkdir(mode=0o777)
            (conf / name).chmod(0o777)
        shipped = NGINX_CONF.read_text(encoding="utf-8")
        assert "    listen 8080;\n" in shipped
        listen = f"    listen 127.0.0.1:{port};\n"
        (conf / "attention-lab.conf").write_text(shipped.replace("    listen 8080;\n", listen))
        (conf / "attention-lab-upstreams.conf").write_text(
            "".join(f"server {r.removeprefix('http://')} max_fails=1 fail_timeout=10s;\n" for r in replicas))
        (conf / "nginx.conf").write_text(
            f"pid {tmp}/nginx.pid;\nerror_log {tmp}/error.log warn;\nevents {{ worker_connections 1024; }}\n"
            "http {\n  access_log off;\n"
            + "".join(f"  {name}_temp_path {tmp}/{name};\n" for name in TEMP_PATHS)
            + "  include attention-lab.conf;\n}\n"
        )
        proc = subprocess.Popen([NGINX, "-p", tmp, "-c", f"{tmp}/nginx.conf", "-g", "daemon off;"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        with _serving(proc, port, timeout) as base:
            yield base


def launch_chromium(playwright):
    """Debian's Chromium, headless; Playwright's own browser downloads are not available here."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
