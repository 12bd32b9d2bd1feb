"""Fixtures shared by the test modules: the real models, loaded once per process (``load`` shares one)."""

from __future__ import annotations

import pytest

from attention.pretrained import load


@pytest.fixture(scope="session")
def minilm():
    return load("minilm")


@pytest.fixture(scope="session")
def smollm2():
    return load("smollm2")
