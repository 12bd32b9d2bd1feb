"""A throwaway PostgreSQL server for the tests: Debian's own binaries (``make test`` installs the
``postgresql`` package when missing), a new cluster in a temporary folder on a free port, removed
afterwards. PostgreSQL refuses to run as root, so as root the cluster belongs to the postgres user."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path


def bindir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise RuntimeError("PostgreSQL is not installed: run make test (it installs Debian's postgresql).")
    return Path(found[-1]).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def throwaway_postgres() -> Iterator[str]:
    """Start a cluster; yield its URL; stop it and delete it."""
    folder = Path(tempfile.mkdtemp(prefix="attention-lab-pg-"))
    as_root = os.geteuid() == 0
    prefix = ["runuser", "-u", "postgres", "--"] if as_root else []
    if as_root:
        shutil.chown(folder, "postgres")
    data, port = folder / "data", free_port()
    run = [*prefix, str(bindir() / "pg_ctl"), "-D", str(data)]
    subprocess.run([*prefix, str(bindir() / "initdb"), "-D", str(data), "-A", "trust", "-U", "attention",
                    "--no-sync", "-E", "UTF8"], check=True, capture_output=True)
    subprocess.run([*run, "-o", f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off", "-w",
                    "-l", str(folder / "log"), "start"], check=True, capture_output=True)
    try:
        yield f"postgresql://attention@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*run, "-m", "immediate", "-w", "stop"], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
