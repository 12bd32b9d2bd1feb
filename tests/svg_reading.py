"""Reading a server-made SVG chart back, as a learner's eyes would: its texts, cells and bars.

Parsing with ElementTree also proves the markup is well-formed XML, which it is only if every
piece of user text was escaped.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

NS = "{http://www.w3.org/2000/svg}"


def parse(fig) -> ET.Element:
    root = ET.fromstring(fig.markup)
    assert root.tag == f"{NS}svg" and int(root.get("width")) == fig.width and int(root.get("height")) == fig.height
    return root


def texts(fig, cls: str | None = None) -> list[str]:
    """Every <text> (of one class), in document order."""
    return ["".join(t.itertext()) for t in parse(fig).iter(f"{NS}text") if cls is None or t.get("class") == cls]


def ticks(fig, axis: str) -> list[str]:
    return texts(fig, f"{axis}tick")


def group(fig, cls: str) -> list[ET.Element]:
    """The children of every <g class=cls>, in document order (small multiples have one group each)."""
    return [child for g in parse(fig).iter(f"{NS}g") if g.get("class") == cls for child in g]


def numbers(fig) -> list[str]:
    """The numbers written in heatmap cells, in row-major order (of every panel)."""
    return ["".join(t.itertext()) for t in group(fig, "nums")]


def cell_texts(fig, shape: tuple[int, int]) -> np.ndarray:
    """The numbers written in a heatmap's cells, [rows, cols] (row-major in the markup)."""
    return np.array(numbers(fig), dtype=object).reshape(shape)


def elements(fig, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in parse(fig).iter(f"{NS}{tag}") if e.get("class") == cls]


def cell_fills(fig, shape: tuple[int, int]) -> np.ndarray:
    return np.array([e.get("fill") for e in group(fig, "cells")], dtype=object).reshape(shape)


def bar_heights(fig) -> np.ndarray:
    return np.array([float(e.get("height")) for e in elements(fig, "rect", "bar")])


def polylines(fig) -> list[np.ndarray]:
    """Each drawn line's points, [points, 2] in pixels."""
    return [np.array([[float(v) for v in p.split(",")] for p in line.get("points").split()])
            for line in parse(fig).iter(f"{NS}polyline")]


def rgb(hex_colour: str) -> np.ndarray:
    return np.array([int(hex_colour[k:k + 2], 16) for k in (1, 3, 5)])
