"""The geometry view: queries and keys as arrows in a plane, so a dot product can be seen."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from attention import AttentionTrace
from attention.relevance import Lead, Nudge, self_matches
from viz import arithmetic as A
from viz import svg
from viz.i18n import clauses, decimal, sentences, t
from viz.labels import MAX_LABEL_CHARS, markdown_text, token_labels
from viz.scaling import RAW_COLOUR, SCALED_COLOUR


def arrow_scales(q2: npt.ArrayLike, k2: npt.ArrayLike) -> tuple[float, float]:
    """How many times as long the queries and the keys are drawn: (1, 1) unless the longest of one kind is under half
    the longest of the other, whose arrows then bunch at the origin (issue 47: keys ~4× shorter than the queries);
    then the shorter kind is drawn f times as long, f the ratio of the longest lengths rounded down to a tenth
    (below 10) or a unit, so that its longest arrow is about as long as the other's. A positive factor changes no
    angle, and the arrows of one kind keep their lengths to one another."""
    q_top = float(np.linalg.norm(np.asarray(q2, dtype=np.float64), axis=1).max(initial=0.0))
    k_top = float(np.linalg.norm(np.asarray(k2, dtype=np.float64), axis=1).max(initial=0.0))
    if q_top == 0 or k_top == 0 or 0.5 <= k_top / q_top <= 2:
        return 1.0, 1.0
    ratio = max(q_top, k_top) / min(q_top, k_top)
    f = math.floor(ratio * 10) / 10 if ratio < 10 else float(math.floor(ratio))
    return (1.0, f) if k_top < q_top else (f, 1.0)


def scale_note(q_scale: float, k_scale: float) -> str:
    """What the drawing's scales mean, for the text beside it ("" when both are 1)."""
    if q_scale == k_scale == 1:
        return ""
    if k_scale != 1:
        return t("The keys are drawn {f} times as long as they are, so that their directions can be seen: that changes "
                 "no angle, and the keys keep their lengths to one another.", f=decimal(f"{k_scale:g}"))
    return t("The queries are drawn {f} times as long as they are, so that their directions can be seen: that changes "
             "no angle, and the queries keep their lengths to one another.", f=decimal(f"{q_scale:g}"))


def equal_groups(v2: npt.ArrayLike) -> list[list[int]]:
    """The arrows that are one arrow: rows of ``v2`` [n, 2] equal to within 1e-9 of the longest coordinate (a word
    said twice without positional encodings has twice the same key), as lists of positions, in order."""
    v2 = np.asarray(v2, dtype=np.float64)
    tol = 1e-9 * float(np.abs(v2).max(initial=0.0))
    groups: list[list[int]] = []
    for j in range(len(v2)):
        same = next((g for g in groups if np.abs(v2[g[0]] - v2[j]).max() <= tol), None)
        if same is None:
            groups.append([j])
        else:
            same.append(j)
    return groups


def _positions(positions: list[int]) -> str:
    """1-based positions as a label lists them: "1, 2, 5", runs of three or more as "1–4", at most 8 parts."""
    parts, k = [], 0
    while k < len(positions):
        end = k
        while end + 1 < len(positions) and positions[end + 1] == positions[end] + 1:
            end += 1
        parts += [f"{positions[k] + 1}–{positions[end] + 1}"] if end - k >= 2 else \
            [str(p + 1) for p in positions[k:end + 1]]
        k = end + 1
    return ", ".join(parts) if len(parts) <= 8 else ", ".join(parts[:6]) + f", … {parts[-1]}"


def group_label(group: list[int], tokens: tuple[str, ...], labels: list[str]) -> str:
    """One label for equal arrows: the token's own label for one ("cat", "the (1)"), the token and its positions for
    several ("wonderful (1–4)", "the (1, 5)"), tokens with different words joined by "=" (their vectors are equal)."""
    if len(group) == 1:
        return labels[group[0]]
    shorts = [t if len(t) <= MAX_LABEL_CHARS else t[: MAX_LABEL_CHARS - 1] + "…" for t in tokens]
    words = list(dict.fromkeys(shorts[j] for j in group))
    return " = ".join(f"{w} ({_positions([j for j in group if shorts[j] == w])})" for w in words)


