"""A learner with a calculator: reads a written-out expression ("2.123·(−1.391) + 0.779·1.023 = −3.98"),
computes its left side exactly from the numbers as shown, and checks the shown result.

Used on the tooltips' text (written by static/tooltip.js in Node), on the Σ table, and by the
stateful test on every page it visits. Independent of the rule that chose the decimals
(viz/arithmetic.py): it only reads text.
"""

from __future__ import annotations

import json
import re
import subprocess
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NUMBER = re.compile(r"[−-]?\d+(?:\.\d+)?")
_SEPARATOR = re.compile(r" (=|≈) ")
_ARITHMETIC = re.compile(r"^[\d.\s·+/()−-]+$")


def value(text: str) -> Fraction:
    return Fraction(text.replace("−", "-"))


def evaluate(expression: str) -> Fraction:
    """An expression of shown numbers, ·, +, / and parentheses, computed exactly."""
    assert _ARITHMETIC.match(expression), expression
    python = NUMBER.sub(lambda m: f"F('{m.group(0).replace('−', '-')}')", expression)
    python = python.replace("·", "*").replace("−", "-")
    return eval(python, {"__builtins__": {}, "F": Fraction})  # only numbers and operators: checked above


def decimals(number: str) -> int:
    return len(number.split(".")[1]) if "." in number else 0


def rounds_to(exact: Fraction, shown: str) -> bool:
    """Whether a learner's exact value rounds to the shown number under any rounding convention: it lies
    strictly within half a unit of the shown number's last decimal."""
    return 2 * abs(exact - value(shown)) < Fraction(1, 10 ** decimals(shown))


def check(line: str) -> tuple[str, Fraction, str] | None:
    """The line's last written-out arithmetic, checked: "=" must hold at the result's shown precision, strictly
    inside its rounding interval (so any rounding convention agrees); "≈" must come with six-decimal inputs
    (the rule writes "≈" only when no fewer decimals add up). Returns (relation, exact value, shown result),
    or None when the line writes no arithmetic (or a sum cut short, "… more terms")."""
    parts = _SEPARATOR.split(line)
    # parts: [s0, rel1, s1, rel2, s2, ...]; the result is the last segment, the expression the one before
    if len(parts) < 3:
        return None
    result, relation, expression = parts[-1].rstrip("."), parts[-2], parts[-3]
    result_number = NUMBER.fullmatch(result.strip())
    if "more terms" in expression or not result_number or not _ARITHMETIC.match(expression) \
            or not NUMBER.search(expression) or NUMBER.fullmatch(expression.strip()):
        return None
    exact = evaluate(expression)
    shown = value(result.strip())
    unit = Fraction(1, 10 ** decimals(result.strip()))
    if relation == "=":
        assert 2 * abs(exact - shown) < unit, f"{line!r}: the shown numbers give {float(exact)!r}, not {result}"
    else:
        assert all(decimals(n) == 6 for n in NUMBER.findall(expression)), f"{line!r}: ≈ before six decimals"
    return relation, exact, result.strip()


def tooltip_texts(panels: list[dict]) -> list[list[list[list[dict]]]]:
    """Every cell's tooltip as static/tooltip.js writes it (run in Node): [panel][row][col] → lines."""
    done = subprocess.run(["node", str(ROOT / "tests" / "js" / "explain_cells.mjs")], input=json.dumps(panels),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)
