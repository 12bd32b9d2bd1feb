"""Page scripts define no functions or classes: each run of a page executes its file in a fresh module,
and a function defined there refers to that run's globals (its __globals__) while the globals refer to
it, a reference cycle that only a full garbage collection frees. With the page's traces and α in those
globals, the server's memory grew by ~2.6 MB for every new sentence on "A real model" (issue 26).
Functions live in ui/, viz/ and attention/; a page calls them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PAGES = sorted((Path(__file__).resolve().parents[1] / "lessons").glob("*.py"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_page_script_defines_no_function_class_or_named_lambda(page):
    tree = ast.parse(page.read_text(encoding="utf-8"))
    found = [f"line {node.lineno}: {type(node).__name__}" for node in ast.walk(tree)
             if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
             or (isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda))]
    assert not found, f"{page.name}: move these into a module ({found})"