def arrows_figure(q2: npt.ArrayLike, k2: npt.ArrayLike, tokens: tuple[str, ...], *, selected: int, target: int,
                  exact: bool) -> svg.Svg:
    """Every q_i (vermillion) and k_j (blue) as an arrow from the origin: the selected query bold and labelled, the
    others faded and unlabelled, every key labelled, the target key bold and drawn last, over the query (issue 47:
    the query turned towards it covered it). Equal keys (a word said again, without positional encodings) are one
    arrow with one label, "k: wonderful (1–4)" (issue 47's audit: four labels printed on one spot). A kind whose
    arrows would bunch at the origin is drawn longer (``arrow_scales``; the legend says so).

    ``exact`` says whether these are the true 2-D vectors (d_k = 2) or a projection of them.
    """
    q2, k2 = np.asarray(q2, dtype=np.float64), np.asarray(k2, dtype=np.float64)
    q_scale, k_scale = arrow_scales(q2, k2)
    q2, k2 = q2 * q_scale, k2 * k_scale
    labels = token_labels(tokens)
    faded = [svg.Arrow(float(x), float(y), RAW_COLOUR, f"q: {label}", width=1.8, opacity=0.3, labelled=False)
             for i, ((x, y), label) in enumerate(zip(q2, labels, strict=True)) if i != selected]
    groups = equal_groups(k2)
    keys = [svg.Arrow(float(k2[g[0], 0]), float(k2[g[0], 1]), SCALED_COLOUR, f"k: {group_label(g, tokens, labels)}",
                      dash=svg.DASH) for g in groups if target not in g]  # dashed, queries solid (WCAG 1.4.1)
    query = svg.Arrow(float(q2[selected, 0]), float(q2[selected, 1]), RAW_COLOUR, f"q: {labels[selected]}", width=4.5)
    target_group = next(g for g in groups if target in g)
    key = svg.Arrow(float(k2[target, 0]), float(k2[target, 1]), SCALED_COLOUR,
                    f"k: {group_label(target_group, tokens, labels)}", width=2.5, dash=svg.DASH)
    top = float(np.abs(np.vstack([q2, k2])).max()) * 1.25 or 1.0
    title = t("q and k in the plane (d_k = 2: exact)") if exact else t("q and k projected onto their top-2 directions")
    times = [t(", drawn {f}× as long", f=decimal(f"{f:g}")) if f != 1 else "" for f in (q_scale, k_scale)]
    others = t(", the others faded") if len(tokens) > 1 else ""  # a sentence of one token has no other query
    return svg.plot(
        svg.Plot(title, t("first coordinate"), t("second coordinate"), arrows=[*faded, *keys, query, key],
                 x_range=(-top, top), y_range=(-top, top), square=True,
                 lines=[svg.Line(t("queries (“{query}” bold{others}{times})", query=labels[selected], others=others,
                                   times=times[0]), [], [], RAW_COLOUR, markers=False),
                        svg.Line(t("keys (“{key}” bold{times})", key=labels[target], times=times[1]), [], [],
                                 SCALED_COLOUR, markers=False, dash=svg.DASH)]),
        width=560, height=560,
    )


def similarity_summary(trace: AttentionTrace, *, most: int = 3) -> str:
    """What the identity-projection α shows, counted from it, as Markdown (labels escaped).

    With W_Q = W_K = I the score is x_i·x_j. By Cauchy–Schwarz x_i·x_j ≤ ‖x_i‖‖x_j‖, so another
    token can beat x_i·x_i = ‖x_i‖² only if its vector is longer; each such row is named with its
    numbers (the first ``most`` of them).
    """
    labels = token_labels(trace.tokens)
    matches = self_matches(trace.weights, trace.tokens)
    others = [(i, j) for i, j in matches if trace.tokens[i] != trace.tokens[j]]
    text = t("In **{kept} of {n}** rows the largest weight is on the token itself (the diagonal) or on another copy "
             "of the same word.", kept=trace.n - len(others), n=trace.n)
    if not others:
        return text
    norms = np.linalg.norm(trace.x, axis=1)  # [n]
    named = []
    for i, j in others[:most]:
        q, k = markdown_text(labels[i]), markdown_text(labels[j])
        # x_i·x_i = ‖x_i‖²: the norm carries the decimals it takes for its square to give the shown x·x
        s = next((s for s in range(A.FEWEST, A.MOST + 1)  # "more than" shows: the two scores apart
                  if A.shown(trace.scores[i, j], s) > A.shown(trace.scores[i, i], s)), A.MOST)
        d = max(abs(int(A.sums_of_products([norms[i]], [norms[i]], trace.scores[i, i], result_decimals=s))), s)
        d = next((d for d in range(d, A.MOST + 1) if A.shown(norms[j], d) > A.shown(norms[i], d)), A.MOST)
        named.append(t("“{query}” → “{key}”: x·x = {score} with “{key}”, more than {own} with itself, because ‖x‖ of "
                       "“{key}” is {key_norm} and of “{query}” only {query_norm}", query=q, key=k,
                       score=decimal(A.text(trace.scores[i, j], s)), own=decimal(A.text(trace.scores[i, i], s)),
                       key_norm=decimal(A.text(norms[j], d)), query_norm=decimal(A.text(norms[i], d))))
    rows = clauses(named)
    if len(others) > most:
        rows = t("{rows} (and {n} more)", rows=rows, n=len(others) - most)
    return sentences(text, t("In the other rows a longer vector wins: {rows}. A dot product grows with length, so "
                             "“most similar” by dot product is not “the same”.", rows=rows))


