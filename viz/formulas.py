"""The walkthrough's formulas written out with the trace's own numbers, as LaTeX strings.

Only numbers and indices go into LaTeX, never token text, so no user input is ever typeset.
Indices count from 1, as on the page. One symbol, one meaning, on every page:

    s_ij = q_i·k_j                 the raw score (step 5)
    z_ij = s_ij / √d_k             the scaled score the softmax sees (step 6; −∞ where masked)
    m_i  = max_j z_ij              the row maximum subtracted for numerical safety
    α_ij = e^{z_ij − m_i} / Σ_j' e^{z_ij' − m_i}

Written-out arithmetic adds up on screen: the inputs of a sum or a quotient get as many decimals
(from 2 up to 6) as it takes for the shown inputs to give the shown result at its shown precision.
Where even 6 do not (a result exactly on a rounding boundary), the line says "≈" instead of "=".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial

import numpy as np

from attention import AttentionTrace
from viz.labels import format_number

MOST_DECIMALS = 6


def num(x: float, decimals: int = 2) -> str:
    """A number for LaTeX: negatives in parentheses when they follow an operator."""
    text = format_number(x, decimals).replace("−", "-")
    return f"({text})" if text.startswith("-") else text


def plain(x: float, decimals: int = 2) -> str:
    """A number for LaTeX where no parentheses are needed (after "=", in a fraction)."""
    return format_number(x, decimals).replace("−", "-")


def shown(x: float, decimals: int = 2) -> float:
    """The number as the learner reads it on screen."""
    return float(plain(x, decimals))


def vec(xs: Iterable[float], decimals: int = 2) -> str:
    """[0.12, -0.50, …] as a LaTeX row vector."""
    return r"\left[" + ",\\ ".join(plain(x, decimals) for x in xs) + r"\right]"


def enough_decimals(adds_up: Callable[[int], bool], start: int = 2) -> tuple[int, str]:
    """The fewest decimals (start … MOST_DECIMALS) at which ``adds_up(decimals)`` holds, and the
    relation to write: "=" when it holds, "≈" when no number of decimals makes it hold."""
    for decimals in range(start, MOST_DECIMALS + 1):
        if adds_up(decimals):
            return decimals, "="
    return MOST_DECIMALS, r"\approx"


def positional_encoding(trace: AttentionTrace) -> str:
    r"""P_{i,2c+1} = sin((i−1)/10000^{2c/d_model}), P_{i,2c+2} = cos(…), with a worked example.

    Tokens i and columns count from 1, as in the tables; the token at position i has pos = i − 1,
    so the first token's sines are all 0. The example is the trace's own entry P_{2,1} (or P_{1,1}
    for a one-token sentence).
    """
    p = trace.positional_encoding
    assert p is not None, "the trace has no positional encodings"
    i = 2 if trace.n > 1 else 1
    return (
        r"X = E + P,\qquad P_{i,\,2c+1} = \sin\frac{i-1}{10000^{2c/d_{model}}},\quad "
        r"P_{i,\,2c+2} = \cos\frac{i-1}{10000^{2c/d_{model}}},\quad c = 0, 1, \dots"
        rf"\qquad \text{{e.g. }} P_{{{i},1}} = \sin\frac{{{i - 1}}}{{10000^{{0}}}} = \sin {i - 1}"
        rf" = {plain(p[i - 1, 0])}"
    )


def dot_products(trace: AttentionTrace, i: int, *, per_line: int = 4) -> list[str]:
    r"""s_ij = q_i·k_j = Σ_c q_ic k_jc, then z_ij = s_ij / √d_k, one block a key j.

    The products wrap after ``per_line`` terms so that a large d_k still fits the page.
    """
    blocks = []
    qi = trace.query_positions[i] + 1  # the query's position, as the tables number it
    root = 1 / trace.scale  # √d_k (· T)
    for j in range(trace.n):
        s_ij, z_ij = rf"s_{{{qi},{j + 1}}}", rf"z_{{{qi},{j + 1}}}"
        qk = rf"q_{{{qi}}} \cdot k_{{{j + 1}}}"
        if not trace.mask[i, j]:
            blocks.append(rf"\begin{{aligned}}{s_ij} = {qk} &\text{{ is masked: }} {z_ij} = -\infty\end{{aligned}}")
            continue
        q, k, s, z = trace.q[i], trace.k[j], trace.scores[i, j], trace.scaled_scores[i, j]
        d, sum_rel = enough_decimals(partial(_products_add_up, q, k, s))
        products = [f"{num(qc, d)}\\cdot{num(kc, d)}" for qc, kc in zip(q, k, strict=True)]
        rows = [" + ".join(products[c : c + per_line]) for c in range(0, len(products), per_line)]
        lines = [rf"{s_ij} = {qk} &= {rows[0]}"] + [rf"&\quad + {row}" for row in rows[1:]]
        lines.append(rf"&{sum_rel} {plain(s)}")
        e, div_rel = enough_decimals(partial(_quotient_shows, s, root, z))
        lines.append(
            rf"{z_ij} = \frac{{{s_ij}}}{{{_divisor(trace)}}} &{div_rel} \frac{{{plain(s, e)}}}{{{plain(root, e)}}}"
            rf" = {plain(z)}"
        )
        blocks.append(r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}")
    return blocks


def one_alignment(blocks: Iterable[str], gap: str = "12pt") -> str:
    r"""Aligned blocks as one: their lines share one ``&=`` column, ``gap`` apart between blocks (one
    formula element on the page instead of one a block)."""
    inner = [b.removeprefix(r"\begin{aligned}").removesuffix(r"\end{aligned}") for b in blocks]
    return r"\begin{aligned}" + rf" \\[{gap}] ".join(inner) + r"\end{aligned}"


def _products_add_up(q: np.ndarray, k: np.ndarray, total: float, decimals: int) -> bool:
    """Σ_c q_c k_c of the shown factors gives the shown total."""
    return plain(sum(shown(a, decimals) * shown(b, decimals) for a, b in zip(q, k, strict=True))) == plain(total)


def _quotient_shows(numerator: float, denominator: float, result: float, decimals: int) -> bool:
    return plain(shown(numerator, decimals) / shown(denominator, decimals)) == plain(result)


def _divisor(trace: AttentionTrace) -> str:
    return r"\sqrt{d_k}" if trace.temperature == 1 else r"\sqrt{d_k}\,T"


def softmax_row(trace: AttentionTrace, i: int) -> str:
    r"""α_ij = e^{z_ij − m_i} / Σ_j' e^{z_ij' − m_i}, with the row's numbers."""
    allowed = trace.mask[i]
    qi = trace.query_positions[i] + 1
    exps, z, m = trace.exp_scores[i], trace.masked_scores[i], float(trace.row_max[i])
    total = float(exps.sum())
    kept = [j for j in range(trace.n) if allowed[j]]
    # e^{z − m} as written, for the exponent's shown decimals; then Σ of the shown terms; then each quotient
    dz, exp_rel = enough_decimals(lambda d: all(plain(np.exp(shown(z[j], d) - shown(m, d)), 3) == plain(exps[j], 3)
                                                for j in kept))
    de, sum_rel = enough_decimals(lambda d: plain(sum(shown(exps[j], d) for j in kept), 3) == plain(total, 3), 3)
    da, div_rel = enough_decimals(lambda d: all(plain(shown(exps[j], d) / shown(total, d)) == plain(trace.weights[i, j])
                                                for j in kept), 3)
    terms = " + ".join(num(exps[j], de) for j in kept)
    lines = [
        rf"m_{{{qi}}} = \max_j z_{{{qi}j}} = {plain(m, dz)}"
        rf"\qquad \textstyle\sum_j e^{{z_{{{qi}j}} - m_{{{qi}}}}} = "
        + (f"{terms} {sum_rel} {plain(total, 3)}" if len(kept) > 1 else plain(total, 3))
    ]
    for j in range(trace.n):
        a = rf"\alpha_{{{qi},{j + 1}}}"
        if not allowed[j]:
            lines.append(rf"{a} = 0 \quad \text{{(masked: }} z_{{{qi},{j + 1}}} = -\infty\text{{)}}")
            continue
        lines.append(
            rf"{a} = \frac{{e^{{{num(z[j], dz)} - {num(m, dz)}}}}}{{{plain(total, da)}}} {exp_rel} "
            rf"\frac{{{plain(exps[j], da)}}}{{{plain(total, da)}}} {div_rel} {plain(trace.weights[i, j])}"
        )
    return aligned(lines)


