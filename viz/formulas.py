"""The formulas of step 8 written out with the trace's own numbers, as LaTeX strings.

Only numbers and indices go into LaTeX, never token text, so no user input is ever typeset.
Indices count from 1, as on the page.
"""

from __future__ import annotations

from collections.abc import Iterable

from attention import AttentionTrace
from viz.labels import format_number


def num(x: float, decimals: int = 2) -> str:
    """A number for LaTeX: negatives in parentheses when they follow an operator."""
    text = format_number(x, decimals).replace("−", "-")
    return f"({text})" if text.startswith("-") else text


def plain(x: float, decimals: int = 2) -> str:
    """A number for LaTeX where no parentheses are needed (after "=", in a fraction)."""
    return format_number(x, decimals).replace("−", "-")


def vec(xs: Iterable[float], decimals: int = 2) -> str:
    """[0.12, -0.50, …] as a LaTeX row vector."""
    return r"\left[" + ",\\ ".join(plain(x, decimals) for x in xs) + r"\right]"


def dot_products(trace: AttentionTrace, i: int, *, per_line: int = 4) -> list[str]:
    r"""s_ij = q_i·k_j / √d_k = (Σ_c q_ic k_jc) / √d_k, one block a key j.

    The products wrap after ``per_line`` terms so that a large d_k still fits the page.
    """
    blocks = []
    root = plain(trace.d_k**0.5)
    for j in range(trace.n):
        qk = rf"q_{{{i + 1}}} \cdot k_{{{j + 1}}}"
        if not trace.mask[i, j]:
            blocks.append(rf"{qk} \text{{ is masked: }} s_{{{i + 1},{j + 1}}} = -\infty")
            continue
        products = [f"{num(qc)}\\cdot{num(kc)}" for qc, kc in zip(trace.q[i], trace.k[j], strict=True)]
        rows = [" + ".join(products[c : c + per_line]) for c in range(0, len(products), per_line)]
        lines = [rf"{qk} &= {rows[0]}"] + [rf"&\quad + {row}" for row in rows[1:]]
        lines.append(rf"&= {plain(trace.scores[i, j])}")
        lines.append(
            rf"s_{{{i + 1},{j + 1}}} = \frac{{{qk}}}{{\sqrt{{d_k}}}} &= \frac{{{plain(trace.scores[i, j])}}}{{{root}}}"
            rf" = {plain(trace.scaled_scores[i, j])}"
        )
        blocks.append(r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}")
    return blocks


def softmax_row(trace: AttentionTrace, i: int) -> str:
    r"""α_ij = e^{s_ij - m_i} / Σ_j' e^{s_ij' - m_i}, with the row's numbers."""
    exps = trace.exp_scores[i]
    total = float(exps.sum())
    terms = " + ".join(num(e, 3) for e in exps)
    lines = [
        rf"m_{{{i + 1}}} = \max_j s_{{{i + 1}j}} = {plain(trace.row_max[i])}"
        rf"\qquad \textstyle\sum_j e^{{s_{{{i + 1}j}} - m_{{{i + 1}}}}} = {terms} = {plain(total, 3)}"
    ]
    for j in range(trace.n):
        lines.append(
            rf"\alpha_{{{i + 1},{j + 1}}} = \frac{{e^{{{num(trace.masked_scores[i, j])} - {num(trace.row_max[i])}}}}}"
            rf"{{{plain(total, 3)}}} = \frac{{{plain(exps[j], 3)}}}{{{plain(total, 3)}}} = {plain(trace.weights[i, j])}"
            if trace.mask[i, j]
            else rf"\alpha_{{{i + 1},{j + 1}}} = 0 \quad \text{{(masked)}}"
        )
    return aligned(lines)


def weighted_sum(trace: AttentionTrace, i: int) -> str:
    r"""out_i = Σ_j α_ij v_j with every α and v written out."""
    terms = r" \\ &+ ".join(
        rf"{plain(trace.weights[i, j])}\,{vec(trace.v[j])}" for j in range(trace.n)
    )
    return (
        r"\begin{aligned}"
        + rf"\mathrm{{out}}_{{{i + 1}}} = \textstyle\sum_j \alpha_{{{i + 1}j}}\, v_j &= {terms} \\ &= {vec(trace.output[i])}"
        + r"\end{aligned}"
    )


def aligned(lines: list[str]) -> str:
    """Stack equations, one a line."""
    return r"\begin{gathered}" + r" \\ ".join(lines) + r"\end{gathered}"
