"""The floors: attention/ → viz/ → ui/ → lessons/; nothing imports upward (issue 43: viz/player.py imported ui.view).

Every module of a floor is parsed (ast, so an import inside a function counts too, and so does a module named as a
string to importlib.import_module or __import__); none may name a package of a floor above its own."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FLOORS = ("attention", "viz", "ui", "lessons")


def imported(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every import of a file: import x, from x import y, from . import y (resolved against the
    file's package), importlib.import_module("x") and __import__("x")."""
    package = path.relative_to(ROOT).parent.parts
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            if node.module:
                found.append((node.lineno, ".".join([*base, *node.module.split(".")])))
            else:  # from . import x: x is a module of the package
                found += [(node.lineno, ".".join([*base, alias.name])) for alias in node.names]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("import_module", "__import__"):
                found.append((node.lineno, node.args[0].value))
    return found


@pytest.mark.parametrize("floor", FLOORS[:-1])
def test_no_module_imports_a_floor_above_its_own(floor):
    above = FLOORS[FLOORS.index(floor) + 1:]
    files = sorted((ROOT / floor).rglob("*.py"))
    assert files, floor
    upward = [f"{path.relative_to(ROOT)}:{line} imports {module}" for path in files
              for line, module in imported(path) if module.split(".")[0] in above]
    assert not upward, upward


def test_the_reader_of_imports_sees_every_form_of_import(tmp_path, monkeypatch):
    """The check can fail: each way of importing ui from viz/ is found (the old viz/player.py's among them)."""
    floor = tmp_path / "viz"
    floor.mkdir()
    (floor / "x.py").write_text("from ui.view import number\nimport ui\ndef f():\n    import lessons.cross\n"
                                "from .. import ui\nimport importlib\nimportlib.import_module('ui.player')\n",
                                encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    modules = {module for _, module in imported(floor / "x.py")}
    assert modules == {"ui.view", "ui", "lessons.cross", "importlib", "ui.player"}