def nudge_text(nudge: Nudge, before: npt.ArrayLike, after: npt.ArrayLike, i: int, k: int, labels: list[str]) -> str:
    """What the rank-1 change of W_Q did, as Markdown with the page's numbers (labels escaped)."""
    query, target = markdown_text(labels[i]), markdown_text(labels[k])
    before, after = np.asarray(before), np.asarray(after)
    if nudge.lead.possible:
        direction = t("a direction in which k_{key}'s score rises faster than every other key's score "
                      "(ĝ·k_{key} > ĝ·k_j), far enough that “{target}”'s scaled score gains at least the strength on "
                      "each of them",
                      key=k + 1, target=target)
    else:
        direction = t("the direction of k_{key} minus the keys “{query}” already looked at", key=k + 1, query=query)
    return t("**What changed.** W_Q gained the rank-1 matrix ΔW = η · x_{row}ᵀ ĝ / ‖x_{row}‖² (η = {eta}, its largest "
             "entry {largest}). It moves q_{row} by η along ĝ, {direction}. α(“{query}” → “{target}”) went from "
             "**{before}** to **{after}**. Another query j moved by η (x_j·x_{row} / ‖x_{row}‖²) along ĝ: not at all "
             "if its embedding is at right angles to the chosen one's, the full η if it is the same vector (a repeated "
             "token without positional encodings). W_K, W_V and the keys are unchanged.", row=i + 1,
             eta=decimal(A.text(nudge.step)), largest=decimal(A.text(float(np.abs(nudge.delta).max()), 3)),
             direction=direction, query=query, target=target, before=decimal(A.text(before[i, k])),
             after=decimal(A.text(after[i, k])))


def no_lead_text(lead: Lead, i: int, k: int, labels: list[str], d_k: int) -> str:
    """Why no change of W_Q can make query i attend most to key t (Markdown, labels escaped): k_t is a mix of the
    other keys, so its score is the same mix of theirs and never above them all."""
    query, target = markdown_text(labels[i]), markdown_text(labels[k])
    used = [int(j) for j in np.argsort(-lead.mix) if lead.mix[j] > 1e-9]
    # the fewest decimals at which the weights as written add up to exactly 1, as the sentence says
    d = next((d for d in range(A.FEWEST, A.MOST + 1)
              if int(A.digits(A.held(lead.mix[used]), d).sum()) == 10**d), None)
    exact = d is not None
    mix = " + ".join(t("{weight}·k(“{token}”)", weight=decimal(A.text(lead.mix[j], d or A.MOST)),
                       token=markdown_text(labels[j])) for j in used)
    names = {"query": query, "target": target, "mix": mix, "d_k": d_k}
    return sentences(
        t("**No query at all can make “{query}” attend most to “{target}” here.**", **names),
        t("Its key is a mix of the other keys: k(“{target}”) ≈ {mix}, weights that add up to 1.", **names) if exact else
        t("Its key is a mix of the other keys: k(“{target}”) ≈ {mix}, weights that add up to 1 before rounding.",
          **names),
        t("A query's score for it is then the same mix of its scores for those keys, so in every direction one of "
          "them scores at least as high."),
        t("In d_k = {d_k}, “{target}”'s key is not a corner of the keys' outline (the arrows below show it).", **names)
        if d_k == 2 else t("In d_k = {d_k}, “{target}”'s key is not a corner of the keys' outline.", **names),
        t("The change follows the direction in which its weight first rises fastest, and stops where it peaks."),
        t("A larger d_k gives the keys room to stick out."))
