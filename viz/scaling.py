"""Figures of the "Why √d_k" lesson: the spread of q·k, and softmax with and without scaling."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from attention.scaling import SaturationStats
from viz import arithmetic as A
from viz import svg
from viz.i18n import N_, decimal, sentences, t, whole
from viz.labels import format_number

RAW_COLOUR, SCALED_COLOUR = "#D55E00", "#0072B2"  # Okabe–Ito vermillion and blue


def dot_histogram(dots: npt.ArrayLike, d_k: int) -> svg.Svg:
    """Histograms of q·k and of q·k/√d_k for the same samples, on one axis (60 bins over both)."""
    dots = np.asarray(dots, dtype=np.float64)
    scaled = dots / np.sqrt(d_k)
    edges = np.histogram_bin_edges(np.concatenate([dots, scaled]), bins=60)
    columns = [svg.Columns(t("q·k (variance {variance})", variance=decimal(f"{dots.var():.1f}")), edges.tolist(),
                           np.histogram(dots, edges)[0].tolist(), RAW_COLOUR),
               svg.Columns(t("q·k / √d_k (variance {variance})", variance=decimal(f"{scaled.var():.2f}")),
                           edges.tolist(), np.histogram(scaled, edges)[0].tolist(), SCALED_COLOUR,
                           outline=True)]  # not by colour alone
    title = t("{pairs} random pairs q, k with unit-variance entries, d_k = {d_k}", pairs=whole(dots.size), d_k=d_k)
    return svg.plot(svg.Plot(title, t("score"), t("count"), columns=columns), width=HISTOGRAM_WIDTH, height=320)


def softmax_bars(title: str, weights: npt.ArrayLike) -> svg.Svg:
    """One row's softmax weights as bars, one per key (k1 … kn), on a 0–1 axis. Several rows are
    several charts, each at its own size (``ui.components.chart_row``), so that they wrap on a
    narrow page instead of shrinking together."""
    w = np.asarray(weights, dtype=np.float64)
    return svg.bars([f"k{j + 1}" for j in range(w.size)],
                    [svg.Series("α", w.tolist(), svg.colours("weights", w), [format_number(a) for a in w])],
                    title=title, x_title=t("key"), y_title="α", y_range=(0.0, 1.0))


SATURATED = 0.99  # a row whose largest weight is above this is saturated
NO_GRADIENT = 0.05  # ‖∂α/∂q‖ below this: almost no training signal reaches the query
_SIDES = (N_("no scaling"), "÷ √d_k")  # the frame's keys, in English; shown with t()
_MEASURES = {"median max α": N_("median max α"), "share saturated": N_("share saturated"),
             "median ‖∂α/∂z‖": N_("median ‖∂α/∂z‖"), f"share ‖∂α/∂q‖ < {NO_GRADIENT}": N_("share ‖∂α/∂q‖ < {bound}")}
PANEL_WIDTH = 300  # pixels: three in a row (932 with their gaps) fit the page at 1400 px; they wrap on a narrower one
HISTOGRAM_WIDTH = 560  # pixels: fits the page beside the sidebar on a 1024 px tablet or projector (564)


def saturation_frame(stats: list[SaturationStats]) -> pd.DataFrame:
    """One row per d_k: medians and shares over the random rows, without and with scaling."""
    rows = []
    for st in stats:
        row = {"d_k": st.d_k}
        for side, name in enumerate(_SIDES):
            row[f"median max α, {name}"] = float(np.median(st.max_weight[side]))
            row[f"share saturated, {name}"] = float(np.mean(st.max_weight[side] > SATURATED))
            row[f"median ‖∂α/∂z‖, {name}"] = float(np.median(st.jacobian_z[side]))
            row[f"share ‖∂α/∂q‖ < {NO_GRADIENT}, {name}"] = float(np.mean(st.gradient_q[side] < NO_GRADIENT))
        rows.append(row)
    return pd.DataFrame(rows).set_index("d_k")


def saturation_table(frame: pd.DataFrame) -> pd.DataFrame:
    """``saturation_frame`` turned for reading: one row per measure, each without scaling right above
    with it, and one column per d_k. Its eight long measure names as columns made the table twice
    as wide as the page, and its last columns were out of view."""
    measures = [c.removesuffix(f", {_SIDES[0]}") for c in frame.columns if c.endswith(f", {_SIDES[0]}")]
    table = frame[[f"{m}, {name}" for m in measures for name in _SIDES]].T  # [measures · sides × d_k]
    # bare numbers under a corner that says what they are: "d_k = 256" headers made it too wide for a tablet
    table.columns = [str(d) for d in frame.index]
    table.index = [t("{measure}, {side}", measure=t(_MEASURES[m], bound=decimal(str(NO_GRADIENT))), side=t(name))
                   for m in measures for name in _SIDES]
    table.index.name = t("measure ↓ · d_k →")
    return table


def saturation_figures(frame: pd.DataFrame, *, chosen: int) -> list[svg.Svg]:
    """Three panels over d_k (log axis), each with its legend: median max α, median ‖∂α/∂z‖, the share
    of rows with no gradient. Three charts, not one image of three, so that they wrap on a narrow
    page instead of shrinking together (``ui.components.chart_row``)."""
    panels = ["median max α", "median ‖∂α/∂z‖", f"share ‖∂α/∂q‖ < {NO_GRADIENT}"]
    # short titles: a PANEL_WIDTH panel holds them (the caption says what z is)
    titles = [t("median largest weight"), t("median ‖∂α/∂z‖"),
              t("share of rows, ‖∂α/∂q‖ < {bound}", bound=decimal(str(NO_GRADIENT)))]
    d_ks = [float(d) for d in frame.index]
    charts = []
    for panel, title in zip(panels, titles, strict=True):
        lines = [svg.Line(t(name), d_ks, frame[f"{panel}, {name}"].tolist(), colour, dash=dash)  # not by colour alone
                 for name, colour, dash in zip(_SIDES, (RAW_COLOUR, SCALED_COLOUR), (None, svg.DASH), strict=True)]
        top = max(max(line.y) for line in lines)
        charts.append(svg.plot(svg.Plot(title, t("d_k (log scale; dotted: your d_k)"), "", lines=lines, log_x=True,
                                        x_ticks=d_ks, y_range=(0.0, max(top * 1.1, 1e-6)), marks=[float(chosen)]),
                               width=PANEL_WIDTH, height=240))
    return charts


def example_text(row: npt.ArrayLike, *, d_k: int, rows: int, keys: int) -> str:
    """How the example row was chosen, in one sentence with its own number: the median row by the largest weight
    without scaling (``attention.scaling.median_row``; ``rows`` odd, so its weight is the table's median).

    row : [2, 3] from ``row_statistics`` (no scaling, ÷ √d_k) × (max α, ‖∂α/∂z‖, ‖∂α/∂q‖).
    """
    largest = format_number(float(np.asarray(row)[0, 0]), 3)
    return t("**An example, the median row:** of the {rows} rows at d_k = {d_k}, the one in the middle when they are "
             "ranked by their largest weight without scaling ({largest}, the median in the table above): one query "
             "against {keys} random keys.", rows=rows, d_k=d_k, largest=largest, keys=keys)


def _versus(a: float, b: float, decimals: int) -> tuple[str, str, str]:
    """``a`` and ``b`` as shown at ``decimals``, and how the shown ``a`` compares with the shown ``b``: "larger",
    "smaller" or "the same"."""
    x, y = format_number(float(a), decimals), format_number(float(b), decimals)
    u, v = A.shown(float(a), decimals), A.shown(float(b), decimals)  # compared as shown (not parsed back: "0,974")
    return x, y, "larger" if u > v else "smaller" if u < v else "the same"


def row_verdict(row: npt.ArrayLike, typical: pd.Series, *, d_k: int, rows: int) -> str:
    """What the example row shows, computed from its numbers (and, for ‖∂α/∂z‖, whether it goes the medians' way).

    row : [2, 3] (no scaling, ÷ √d_k) × (max α, ‖∂α/∂z‖, ‖∂α/∂q‖), from ``row_statistics``;
    typical : that d_k's row of ``saturation_frame`` (over ``rows`` rows).
    """
    row = np.asarray(row)
    if d_k == 1:
        return t("At d_k = 1, √d_k = 1: scaling divides by 1 and changes nothing.")
    a, b, weight = _versus(row[0, 0], row[1, 0], 3)
    if weight == "the same":
        first = t("Its largest weight is {a} with and without scaling, at three decimals.", a=a)
    elif weight == "larger":
        first = t("Without scaling its softmax is sharper: its largest weight is {a}, against {b} with scaling.", a=a,
                  b=b)
    else:
        first = t("Without scaling its softmax is flatter: its largest weight is {a}, against {b} with scaling.", a=a,
                  b=b)
    j0, j1, jacobian = _versus(row[0, 1], row[1, 1], 4)
    m0, m1, median = _versus(typical[f"median ‖∂α/∂z‖, {_SIDES[0]}"], typical[f"median ‖∂α/∂z‖, {_SIDES[1]}"], 4)
    numbers = {"j0": j0, "j1": j1, "m0": m0, "m1": m1, "rows": rows}
    if jacobian == "the same":
        second = t("Its ‖∂α/∂z‖ is {j0} with and without scaling, at four decimals; the medians over the {rows} rows "
                   "are {m0} without scaling and {m1} with it.", **numbers)
    else:
        second = t(_JACOBIAN[jacobian, median == jacobian], **numbers)
    return sentences(first, second)


_JACOBIAN = {  # (the row's ‖∂α/∂z‖ without scaling against with it, whether the medians go the same way): its sentence
    ("larger", True): N_("Its ‖∂α/∂z‖ is larger without scaling, {j0} against {j1}, like the medians over the {rows} "
                         "rows ({m0} against {m1})."),
    ("larger", False): N_("Its ‖∂α/∂z‖ is larger without scaling, {j0} against {j1}, unlike the medians over the "
                          "{rows} rows ({m0} against {m1})."),
    ("smaller", True): N_("Its ‖∂α/∂z‖ is smaller without scaling, {j0} against {j1}, like the medians over the {rows} "
                          "rows ({m0} against {m1})."),
    ("smaller", False): N_("Its ‖∂α/∂z‖ is smaller without scaling, {j0} against {j1}, unlike the medians over the "
                           "{rows} rows ({m0} against {m1})."),
}
