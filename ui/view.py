"""The view of matrices: a chart, an ARIA grid over its cells, and its number table,
drawn and answered in the browser (static/view.js and its modules, an st.components.v2 component).

One element draws every panel given to it (a step's Q, K and V are one element, not fifteen), and the
browser answers hover, focus, arrow keys and taps itself: a tooltip with the value's provenance, and
the panels it depends on lit up, without a message to the server. A choice (a click on a cell or a row,
Enter) is one rerun, as a widget's change is. The data are numbers and labels, inserted as text by the
JavaScript; the chart is the server's SVG as an image (so "Save image as" and the text alternative stay,
and the export draws the same picture).

Why our own component and not a library: the charts are already drawn (viz/svg.py), and what the
browser adds is a grid of cells over them, a table and a tooltip, about 300 lines of JavaScript; a
charting library would redraw what is drawn, and Plotly, the one Streamlit wraps, returns no
selection for a heatmap's cell (docs/decisions.md).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from viz import i18n
from viz.arithmetic import number, numbers, shown_digits
from viz.i18n import N_, t
from viz.svg import Svg
from viz.tables import MASKED, ROW_AT, column_names, header, row_names

STATIC = Path(__file__).resolve().parent.parent / "static"  # served by Streamlit at app/static/ (config.toml)
MAX_TABLE_CELLS = 400  # beyond this a table scrolls in a box of its own (a 64-token α has 4,096 cells)


def loader(script: str, stylesheet: str | None = None, imports: Sequence[str] = ()) -> str:
    """The JavaScript of a component whose code and stylesheet are static files (``script`` and ``stylesheet`` in
    static/, served at app/static/; no ``stylesheet`` for a script that draws nothing): Streamlit sends a component's
    JavaScript and CSS inside every element of it (the view's is 16 KB, the arrival's 11 KB; its message cache sends
    only an unchanged element of 10 KB or more as a reference), so the files are fetched once and cached, and every
    element carries only its data. The version is the hash of the script, its stylesheet and the modules it
    ``imports`` (which import one another with the same ``?v=``), so a browser keeps them until they change. Relative
    to the page, so that a path prefix in front of the app (a proxy's) is kept.

    A failed fetch (a classroom's Wi-Fi) is tried again by the next element, at a new address (``&try=``): a browser
    may keep a module that failed, and the modules importing it (they import one another with the address's query),
    as failed. An element gone before its script arrived is not drawn by it. (No comments in the script itself: it
    travels with every element.)"""
    digest = hashlib.sha256()
    for name in (script, *([stylesheet] if stylesheet else []), *imports):
        digest.update((STATIC / name).read_bytes())
    style = "" if stylesheet is None else """
  if (!document.querySelector("link[data-attention-lab='%s']")) {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = url("%s");
    link.dataset.attentionLab = "%s";
    document.head.appendChild(link);
  }""" % (stylesheet, stylesheet, stylesheet)
    return """
const VERSION = "%s";
const url = (name) => new URL(`app/static/${name}?v=${VERSION}`, document.baseURI).href;
let code = null;
let tries = 0;
export default function (component) {%s
  const again = tries ? `&try=${tries}` : "";
  code = code || import(url("%s") + again).catch((error) => { code = null; tries += 1; throw error; });
  let cleanup = null;
  let mounted = true;
  code.then((module) => { if (mounted) cleanup = module.default(component); });
  return () => { mounted = false; if (cleanup) cleanup(); };
}
""" % (digest.hexdigest()[:12], style, script)


VIEW = st.components.v2.component(
    "attention_lab.view",
    js=loader("view.js", "view.css", ("grid.js", "table.js", "hover.js", "tooltip.js", "dom.js")),
    isolate_styles=False,  # our classes are prefixed; the tests and the page's CSS find the tables as before
)


def figure(fig: Svg, *, table_too: bool = True) -> dict:
    """The chart's SVG (the browser shows it as an image, from a data: URI it makes) with its size, text
    alternative and cell grid. Sent as text: base64 would add a third to every rerun's bytes."""
    alt = i18n.sentences(fig.alt, t("Its numbers are in the table with it.")) if table_too and fig.alt else fig.alt
    out: dict[str, Any] = {"svg": fig.markup, "width": fig.width, "height": fig.height, "alt": alt}
    if fig.grid is not None:
        g = fig.grid
        out["grid"] = {"x": g.x, "y": g.y, "w": g.w, "h": g.h, "px": g.px, "py": g.py, "rows": g.rows,
                       "cols": g.cols, "fold": g.fold}
    return out


def panel(key: str, frame: pd.DataFrame | None = None, fig: Svg | None = None, *, decimals: Any = 2,
          tip: dict | None = None, links: Sequence[dict] = (), choose: str | None = None, below: bool = False,
          names: tuple[str, str] = (N_("row"), N_("column")), masked: str = "—", values: Any = None,
          rows: Sequence[str] | None = None, cols: Sequence[str] | None = None,
          numbered: tuple[bool, bool] = (False, False), blank: str | None = None) -> dict:
    """One panel: ``fig`` (a heatmap or tiles, with their grid) and ``frame``'s numbers as its table.

    ``decimals``: for the whole table, one a column, or one a cell (an array); ``tip``: where a value comes
    from (see static/tooltip.js, ``explain``); ``links``: panels to light up on hover,
    {"panel": key, "axis": "row" | "col", "from": "row" | "col"}; ``choose``: clicking a cell or a row
    sends a choice; ``names``: what a row and a column are ("query", "key"); ``numbered``: whether the
    rows' and the columns' labels are their numbers, counted from 1 ("5": layer 5 of a table of layers 2–6),
    not names (a token "5" at position 4: query “5” (4)); ``masked``: how a masked cell reads ("—" for a
    weight, "−∞" for a score); ``blank``: what a cell's tooltip says of an empty cell (a missing number, NaN)
    where it is not a causal mask's (the default says it is). Without a frame (``rows``, ``cols``, ``values``):
    a chart whose cells answer, with no table.
    """
    if isinstance(decimals, np.ndarray):  # one a column or one a cell
        decimals = decimals.tolist()
    # the axes' names are the catalogs' (the callers name them in English, with N_): in the reader's language
    out: dict[str, Any] = {"id": key, "decimals": decimals, "rowName": t(names[0]) if names[0] else "",
                           "colName": t(names[1]) if names[1] else "",
                           "masked": masked, "below": below}
    out.update({flag: True for flag, on in zip(("rowNumbered", "colNumbered"), numbered, strict=True) if on})
    if blank is not None:
        out["blank"] = blank
    if frame is not None:
        masked_cells = None if MASKED not in frame.attrs else frame.attrs[MASKED].reindex(
            index=frame.index, columns=frame.columns, fill_value=False)
        if all(pd.api.types.is_float_dtype(t) for t in frame.dtypes):  # numbers only: every cell in one pass
            grid = frame.to_numpy(dtype=np.float64)
            if masked_cells is not None:
                grid = np.where(masked_cells.to_numpy(bool), np.nan, grid)
            if frame.size > MAX_TABLE_CELLS and tip is None and isinstance(decimals, int):
                # a long table whose cells only ever read as written (no provenance computes with them): each cell
                # as its shown digits, an integer count of 10^−decimals (``scale``), which the browser divides back:
                # the same digits in a third of the bytes (a real model's W_Q, W_K and W_V were 1.15 MB)
                out["values"], out["scale"] = shown_digits(grid, decimals), decimals
            else:
                out["values"] = numbers(grid)
        else:
            shown = frame.astype(object)  # each column keeps its own type (a whole-number column stays whole)
            if masked_cells is not None:
                shown = shown.where(~masked_cells, None)
            out["values"] = [[number(x) for x in row] for row in shown.to_numpy().tolist()]
        out["rows"] = row_names(frame) if not isinstance(frame.index, pd.RangeIndex) or \
            frame.index.name is not None else [str(r + 1) for r in range(len(frame))]
        out["rowHeaders"] = not isinstance(frame.index, pd.RangeIndex) or frame.index.name is not None
        out["cols"] = column_names(frame)
        if ROW_AT in frame.attrs:  # the rows' numbers in the sentence (a chosen query's row, alone)
            out["rowAt"] = [int(k) for k in frame.attrs[ROW_AT]]
        out["corner"] = header(frame.index.name or "")
        out["scroll"] = frame.size > MAX_TABLE_CELLS
    else:
        out["rows"], out["cols"] = list(rows or []), list(cols or [])
        out["values"] = values if values is not None else [[None] * len(out["cols"]) for _ in out["rows"]]
        out["table"] = False
    if fig is not None:
        out["figure"] = figure(fig, table_too=frame is not None)
        out["figure"]["title"] = fig.title or key  # as drawn (not cut from its description: a token may hold ":")
    if tip is not None:
        out["tip"] = tip
    if links:
        out["links"] = list(links)
    if choose:
        out["choose"] = choose
    return out


# Every word the view's browser code writes (static/tooltip.js, grid.js, table.js), as a template whose {fields} it
# fills: the browser holds no words of its own, each comes from the catalogs in the reader's language
TEXTS = {
    "row": N_("row"), "column": N_("column"),
    "numbered": N_("{kind} {label}"), "named": N_("{kind} “{label}” ({at})"), "cellNamed": N_("{kind} {at} “{label}”"),
    "moreTerms": N_("… ({count} more terms)"),
    "maskedScore": N_("masked: the causal mask hides key {key} from query {query}, so its score is −∞"),
    "maskedWeight": N_("masked: the causal mask hides key {key} from query {query}, so its weight is exactly 0"),
    "softmaxM": N_("m = {m}, row {row}'s largest scaled score; its weights sum to 1 before rounding"),
    "columnTerm": N_("{row}: one term of column {column}; the last row adds the column up."),
    "columnSum": N_("{row}, column {column} = {terms}{rel}{value}"),
    "cached": N_("From the cache: stored when token {token} was read."),
    "computedNow": N_("Computed now, from the token read, and appended to the cache."),
    "computedFrom": N_("Computed from (not drawn here):"),
    "rowOf": N_("{vector}, row {row} of {matrix}"), "columnOf": N_("{vector}, column {column} of {matrix}"),
    "vectorMore": N_("{shown}, … {count} more"),
    "masked": N_("masked"), "maskedInfinity": N_("masked, minus infinity"), "enterChooses": N_("Enter chooses."),
    "tableScrolls": N_("Table of numbers: it scrolls (arrow keys)"),
}


def texts() -> dict[str, str]:
    """The view's texts in the running language, its list separator and its decimal sign (made once a language)."""
    return _texts(i18n.language())


@functools.cache
def _texts(lang: str) -> dict[str, str]:
    with i18n.speaking(lang):
        return {name: t(template) for name, template in TEXTS.items()} | {"sep": i18n.numbers(["", ""]),
                                                                          "decimal": i18n.decimal(".")}


def show(panels: Sequence[dict], *, key: str, on_choice: Callable[[dict], None] | None = None) -> None:
    """Draw ``panels`` as one element (``.st-key-view-<key>``). ``on_choice(chosen)`` is called, before the
    next run of the script, with {"panel", "row", "col"} when the learner chooses a cell or a row."""
    callback = (lambda: on_choice(st.session_state[f"view-{key}"]["chosen"])) if on_choice else None
    VIEW(key=f"view-{key}", data={"panels": list(panels), "texts": texts()},
         **({"on_chosen_change": callback} if callback else {}))
