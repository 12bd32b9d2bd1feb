"""The walkthrough's formulas written out with the trace's own numbers, as LaTeX strings.

Only numbers and indices go into LaTeX, never token text, so no user input is ever typeset.
Indices count from 1, as on the page. One symbol, one meaning, on every page:

    s_ij = q_i·k_j                 the raw score (step 5)
    z_ij = s_ij / √d_k             the scaled score the softmax sees (step 6; −∞ where masked)
    m_i  = max_j z_ij              the row maximum subtracted for numerical safety
    α_ij = e^{z_ij − m_i} / Σ_j' e^{z_ij' − m_i}

Written-out arithmetic adds up on screen, by the one rule of ``viz.arithmetic``: the inputs of a sum,
product or quotient get as many decimals (from 2 up to 6) as it takes for the shown inputs to give the
shown result at its shown precision. Where even 6 do not (a result on a rounding boundary), the line
says "≈" instead of "=".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

from attention import AttentionTrace
from viz import arithmetic as A
from viz.i18n import decimal, nt, t
from viz.labels import format_number

_TEXT_MODE = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "#": r"\#", "$": r"\$", "%": r"\%", "&": r"\&",
              "_": r"\_", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}"}


def words(text: str) -> str:
    """Plain words inside a formula, in TeX's text mode (a catalog's text: its TeX characters escaped)."""
    return r"\text{" + "".join(_TEXT_MODE.get(c, c) for c in text) + "}"


def sentence(message: str, **maths: str) -> str:
    r"""A catalog message whose {fields} are formulas: its words in text mode, in the running language, and each
    field's TeX between them (``sentence("masked: {z} for {condition}", z=r"z_{ij} = -\infty", condition="j > i")``),
    so a language puts the formulas where its word order wants them."""
    parts = re.split(r"\{(\w+)\}", t(message))  # the template, its fields unfilled
    return "".join(maths[part] if k % 2 else (words(part) if part else "") for k, part in enumerate(parts))


def apart(*groups: str | Sequence[str], gap: str = r"\qquad") -> str:
    r"""A display formula of ``groups`` a ``gap`` apart, the parts of a group (a list) a ``\quad`` apart.

    Each part is kept whole. A screen too narrow for the line breaks it only between parts, at ``\allowbreak``
    (ui.components' CSS lets a formula that has one wrap): "V = XW_V:" never loses its right side to the next line.
    Each part is braced, one atom for KaTeX, which would otherwise break at any relation or operator; an empty
    ``{}`` ends it, so that its last symbol keeps the space TeX puts after it (a comma's thin space, a colon's or
    an arrow's thick one), as when the formula was written in one piece. A part may name break points of its own,
    with its own spacing: ``r"(a,\ \allowbreak b)"`` breaks only after "a,\ "."""
    def whole(part: str) -> str:
        return r"\allowbreak ".join("{" + piece + "{}}" for piece in part.split(r"\allowbreak "))

    def group(g: str | Sequence[str]) -> str:
        return r"\quad\allowbreak ".join(whole(part) for part in ([g] if isinstance(g, str) else g))

    return (gap + r"\allowbreak ").join(group(g) for g in groups)


def num(x: float, decimals: int = 2) -> str:
    """A number for LaTeX: negatives in parentheses when they follow an operator."""
    text = plain(x, decimals)
    return f"({text})" if text.startswith("-") else text


def plain(x: float, decimals: int = 2) -> str:
    """A number for LaTeX where no parentheses are needed (after "=", in a fraction), with the reader's decimal sign:
    a decimal comma braced, "0{,}25" (TeX spaces a bare comma as punctuation: "0, 25")."""
    return format_number(x, decimals).replace("−", "-").replace(",", "{,}")


def factor(x: float, decimals: int = 3) -> str:
    """"= x" where ``x`` is exact at ``decimals`` (1/√4 = 0.5), "≈ x" where it is not (1/√8 ≈ 0.354)."""
    exact = abs(float(A.shown(x, decimals)) - x) < 1e-12 * max(1.0, abs(x))
    return ("= " if exact else r"\approx ") + plain(x, decimals)


def vec(xs: Iterable[float], decimals: int = 2) -> str:
    """[0.12, -0.50, …] as a LaTeX row vector."""
    comma = decimal(".") == ","  # a decimal comma: the numbers are apart by semicolons, as viz.i18n.numbers writes them
    return r"\left[" + (";\\ " if comma else ",\\ ").join(plain(x, decimals) for x in xs) + r"\right]"


def rel(decimals: int) -> str:
    """The relation a line writes: "=" where its shown inputs add up, "≈" where no decimals make them."""
    return "=" if decimals > 0 else r"\approx"


def positional_encoding(trace: AttentionTrace) -> str:
    r"""P_{i,2c+1} = sin((i−1)/10000^{2c/d_model}), P_{i,2c+2} = cos(…), with a worked example.

    Tokens i and columns count from 1, as in the tables; the token at position i has pos = i − 1,
    so the first token's sines are all 0. The example is the trace's own entry P_{2,1} (or P_{1,1}
    for a one-token sentence).
    """
    p = trace.positional_encoding
    assert p is not None, "the trace has no positional encodings"
    i = 2 if trace.n > 1 else 1
    return apart(
        r"X = E + P,",
        [r"P_{i,\,2c+1} = \sin\frac{i-1}{10000^{2c/d_{model}}},",
         r"P_{i,\,2c+2} = \cos\frac{i-1}{10000^{2c/d_{model}}},", r"c = 0, 1, \dots"],
        sentence("e.g. {example}", example=rf"P_{{{i},1}} = \sin\frac{{{i - 1}}}{{10000^{{0}}}} = \sin {i - 1} = "
                                           rf"{plain(p[i - 1, 0])}"),
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
            masked = sentence(" is masked: {z}", z=rf"{z_ij} = -\infty")
            blocks.append(rf"\begin{{aligned}}{s_ij} = {qk} &{masked}\end{{aligned}}")
            continue
        q, k, s, z = trace.q[i], trace.k[j], trace.scores[i, j], trace.scaled_scores[i, j]
        d = int(A.sums_of_products(q, k, s))
        sum_rel, d = rel(d), abs(d)
        products = [f"{num(qc, d)}\\cdot{num(kc, d)}" for qc, kc in zip(q, k, strict=True)]
        rows = [" + ".join(products[c : c + per_line]) for c in range(0, len(products), per_line)]
        lines = [rf"{s_ij} = {qk} &= {rows[0]}"] + [rf"&\quad + {row}" for row in rows[1:]]
        lines.append(rf"&{sum_rel} {plain(s)}")
        e = int(A.quotients(s, root, z))
        div_rel, e = rel(e), abs(e)
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


def _divisor(trace: AttentionTrace) -> str:
    return r"\sqrt{d_k}" if trace.temperature == 1 else r"\sqrt{d_k}\,T"


def softmax_row(trace: AttentionTrace, i: int) -> str:
    r"""α_ij = e^{z_ij − m_i} / Σ_j' e^{z_ij' − m_i}, with the row's numbers."""
    allowed = trace.mask[i]
    qi = trace.query_positions[i] + 1
    exps, z, m = trace.exp_scores[i], trace.masked_scores[i], float(trace.row_max[i])
    total = float(exps.sum())
    kept = [j for j in range(trace.n) if allowed[j]]
    # each quotient e / Σ = α, then each e^{z − m} at the decimals its e is written with, then Σ of the shown e's
    da = A.together(lambda d: A.quotient_adds_up(exps[kept], total, trace.weights[i, kept], d))
    div_rel, da = rel(da), abs(da)
    dz = A.together(lambda d: _exponentials_show(z[kept], m, exps[kept], d, da))
    exp_rel, dz = rel(dz), abs(dz)
    de = A.together(lambda d: A.terms_add_up(exps[kept], total, max(d, 3), result_decimals=3))
    sum_rel, de = rel(de), max(abs(de), 3)
    terms = " + ".join(num(exps[j], de) for j in kept)
    lines = [
        rf"m_{{{qi}}} = \max_j z_{{{qi}j}} = {plain(m, dz)}"
        rf"\qquad \textstyle\sum_j e^{{z_{{{qi}j}} - m_{{{qi}}}}} = "
        + (f"{terms} {sum_rel} {plain(total, 3)}" if len(kept) > 1 else plain(total, 3))
    ]
    for j in range(trace.n):
        a = rf"\alpha_{{{qi},{j + 1}}}"
        if not allowed[j]:
            lines.append(rf"{a} = 0 \quad " + sentence("(masked: {z})", z=rf"z_{{{qi},{j + 1}}} = -\infty"))
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
    d = A.together(lambda d: A.products_add_up(a[kept], v[kept].T, out, d))
    relation, d = rel(d), abs(d)
    terms = r" \\ &+ ".join(rf"{plain(a[j], d)}\,{vec(v[j], d)}" for j in kept)
    if len(kept) < trace.n:
        masked = trace.n - len(kept)
        terms += r" \\ &+ 0 \cdot " + words(nt("(the {n} masked value vector)", "(the {n} masked value vectors)",
                                                masked))
    return (
        r"\begin{aligned}"
        + rf"\mathrm{{out}}_{{{qi}}} = \textstyle\sum_j \alpha_{{{qi}j}}\, v_j &= {terms} \\ &{relation} {vec(out)}"
        + r"\end{aligned}"
    )


def _exponentials_show(z: np.ndarray, m: float, exps: np.ndarray, decimals: int, e_decimals: int) -> np.ndarray:
    """Whether e^(z − m) of z and m shown at ``decimals`` lies strictly within half a unit of each e as
    shown at ``e_decimals`` (an exponential is not exact: this is a float check, with room to spare)."""
    e = np.exp(A.shown(z, decimals) - float(A.shown(m, decimals)))
    return np.abs(e - A.shown(exps, e_decimals)) < 0.5 * 10.0**-e_decimals * (1 - 1e-9)


def aligned(lines: list[str]) -> str:
    """Stack equations, one a line."""
    return r"\begin{gathered}" + r" \\ ".join(lines) + r"\end{gathered}"
