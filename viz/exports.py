"""Exports of a trace: CSV per matrix (token labels as headers), JSON of every step, HTML of the figures.

Pure functions; the page only offers their results as downloads.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from html import escape

import numpy as np
import pandas as pd

from attention import AttentionTrace
from viz import figures as F
from viz import tables as T
from viz.svg import Svg


def _matrix_builders(trace: AttentionTrace) -> dict[str, Callable[[], pd.DataFrame]]:
    """Each matrix of the trace by name, in the order of the steps, as a builder of its DataFrame."""
    builders = {"X": lambda: T.token_by_dim_frame(trace, trace.x)}
    if trace.positional_encoding is not None:
        builders["E"] = lambda: T.token_by_dim_frame(trace, trace.embeddings)
        builders["P"] = lambda: T.token_by_dim_frame(trace, trace.positional_encoding)
    return builders | {
        "W_Q": lambda: T.projection_frame(trace.w_q),
        "W_K": lambda: T.projection_frame(trace.w_k),
        "W_V": lambda: T.projection_frame(trace.w_v),
        "Q": lambda: T.token_by_dim_frame(trace, trace.q),
        "K": lambda: T.token_by_dim_frame(trace, trace.k),
        "V": lambda: T.token_by_dim_frame(trace, trace.v),
        "scores": lambda: T.query_key_frame(trace, trace.scores),
        "scaled scores": lambda: T.query_key_frame(trace, trace.masked_scores),
        "weights": lambda: T.query_key_frame(trace, trace.weights),
        "output": lambda: T.token_by_dim_frame(trace, trace.output),
    }


def matrices(trace: AttentionTrace) -> dict[str, pd.DataFrame]:
    """Every matrix of the trace as a labelled DataFrame, in the order of the steps."""
    return {name: build() for name, build in _matrix_builders(trace).items()}


def matrix_names(trace: AttentionTrace) -> list[str]:
    """The names ``matrices`` gives, without building the frames."""
    return list(_matrix_builders(trace))


def matrix(trace: AttentionTrace, name: str) -> pd.DataFrame:
    """One of ``matrices``, built alone (for a download)."""
    return _matrix_builders(trace)[name]()


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet may read as a formula (OWASP)


def spreadsheet_safe(text: object) -> object:
    """A text cell that a spreadsheet would run as a formula ("=HYPERLINK(…)", "-2+3", "@SUM(…)") gets a
    leading apostrophe, which spreadsheets show as text. Numbers are not text: they pass unchanged."""
    if isinstance(text, str) and text.startswith(FORMULA_STARTS):
        return "'" + text
    return text


def to_csv(frame: pd.DataFrame) -> str:
    """CSV with the row labels as the first column and full precision; masked scores are "-inf".

    Row labels, column labels and text cells are tokens the learner typed, so each is made
    ``spreadsheet_safe``; numeric cells stay numbers.
    """
    safe = frame.map(spreadsheet_safe)
    safe.index = pd.Index([spreadsheet_safe(r) for r in frame.index], name=frame.index.name)
    safe.columns = [spreadsheet_safe(c) for c in frame.columns]
    return safe.to_csv(float_format="%.17g")


def trace_json(trace: AttentionTrace) -> str:
    """Every field of the trace as JSON: arrays as nested lists, -inf as the string "-inf"."""

    def plain(value):
        if isinstance(value, np.ndarray):
            return plain(value.tolist())
        if isinstance(value, list | tuple):
            return [plain(v) for v in value]
        if isinstance(value, float) and not np.isfinite(value):
            return "-inf" if value < 0 else ("inf" if value > 0 else "nan")
        if isinstance(value, np.generic):
            return plain(value.item())
        return value

    fields = {name: plain(getattr(trace, name)) for name in trace.__dataclass_fields__}
    return json.dumps({"attention_lab_trace": 1, **fields}, ensure_ascii=False, indent=1)


def figures_html(trace: AttentionTrace, query: int = 0) -> str:
    """One self-contained HTML page with the walkthrough's figures, each an SVG image in the page
    (a data URI: it opens offline, and an image runs no script). Save any of them with the browser's
    "Save image as"."""
    figures = [
        F.tokens_figure(trace),
        F.token_by_dim_figure(trace, trace.x, "X"),
        F.projection_figure(trace.w_q, "W_Q"),
        F.projection_figure(trace.w_k, "W_K"),
        F.projection_figure(trace.w_v, "W_V"),
        F.token_by_dim_figure(trace, trace.q, "Q"),
        F.token_by_dim_figure(trace, trace.k, "K"),
        F.token_by_dim_figure(trace, trace.v, "V"),
        F.query_key_figure(trace, trace.scores, "scores S = Q·Kᵀ"),
        F.query_key_figure(trace, trace.masked_scores, "scaled scores Z = S/√d_k"),
        F.query_key_figure(trace, trace.weights, "α weights", weights=True),
        F.alpha_bars(trace, query),
        F.weighted_sum_figure(trace, query),
        F.token_by_dim_figure(trace, trace.output, "output αV"),
    ]
    # a figure's alt text holds the learner's tokens: escaped for the attribute
    images = [f'<p><img alt="{escape(fig.alt or f"figure {k + 1}", quote=True)}" src="{data_uri(fig)}"></p>'
              for k, fig in enumerate(figures)]
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>Attention Lab figures</title></head><body>"
        "<h1>Attention Lab: the walkthrough's figures</h1>" + "\n".join(images) + "</body></html>"
    )


def data_uri(fig: Svg) -> str:
    """The figure as a data: URI of type image/svg+xml (what st.image makes of an SVG, too)."""
    return "data:image/svg+xml;base64," + base64.b64encode(fig.markup.encode("utf-8")).decode("ascii")
