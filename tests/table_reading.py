"""Reading a lesson's table back from the Markdown the page sends (``viz.tables.markdown_table``).

The text is parsed with markdown-it (CommonMark with GitHub's tables, as Streamlit's renderer reads
it), so a cell that broke the table, or Markdown that escaped its cell, shows up here as a wrong
shape or a wrong cell.
"""

from __future__ import annotations

import re

import pandas as pd
from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

from viz.labels import WORD_JOINER

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


def shown_table(at: AppTest, key: str, *, index: bool = True) -> pd.DataFrame:
    """The table ``ui.table`` drew under ``key``, as the learner reads it."""
    (markdown,) = at.get_by_key(f"table-{key}").markdown
    return frame(markdown.value, index=index)
