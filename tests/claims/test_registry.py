"""The claims registry (tests/claims/registry.py) covers every lesson text and page module, quotes what
the files still say, and names tests that exist."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from tests.claims.registry import CLAIMS, NO_CLAIM, PAGE_MODULES

ROOT = Path(__file__).resolve().parents[2]


def normalised(text: str, python: bool = False) -> str:
    """Whitespace collapsed; in Python source, adjacent string literals joined ("a " "b" reads "a b")."""
    if python:
        text = re.sub(r"\"\s*\n\s*[rf]*\"", "", text)
    return " ".join(text.split())


def test_every_lesson_text_and_page_module_is_listed():
    texts = {str(p.relative_to(ROOT)) for p in (ROOT / "assets").rglob("*.md")}
    modules = {str(p.relative_to(ROOT)) for pattern in PAGE_MODULES for p in ROOT.glob(pattern)}
    missing = sorted((texts | modules) - set(CLAIMS))
    assert not missing, f"list these files' claims in tests/claims/registry.py: {missing}"
    assert not sorted(set(CLAIMS) - texts - modules), "the registry lists files that are gone"


@pytest.mark.parametrize("path", sorted(CLAIMS))
def test_every_quote_is_still_in_its_file_and_every_test_exists(path):
    claims = CLAIMS[path]
    if isinstance(claims, str):
        assert claims.startswith(NO_CLAIM), path
        return
    assert claims, f"{path}: list its claims, or NO_CLAIM with the reason"
    text = normalised((ROOT / path).read_text(encoding="utf-8"), python=path.endswith(".py"))
    for quote, test in claims:
        assert normalised(quote) in text, f"{path} no longer says: {quote!r} (check the claim again, then update)"
        module, name = test.split("::")
        assert callable(getattr(importlib.import_module(module), name, None)), f"{path}: no test {test}"
