"""Numbers as the learner reads them, and written-out arithmetic that adds up: the one rule.

**Shown numbers.** A number is held at six decimals, as the integer k = rint(x · 10⁶), and shown at d
decimals by rounding k half away from zero (``text``). The browser does the same in integers
(static/view.js, ``formatNumber``), from the six-decimal numbers the server sends, so a table drawn in the
browser, a heatmap drawn on the server and a formula always write the same digits for the same number
(floating-point ``toFixed`` and Python's ``format`` disagree on exact halves: 0.125 is "0.13" in one
and "0.12" in the other).

**Written-out arithmetic.** A sum, product or quotient written on screen (a tooltip, a Σ table, a
formula, a feedback text) shows its inputs with the fewest decimals d, from 2 up to 6, at which the
shown inputs, computed exactly, land strictly inside the rounding interval of the shown result: a
learner with a calculator gets the shown result, whatever rounding convention they use. Where no d
does (a result on a rounding boundary), the expression says "≈" instead of "=".

Everything here works on whole arrays (a 64 × 64 score matrix's tooltips are one call), in integers, so
there is no floating-point doubt about what "adds up" means.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

HELD = 6  # decimals every number is held at
FEWEST, MOST = 2, 6  # the decimals written-out inputs may carry
APPROX = "≈"
_SCALE = 10**HELD
_JS_EXACT = 2.0**52 / _SCALE  # |x| below this: k is exact in a float64, as the browser computes with it
_HELD_BELOW = 2.0**63 / _SCALE / 2  # |x| below this: k fits an int64

Ints = npt.NDArray[np.int64]


def held(x: npt.ArrayLike) -> Ints:
    """k = rint(x · 10⁶): the number as every view holds it. Non-finite entries give 0 (callers show
    them as "−∞" or "—" before they get here)."""
    a = np.asarray(x, dtype=np.float64)
    a = np.where(np.isfinite(a), a, 0.0)
    return np.rint(np.clip(a, -_HELD_BELOW, _HELD_BELOW) * _SCALE).astype(np.int64)


def number(x: Any) -> float | str | None:
    """A cell for the browser: a finite number held at 6 decimals (``held``, so the browser writes the digits
    the server would), text as it is, None for a masked or non-finite one."""
    if isinstance(x, str):
        return x
    if x is None or (isinstance(x, float | np.floating) and not math.isfinite(float(x))):
        return None
    if isinstance(x, int | np.integer | bool | np.bool_):
        return str(int(x))  # a whole number (an id, a digit) is shown as written, whatever the decimals
    return int(held(float(x))) / _SCALE


def numbers(x: npt.ArrayLike) -> list[list[float | None]]:
    """``number`` of every cell of a 2-D float array, in one pass: a real model's W_Q is 24,576 cells, and one
    ``number`` call a cell took 0.6 s of a rerun (issue 46's map click). The same floats as ``number``: k / 10⁶
    divided as Python divides ints, where |k| ≥ 2⁵³ too (numpy would round k to a float first)."""
    a = np.asarray(x, dtype=np.float64)
    k = held(a)
    out = (k / _SCALE).astype(object)
    out[~np.isfinite(a)] = None
    for r, c in zip(*np.nonzero((np.abs(k) >= 2**53) & np.isfinite(a)), strict=True):
        out[r, c] = int(k[r, c]) / _SCALE
    return out.tolist()


def shown_digits(x: npt.ArrayLike, decimals: int) -> list[list[int | None]]:
    """Every cell of a 2-D float array as it is shown at ``decimals``, as an integer count of 10^−decimals (−0.05 at
    two decimals is −5), None where it is not finite: a long table sent in a third of the bytes of ``numbers``; the
    browser divides by 10^decimals (static/view.js) and writes the same digits."""
    a = np.asarray(x, dtype=np.float64)
    out = digits(held(a), decimals).astype(object)
    out[~np.isfinite(a)] = None
    return [[None if v is None else int(v) for v in row] for row in out.tolist()]


def digits(k: npt.ArrayLike, decimals: int | npt.ArrayLike) -> Ints:
    """The shown number as an integer count of 10^−decimals: k rounded half away from zero."""
    k = np.asarray(k, dtype=np.int64)
    q = 10 ** (HELD - np.asarray(decimals, dtype=np.int64))
    return np.sign(k) * ((np.abs(k) + q // 2) // q)


def shown(x: npt.ArrayLike, decimals: int | npt.ArrayLike = 2) -> npt.NDArray[np.float64]:
    """The number a learner reads, as a float (for a learner's own arithmetic in tests and checks)."""
    return digits(held(x), decimals) / 10.0 ** np.asarray(decimals)


def text(x: float, decimals: int = 2) -> str:
    """``x`` at ``decimals`` decimals, with a true minus sign; a number that shows as zero has none.

    Beyond ±4.5·10⁹, where six decimals no longer fit exactly, the float is formatted as it is."""
    if abs(x) >= _JS_EXACT:
        return f"{x:.{decimals}f}".replace("-", "−")
    n = int(digits(held(x), decimals))
    whole, part = divmod(abs(n), 10**decimals)
    sign = "−" if n < 0 else ""
    return f"{sign}{whole}.{part:0{decimals}d}" if decimals > 0 else f"{sign}{whole}"


def _strictly_rounds_to(exact: Ints, exact_decimals: int, result: Ints, result_decimals: int) -> npt.NDArray[np.bool_]:
    """Whether exact · 10^−exact_decimals rounds to result · 10^−result_decimals under every rounding
    convention: it lies strictly within half a unit of the result's last decimal."""
    if exact_decimals < result_decimals:  # the exact value has fewer decimals: it must be the result itself
        exact, exact_decimals = exact * 10 ** (result_decimals - exact_decimals), result_decimals
    unit = 10 ** (exact_decimals - result_decimals)  # one unit of the result's last decimal
    exact, result = np.asarray(exact), np.asarray(result)
    if exact.dtype == object or _largest(result) * unit * 4 >= 2.0**62 or _largest(exact) * 4 >= 2.0**62:
        exact, result = exact.astype(object), result.astype(object)
    return np.asarray(2 * np.abs(exact - result * unit) < unit, dtype=bool)


def _largest(a: npt.ArrayLike) -> float:
    return float(np.abs(np.asarray(a)).max(initial=0))


def _exact(*arrays: Ints, terms: int = 1) -> tuple:
    """The arrays as they are when every pairwise product (summed over ``terms``) stays within int64,
    else as Python integers (huge hand-edited numbers: slower, still exact)."""
    big = max((_largest(a) for a in arrays), default=0.0)
    if (max(big, 1.0) ** 2) * max(terms, 1) * 4 < 2.0**62:
        return arrays
    return tuple(np.asarray(a).astype(object) for a in arrays)


def decimals_for(adds_up: Callable[[int], npt.NDArray[np.bool_]], shape: tuple[int, ...]) -> Ints:
    """Per expression: the fewest decimals (2 … 6) at which ``adds_up(d)`` holds, or −6 where none
    does (write "≈" and six decimals). ``adds_up`` answers for every expression at once."""
    out = np.full(shape, -MOST, dtype=np.int64)
    open_ = np.ones(shape, dtype=bool)
    for d in range(FEWEST, MOST + 1):
        ok = open_ & np.asarray(adds_up(d), dtype=bool)
        out[ok] = d
        open_ &= ~ok
        if not open_.any():
            break
    return out


def products_add_up(a: npt.ArrayLike, b: npt.ArrayLike, result: npt.ArrayLike, decimals: int, *,
                    result_decimals: int = 2) -> npt.NDArray[np.bool_]:
    """Whether Σ_t a_t·b_t, of the factors shown at ``decimals``, gives the shown result: ``a`` and ``b``
    are [..., T] (broadcast), the result [...]."""
    ka, kb = np.broadcast_arrays(held(a), held(b))
    na, nb = _exact(digits(ka, decimals), digits(kb, decimals), terms=ka.shape[-1] if ka.ndim else 1)
    return _strictly_rounds_to((na * nb).sum(axis=-1), 2 * decimals, digits(held(result), result_decimals),
                               result_decimals)


def terms_add_up(terms: npt.ArrayLike, result: npt.ArrayLike, decimals: int, *,
                 result_decimals: int = 2) -> npt.NDArray[np.bool_]:
    """Whether Σ_t terms_t, of the terms shown at ``decimals``, gives the shown result: ``terms`` [..., T],
    the result [...]."""
    return _strictly_rounds_to(digits(held(terms), decimals).sum(axis=-1), decimals,
                               digits(held(result), result_decimals), result_decimals)


def quotient_adds_up(numerator: npt.ArrayLike, denominator: npt.ArrayLike, result: npt.ArrayLike, decimals: int, *,
                     result_decimals: int = 2) -> npt.NDArray[np.bool_]:
    """Whether numerator / denominator, both shown at ``decimals``, gives the shown result (broadcast). A
    denominator that shows as 0 never does."""
    kn, kd = np.broadcast_arrays(held(numerator), held(denominator))
    unit = 10**result_decimals
    n, m, r = _exact(digits(kn, decimals) * unit, digits(kd, decimals), digits(held(result), result_decimals))
    # |n/m − r/unit| < 1/(2·unit)  ⇔  2·|n·unit − r·m| < |m|, for m ≠ 0
    return np.asarray((m != 0) & (2 * np.abs(n - r * m) < np.abs(m)), dtype=bool)


def sums_of_products(a: npt.ArrayLike, b: npt.ArrayLike, result: npt.ArrayLike, *, result_decimals: int = 2) -> Ints:
    """Σ_t a_t·b_t = result, every expression at once: the decimals each one's factors need (negative:
    write "≈"). See ``products_add_up``."""
    return decimals_for(lambda d: products_add_up(a, b, result, d, result_decimals=result_decimals),
                        np.shape(result))


def sums(terms: npt.ArrayLike, result: npt.ArrayLike, *, result_decimals: int = 2) -> Ints:
    """Σ_t terms_t = result (terms along the last axis), every expression at once: the decimals each
    one's terms need (negative: write "≈")."""
    return decimals_for(lambda d: terms_add_up(terms, result, d, result_decimals=result_decimals), np.shape(result))


def quotients(numerator: npt.ArrayLike, denominator: npt.ArrayLike, result: npt.ArrayLike, *,
              result_decimals: int = 2) -> Ints:
    """numerator / denominator = result, every expression at once (broadcast): the decimals both inputs
    need (negative: write "≈")."""
    shape = np.broadcast_shapes(np.shape(numerator), np.shape(denominator), np.shape(result))
    return decimals_for(lambda d: quotient_adds_up(numerator, denominator, result, d,
                                                   result_decimals=result_decimals), shape)


def together(adds_up: Callable[[int], npt.ArrayLike]) -> int:
    """The fewest decimals at which every expression of ``adds_up`` holds at once (one line that writes
    them all with the same decimals), or −6."""
    return int(decimals_for(lambda d: np.all(adds_up(d)), ()))


def relation(decimals: int) -> str:
    """"=" for decimals that add up, "≈" for the marker ``decimals_for`` gives where none do."""
    return "=" if decimals > 0 else APPROX


def places(decimals: int) -> int:
    """The decimals to write (the marker's magnitude)."""
    return abs(int(decimals))


def average(xs: npt.ArrayLike, *, decimals: int = 2) -> str:
    """The mean of numbers as they are shown at ``decimals``, written with as many decimals (``decimals``
    … 6) as it takes for a learner's own mean of the shown numbers to round to it; "≈ …" where none do.
    An average of a table's cells, said beside the table, is then the table's average."""
    n = digits(held(xs), decimals).ravel()
    if n.size == 0:
        return "–"
    for d in range(decimals, MOST + 1):
        # exact mean = Σn / (size · 10^decimals); shown r at d: |Σn·10^d − r·size·10^decimals| · 2 < size·10^decimals
        scale = 10**decimals * n.size
        r = int(digits(held(float(n.sum()) / scale), d))
        if 2 * abs(int(n.sum()) * 10**d - r * scale) < scale:
            return text(float(n.sum()) / scale, d)
    return f"{APPROX} {text(float(n.sum()) / scale, MOST)}"


def beside(x: float, threshold: float) -> int:
    """The fewest decimals (2 … 6) at which ``x`` shows on its own side of ``threshold`` ("0.497, below
    0.5" rather than "0.50, below 0.5"); 6 where it sits closer still."""
    for d in range(FEWEST, MOST + 1):
        shown_x = float(shown(x, d))
        if (x < threshold and shown_x < threshold) or (x >= threshold and shown_x >= threshold):
            return d
    return MOST
