"""Reading a lesson's table back from the Markdown the page sends (``viz.tables.markdown_table``).

The text is parsed with markdown-it (CommonMark with GitHub's tables, as Streamlit's renderer reads
it), so a cell that broke the table, or Markdown that escaped its cell, shows up here as a wrong
shape or a wrong cell.
"""

from __future__ import annotations

import json
import re

import pandas as pd
from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

from viz.labels import WORD_JOINER, format_number

_PARSER = MarkdownIt("commonmark").enable("table")


def readable(markdown: str) -> str:
    """Escaped Markdown text (``viz.labels.markdown_text``) as a learner reads it: escapes undone, the
    invisible word joiners gone."""
    return re.sub(r"\\(.)", r"\1", markdown).replace(WORD_JOINER, "")


def cells(markdown: str) -> list[list[str]]:
    """The table's rows (header first) as the plain text a browser shows in each cell."""
    tokens = _PARSER.parse(markdown)
    assert [t.type for t in tokens if t.nesting == 1][:1] == ["table_open"], markdown[:200]
    assert sum(t.type == "table_open" for t in tokens) == 1, "one table, nothing else"
    rows: list[list[str]] = []
    for t in tokens:
        if t.type == "tr_open":
            rows.append([])
        elif t.type == "inline":
            rows[-1].append("".join(c.content for c in t.children or [] if c.type in ("text", "code_inline"))
                            .replace(WORD_JOINER, ""))  # invisible: not what the learner reads
    return rows


def frame(markdown: str, *, index: bool = True) -> pd.DataFrame:
    """The table as a DataFrame of shown text; ``index``: the first column holds the row labels
    (its header is the index name)."""
    header, *body = cells(markdown)
    assert all(len(row) == len(header) for row in body), "every row has a cell under every column"
    shown = pd.DataFrame(body, columns=header)
    return shown.set_index(header[0]) if index else shown


def view_panels(at: AppTest) -> dict[str, dict]:
    """Every panel the page's views (ui/view.py) were given, by key: the data the browser draws."""
    found: dict[str, dict] = {}

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None and getattr(proto, "component_name", "") == "attention_lab.view":
            for panel in json.loads(proto.json)["panels"]:
                found[panel["id"]] = panel
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return found


def decimals_at(panel: dict, r: int, c: int) -> int | None:
    """A cell's decimals as static/tooltip.js reads them (``decimalsAt``): one for the table, one a
    column, or one a cell (a negative one is a "≈" marker; its magnitude counts)."""
    d = panel.get("decimals")
    if not isinstance(d, list):
        return d
    return abs(d[r][c] if isinstance(d[0], list) else d[c])


def cell_text(value, panel: dict, r: int = 0, c: int = 0) -> str:
    """A cell as view.js writes it (``formatNumber``): a masked cell as the panel says, a number with
    its decimals and a true minus sign, text as it is."""
    if value is None:
        return panel.get("masked") or "—"
    if isinstance(value, str):
        return value
    decimals = decimals_at(panel, r, c)
    if decimals is None:
        return str(value)
    return format_number(float(value), decimals)


def values_of(panel: dict) -> list[list]:
    """A panel's numbers as the browser reads them (static/view.js): a long table's shown digits divided back."""
    if "scale" not in panel:
        return panel["values"]
    return [[None if k is None else k / 10 ** panel["scale"] for k in row] for row in panel["values"]]


def shown_table(at: AppTest, key: str, *, index: bool = True) -> pd.DataFrame:
    """The table the view draws for ``key``, as the learner reads it: row labels, column labels and
    every cell's text."""
    panel = view_panels(at)[key]
    body = [[cell_text(v, panel, r, c) for c, v in enumerate(row)] for r, row in enumerate(values_of(panel))]
    if not panel.get("rowHeaders", True):
        return pd.DataFrame(body, columns=panel["cols"])
    shown = pd.DataFrame([[label, *row] for label, row in zip(panel["rows"], body, strict=True)],
                         columns=[panel.get("corner", ""), *panel["cols"]])
    return shown.set_index(shown.columns[0]) if index else shown
