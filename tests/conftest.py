"""Fixtures shared by the test modules: the real models, loaded once per process (``load`` shares one)."""

from __future__ import annotations

import os

# One OpenBLAS thread in this process and in every server and worker it starts (they inherit the environment), set
# before NumPy loads OpenBLAS. Its default, a thread a core, made the model tests twice as slow on a busy machine: a
# test run is several processes on 2 cores (pytest, Streamlit servers, Chromium), and an OpenBLAS thread spins while
# it waits for work, on the core another process needs. Beside a full test run, in turns, SmolLM2's layout tests and
# the model tests took 125 s and 155 s with 2 threads, 62 s and 79 s with one (docs/benchmarks.md). What a test checks
# is unchanged; a value set outside (OPENBLAS_NUM_THREADS=2 pytest) wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pytest
from hypothesis import HealthCheck, settings

from attention.pretrained import load
from tests import apptest_fragments

apptest_fragments.install()  # AppTest keeps the page outside a fragment's own run, as the browser does

# Hypothesis times two things by the wall clock: each example (the 200 ms deadline) and the drawing of
# inputs (the too_slow health check). On a busy machine both fail tests whose properties hold, so
# neither is used; what a property checks is unchanged.
settings.register_profile("attention-lab", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("attention-lab")


@pytest.fixture(scope="session")
def minilm():
    return load("minilm")


@pytest.fixture(scope="session")
def smollm2():
    return load("smollm2")
