"""Play a step (issue 36): the data static/player.js animates, from a trace: the scores of a query (its q, every k,
and the engine's row of scores), the softmax (the masked scaled scores, m, the exponentials, their sum and α) or the
output (α, V and the engine's output). The browser writes the frames in between; the last frame is these numbers."""

from __future__ import annotations

import numpy as np

from attention import AttentionTrace
from viz.arithmetic import number
from viz.labels import query_labels, token_labels

KINDS = ("scores", "softmax", "output")
MAX_TOKENS = 32  # beyond this a row is too long to watch, and the data too large to send for it


def _rows(m: np.ndarray) -> list[list]:
    return [[number(x) for x in row] for row in np.asarray(m, dtype=np.float64).tolist()]


def player_data(trace: AttentionTrace, kind: str, query: int = 0) -> dict:
    """What the player needs for ``kind``: rows are the trace's queries, columns its keys (or, for the output, the
    value's dimensions); a masked cell is None."""
    keys, queries = token_labels(trace.tokens), query_labels(trace)
    data = {"kind": kind, "keys": keys, "queries": queries, "query": min(query, len(queries) - 1),
            "title": {"scores": "Play the scores: q · k, key by key",
                      "softmax": "Play the softmax: exponentials, their sum, the division",
                      "output": "Play the output: α · v, key by key"}[kind]}
    mask = trace.mask if trace.queries is None else np.ones(trace.scores.shape, dtype=bool)
    if kind == "scores":
        data |= {"q": _rows(trace.q), "k": _rows(trace.k), "values": _rows(trace.scores)}
    elif kind == "softmax":
        z = np.where(mask, trace.masked_scores, np.nan)
        data |= {"z": _rows(z), "m": [number(x) for x in trace.row_max], "e": _rows(np.where(mask, trace.exp_scores,
                 np.nan)), "total": [number(x) for x in trace.exp_scores.sum(axis=-1)], "values": _rows(trace.weights)}
    else:
        data |= {"alpha": _rows(np.where(mask, trace.weights, np.nan)), "v": _rows(trace.v),
                 "values": _rows(trace.output), "dims": [str(c + 1) for c in range(trace.d_k)]}
    return data
