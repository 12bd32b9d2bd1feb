"""Fixtures shared by the test modules: the real models, loaded once per process (``load`` shares one)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

from attention.pretrained import load

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