def weighted_sum(trace: AttentionTrace, i: int) -> str:
    r"""out_i = Σ_j α_ij v_j with every α and v written out (masked keys, α = 0, left out)."""
    kept = [j for j in range(trace.n) if trace.mask[i, j]]
    qi = trace.query_positions[i] + 1
    a, v, out = trace.weights[i], trace.v, trace.output[i]
    d, rel = enough_decimals(lambda d: all(
        plain(sum(shown(a[j], d) * shown(v[j, c], d) for j in kept)) == plain(out[c]) for c in range(trace.d_k)))
    terms = r" \\ &+ ".join(rf"{plain(a[j], d)}\,{vec(v[j], d)}" for j in kept)
    if len(kept) < trace.n:
        masked = trace.n - len(kept)
        terms += rf" \\ &+ 0 \cdot (\text{{the {masked} masked value vector{'s' if masked > 1 else ''}}})"
    return (
        r"\begin{aligned}"
        + rf"\mathrm{{out}}_{{{qi}}} = \textstyle\sum_j \alpha_{{{qi}j}}\, v_j &= {terms} \\ &{rel} {vec(out)}"
        + r"\end{aligned}"
    )


def aligned(lines: list[str]) -> str:
    """Stack equations, one a line."""
    return r"\begin{gathered}" + r" \\ ".join(lines) + r"\end{gathered}"
