"""Figures and tables of a real model: every head at once (the model view), the next tokens. Pure."""

from __future__ import annotations

import numpy as np
import pandas as pd

from attention.pretrained.common import ModelInfo
from viz import svg


def model_view(weights: np.ndarray, info: ModelInfo, layers: range) -> svg.Svg:
    """α of every head in ``layers`` [layers, heads, n, n] as small multiples on one scale 0 … 1: rows
    are layers, columns heads (both counted from 1, under the titles "layer" and "head"); in each tile,
    rows are queries, columns keys. 40-pixel tiles: a 12-head model (651 px) fits the page beside the
    sidebar on a 1024 px tablet or projector (564 px) at 0.87, labels legible (72-pixel tiles and
    "layer 1" labels were shrunk to 0.76 even at 1280 px)."""
    return svg.tiles(weights[layers.start:layers.stop], row_labels=[str(i + 1) for i in layers],
                     col_labels=[str(h + 1) for h in range(info.heads)],
                     title=f"Every head's α, layers {layers.start + 1}–{layers.stop}", row_title="layer",
                     col_title="head (in each tile: rows are queries, columns keys)", zmax=1.0, tile=40)


def next_token_frame(top: list[tuple[str, float]]) -> pd.DataFrame:
    """The likeliest next tokens and their probabilities, most likely first."""
    return pd.DataFrame({"next token": [t for t, _ in top], "probability": [p for _, p in top]},
                        index=pd.RangeIndex(1, len(top) + 1, name="rank"))
