"""Charts drawn on the server as SVG: heatmaps, bar charts, x–y plots and the head view.

Why a renderer of our own: the page shows each chart as an ``<img>`` made here, so the browser
loads no charting JavaScript and draws nothing itself (issue 9: a Plotly chart cost 1.7–1.9× a
bare page's first paint, a server-made SVG 1.0×). The libraries that make SVG on the server were
measured on this machine for one 4 × 4 heatmap with its numbers: matplotlib 32–45 ms, Altair with
vl-convert 50–75 ms (1.5 s at 64 × 64); this module takes well under 1 ms, so a rerun stays as fast
as a bare page. It is kept to what the lessons draw.

Safety: every piece of text goes through ``_esc`` (XML escaping), and the image is shown as an
``<img>``, which runs no script and loads nothing. User text can't add markup either way.
Fonts: DejaVu Sans (installed by ``make``), then the browser's sans-serif; text is measured with
DejaVu's metrics. One chart is one image: charts side by side are separate images in a row that
wraps (``ui.components.chart_row``), never one image of several, which a narrow page would shrink.

Conventions: a matrix is drawn as it is written (row 1 on top); colour scales are colour-blind
safe (Viridis for weights, ColorBrewer RdBu for signed numbers: red negative, blue positive).
Test hooks: a heatmap's cells are the ``<path>``s of ``<g class="cells">`` and their numbers the
``<text>``s of ``<g class="nums">``, in row-major order; tick labels are ``<text class="xtick">`` /
``<text class="ytick">``.
"""

from __future__ import annotations

import base64
import functools
import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape
from unicodedata import east_asian_width

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageFont

from attention.tokens import visible
from viz.i18n import clauses, decimal, enumeration, nt, numbers, sentences, t, whole

FONT = "DejaVu Sans, Verdana, sans-serif"
CHAR_WIDTH = 0.62  # average DejaVu Sans glyph width, in font sizes: for numbers, and text where DejaVu is missing
FONT_MARGIN = 1.05  # room for another sans-serif than the DejaVu Sans that text is measured with
MASKED_FILL = "#d9d9d9"
MAX_CELL_ELEMENTS = 400  # a heatmap with more cells (and so no numbers in them) is drawn as one picture
AXIS_COLOUR = "#444444"
GRID_COLOUR = "#e6e6e6"
MARK_COLOUR = "#d55e00"  # Okabe–Ito vermillion: a tile marked (a head switched off)
# Colour scales as evenly spaced anchors, interpolated linearly (the published tables).
VIRIDIS = ("#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58", "#b5de2b",
           "#fde725")
RDBU = ("#67001f", "#b2182b", "#d6604d", "#f4a582", "#fddbc7", "#f7f7f7", "#d1e5f0", "#92c5de", "#4393c3",
        "#2166ac", "#053061")
SCALES = {"weights": VIRIDIS, "signed": RDBU}


def _esc(text: object) -> str:
    """Text or an attribute value, XML-escaped (&, <, >, both quotes); a control character, which XML
    may not hold (a form feed made SmolLM2's charts fail to load), as the symbol Unicode keeps for it."""
    return escape(visible(str(text)), quote=True)


def _num(x: float) -> str:
    """A coordinate, short: 12.5, not 12.500000."""
    return f"{x:.1f}".removesuffix(".0")


@functools.cache
def _font(bold: bool) -> ImageFont.FreeTypeFont | None:
    """DejaVu Sans (the charts' first font) at 100 px, to measure text with; None if not installed."""
    try:
        return ImageFont.truetype("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf", 100)
    except OSError:
        return None


@functools.lru_cache(maxsize=8192)  # labels repeat from rerun to rerun; measuring one takes ~20 µs
def _em_width(text: str, bold: bool) -> float:
    """Width of ``text`` in ems: measured with DejaVu Sans where it is installed (else estimated at
    CHAR_WIDTH a character), a wide East Asian character counted as 1 em (DejaVu has none, and the
    browser draws it from another font)."""
    narrow = "".join(c for c in text if east_asian_width(c) not in "WF")
    font = _font(bold)
    return len(text) - len(narrow) + (font.getlength(narrow) / 100 if font else len(narrow) * CHAR_WIDTH)


_NUMERIC = frozenset("0123456789.,−-+∞—e%")


def _cell_width(text: str, size: float) -> float:
    """A cell's text: a number (digits, a sign, a point) at the average width, which fits it without
    wasting room and costs nothing to work out; anything else (the tokens of step 1) measured."""
    return len(text) * size * CHAR_WIDTH if _NUMERIC.issuperset(text) else text_width(text, size)


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    """Pixels ``text`` takes at ``size``, with a margin of FONT_MARGIN for a browser that draws the
    chart in Verdana or its sans-serif instead. An average width a character (the old estimate)
    gave "AWESOME" 56 px where it takes 67, and "MUMMY" ran into the axis title beside it."""
    return _em_width(text, bold) * size * FONT_MARGIN


@dataclass(frozen=True)
class Grid:
    """Where a chart's cells are, in its own pixels: cell (r, c) is the ``w`` × ``h`` box at
    (x + c·px, y + r·py). A browser lays focusable cells over them (ui/view.py)."""

    x: float
    y: float
    w: float
    h: float
    px: float
    py: float
    rows: int
    cols: int
    fold: int = 0  # a single row drawn folded into rows of ``fold`` cells: drawn cell (r, c) is column r·fold + c


@dataclass(frozen=True)
class Svg:
    """A finished chart: ``markup`` is a complete SVG document of ``width`` × ``height`` pixels;
    ``alt`` says in one plain sentence or two what it shows (the image's text for a screen reader);
    ``grid``, for a heatmap or a grid of tiles, where its cells are."""

    markup: str
    width: int
    height: int
    alt: str = ""
    grid: Grid | None = None
    title: str = ""  # its title as drawn (the view names a chart's grid by it)


# The dark theme's colours, for the same document: an SVG shown as an image takes the color-scheme of
# the page (Streamlit sets it from the theme a learner chose), so the chart follows the theme without
# being drawn twice. Data colours (Viridis, RdBu, Okabe–Ito) stay; text and lines change. A cell's
# number keeps the ink its cell's colour needs. Every text colour here reads at 4.5:1 or more on the
# background it sits on (tests/test_svg.py).
DARK_TEXT = "#f4f4f5"
DARK_STYLE = (
    "<style>@media (prefers-color-scheme: dark){"
    ".bg{fill:none}"
    f"text{{fill:{DARK_TEXT}}}"
    ".nums text{fill:#000}.nums text[fill='#fff']{fill:#fff}"
    f"text[fill='{AXIS_COLOUR}'],text[fill='#555555']{{fill:#c9cbd3}}"
    "text[fill='#767676']{fill:#a6a8b1}"
    f"[stroke='{GRID_COLOUR}']{{stroke:#34363e}}"
    "[stroke='#888']{stroke:#9a9ca5}[stroke='#bbbbbb']{stroke:#5c5e67}[stroke='#555']{stroke:#b4b6bf}"
    "[stroke='#444']{stroke:#aeb0b9}[stroke='#000000']{stroke:#f4f4f5}[fill='#000000']{fill:#f4f4f5}"
    "}</style>"
)


def document(body: str, width: float, height: float, alt: str = "", grid: Grid | None = None, *,
             title: str = "") -> Svg:
    w, h = math.ceil(width), math.ceil(height)
    return Svg(f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
               f'font-family="{FONT}" font-size="13">{DARK_STYLE}'
               f'<rect class="bg" width="{w}" height="{h}" fill="white"/>{body}</svg>', w, h, alt, grid, title)


def titled(title: str, picture: str) -> str:
    """A chart's text alternative: its title, then what the picture shows ("α: a heatmap, …")."""
    return t("{title}: {picture}", title=title, picture=picture)


def listing(labels: Sequence[str], limit: int = 12) -> str:
    """Labels for a chart's text alternative: all of them, or the first ``limit`` and how many."""
    shown = enumeration(list(labels[:limit]))
    return shown if len(labels) <= limit else t("{shown}, … ({n} in all)", shown=shown, n=len(labels))


def text(x: float, y: float, content: str, *, size: float = 13, anchor: str = "start", cls: str | None = None,
         fill: str | None = None, weight: str | None = None, rotate: float = 0, baseline: str = "middle") -> str:
    attrs = [f'x="{_num(x)}"', f'y="{_num(y)}"']
    if cls:
        attrs.append(f'class="{cls}"')
    if size != 13:
        attrs.append(f'font-size="{_num(size)}"')
    if anchor != "start":
        attrs.append(f'text-anchor="{anchor}"')
    if baseline:
        attrs.append(f'dominant-baseline="{baseline}"')
    if fill:
        attrs.append(f'fill="{fill}"')
    if weight:
        attrs.append(f'font-weight="{weight}"')
    if rotate:
        attrs.append(f'transform="rotate({_num(rotate)} {_num(x)} {_num(y)})"')
    return f"<text {' '.join(attrs)}>{_esc(content)}</text>"


# ---------------------------------------------------------------------------------------------
# Colours


def _rgb(hex_colour: str) -> np.ndarray:
    return np.array([int(hex_colour[k:k + 2], 16) for k in (1, 3, 5)], dtype=np.float64)


_ANCHORS = {name: np.array([_rgb(c) for c in colours]) for name, colours in SCALES.items()}  # [k, 3]


def rgb_along(scale: str, t: npt.ArrayLike) -> np.ndarray:
    """[m, 3] 0–255 colours of the values ``t`` in [0, 1] along a scale; NaN → the masked grey."""
    anchors = _ANCHORS[scale]  # [k, 3]
    t = np.asarray(t, dtype=np.float64).ravel()
    pos = np.clip(np.nan_to_num(t), 0.0, 1.0) * (len(anchors) - 1)
    lo = np.minimum(pos.astype(int), len(anchors) - 2)
    frac = (pos - lo)[:, None]
    rgb = np.rint(anchors[lo] * (1 - frac) + anchors[lo + 1] * frac)  # [m, 3]
    rgb[~np.isfinite(t)] = _rgb(MASKED_FILL)
    return rgb.astype(np.uint8)


_WEIGHTS_LUT = rgb_along("weights", np.linspace(0.0, 1.0, 1024))  # [1024, 3]


def colours(scale: str, t: npt.ArrayLike) -> list[str]:
    """Hex colours of the values ``t`` in [0, 1] along a scale ("weights" or "signed"); NaN → grey."""
    return _hex(rgb_along(scale, t))


def _hex(rgb: np.ndarray) -> list[str]:
    return [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in rgb.tolist()]


def white_ink(rgb: npt.ArrayLike) -> np.ndarray:
    """[m] True where white text reads better than black on the 0–255 colours ``rgb`` [m, 3] (WCAG
    relative luminance at most 0.179)."""
    c = np.asarray(rgb, dtype=np.float64).reshape(-1, 3) / 255
    lin = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return lin @ np.array([0.2126, 0.7152, 0.0722]) <= 0.179


def normalise(z: np.ndarray, zmin: float, zmax: float) -> np.ndarray:
    return (z - zmin) / (zmax - zmin) if zmax > zmin else np.full_like(z, 0.5)


# ---------------------------------------------------------------------------------------------
# Heatmaps


@dataclass(frozen=True)
class ColourBar:
    scale: str
    zmin: float
    zmax: float
    label: str = ""


def heatmap(
    z: npt.ArrayLike,
    *,
    cell_text: Sequence[Sequence[str]] | None,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    title: str,
    row_title: str | None,
    col_title: str,
    scale: str,
    zmin: float,
    zmax: float,
    colour_bar: bool = True,
    compact: bool = False,
) -> Svg:
    """A grid of coloured cells, row 1 on top, with tick labels, axis titles and numbers in the cells.

    Parameters
    ----------
    z : array [rows, cols]; NaN cells are blank (grey): masked, or no number.
    cell_text : [rows][cols] strings, or None to leave the cells without numbers.
    row_labels, col_labels : plain text (escaped here).
    """
    z = np.asarray(z, dtype=np.float64)
    n_rows, n_cols = z.shape
    size = 11 if compact else 13
    tick = 13 if max(n_rows, n_cols) <= 12 else 10
    right = 70 if colour_bar else 8
    # the page's width at 1024 px less the margins at their widest (every row label, a row-axis title)
    room = MAX_CHART_WIDTH - (max((text_width(r, tick) for r in row_labels), default=0) + 8 + 22) - right
    # as wide as the widest number (at least 4 characters); a heatmap whose numbers would not fit in the room is
    # drawn without them (a real model's [4 × 64] Q with its numbers was 1,482 px wide: shrunk to 0.28, issue 34)
    number_w = None if cell_text is None else max(
        max((_cell_width(t, size) for row in cell_text for t in row), default=0.0), 4 * size * CHAR_WIDTH) + 10
    numbers = number_w is not None and n_cols * number_w <= room
    named_rows = t("{axis}: {labels}", axis=row_title, labels=listing(row_labels)) if row_title else listing(row_labels)
    picture = t("a heatmap, {rows} ({row_names}) by {columns} ({column_names}); {colours}{masked}{numbers}.",
                rows=nt("{n} row", "{n} rows", n_rows), row_names=named_rows,
                columns=nt("{n} column", "{n} columns", n_cols),
                column_names=t("{axis}: {labels}", axis=col_title, labels=listing(col_labels)),
                colours=t("red cells are negative, blue positive, up to ±{top}", top=_short(zmax))
                if scale == "signed" else t("cells run from dark purple at {low} to yellow at {high}", low=_short(zmin),
                                            high=_short(zmax)),
                masked=t("; grey cells are masked") if np.isnan(z).any() else "",
                numbers=t("; each cell shows its number") if numbers else "")
    alt = titled(title, picture)
    if numbers:  # 30 px high
        cw, ch = number_w, 30
    else:  # the columns within the room; the rows as long as they need
        cw, ch = min(22.0, max(room, 200) / n_cols), _cell_size(n_rows)
    # very long axes (a real model's 384 dimensions) get a label every few cells, as many as fit
    row_labels = _every(row_labels, math.ceil(tick / ch - 1e-9))
    # slanted labels need a little more than their type's height between them (at 1.0 they touched: issue 34)
    col_labels = _every(col_labels, math.ceil(1.5 * tick / cw - 1e-9))
    row_label_w = max((text_width(r, tick) for r in row_labels), default=0) + 8
    col_label_w = max((text_width(c, tick) for c in col_labels), default=0)
    slanted = col_label_w + 6 > cw
    # a row title turned along the rows, unless the rows are shorter than it (a one-row heatmap: turned, it ran over
    # the chart's title, issue 34); then it stands level, on a line of its own above the cells
    level = bool(row_title) and text_width(row_title, 13) / 2 > n_rows * ch / 2 + 10
    top = 34 + (18 if level else 0)
    left = row_label_w + (22 if row_title and not level else 4)
    bottom = (col_label_w * 0.72 + 14 if slanted else tick + 12) + 22
    # the column-axis title centred under the cells, moved right as far as it takes to start inside the image; the
    # image as wide as its titles (W_O's "output dim (d_model)" under two columns ran off both edges)
    col_title_w = text_width(col_title, 13)
    col_title_x = max(left + n_cols * cw / 2, col_title_w / 2 + 2)
    width = max(left + n_cols * cw + right, text_width(title, 15, bold=True) + 10, col_title_x + col_title_w / 2 + 2,
                text_width(row_title, 13) + 2 if level else 0)
    height = top + n_rows * ch + bottom
    out = [text(0, 16, title, size=15, weight="bold", cls="title")]
    cells, nums = [], []
    rgb = rgb_along(scale, normalise(z, zmin, zmax))
    if not numbers and z.size > MAX_CELL_ELEMENTS:  # one picture of the cells, not thousands of <rect>s
        cells.append(_cells_image(rgb, n_rows, n_cols, left, top, cw, ch))
        fills, whites, n_cells = [], [], 0
    else:
        fills, whites, n_cells = _hex(rgb), white_ink(rgb), n_rows
    box = f"h{_num(cw - 1)}v{_num(ch - 1)}h-{_num(cw - 1)}z"
    for i in range(n_cells):
        for j in range(n_cols):
            x, y, fill = left + j * cw, top + i * ch, fills[i * n_cols + j]
            cells.append(f'<path d="M{_num(x)} {_num(y)}{box}" fill="{fill}"/>')
            if numbers:  # short elements: a 16 × 16 heatmap is this many cells and numbers
                white = ' fill="#fff"' if whites[i * n_cols + j] else ""
                number = _esc(cell_text[i][j])
                nums.append(f'<text x="{_num(x + cw / 2)}" y="{_num(y + ch / 2)}"{white}>{number}</text>')
    out += ['<g class="cells">', *cells, '</g>',
            f'<g class="nums" font-size="{size}" text-anchor="middle" dominant-baseline="middle">', *nums, '</g>']
    # a row without a label where none fits (thinned) is no element: a real model's [576 × 64] W_Q had 550 empty ones
    out += [text(left - 6, top + (i + 0.5) * ch, label, size=tick, anchor="end", cls="ytick")
            for i, label in enumerate(row_labels) if label]
    out += category_ticks(col_labels, left=left, step=cw, y=top + n_rows * ch + 6, size=tick, slanted=slanted)
    out.append(text(col_title_x, height - 8, col_title, anchor="middle", cls="xtitle", fill=AXIS_COLOUR))
    if row_title and level:
        out.append(text(0, top - 8, row_title, cls="ytitle", fill=AXIS_COLOUR))
    elif row_title:
        out.append(text(10, top + n_rows * ch / 2, row_title, anchor="middle", cls="ytitle", fill=AXIS_COLOUR,
                        rotate=-90))
    if colour_bar:
        out.append(_colour_bar(ColourBar(scale, zmin, zmax), left + n_cols * cw + 12, top, max(n_rows * ch, 60)))
    return document("".join(out), width, height, alt, Grid(left, top, cw - 1, ch - 1, cw, ch, n_rows, n_cols),
                    title=title)


def _cell_size(count: int) -> float:
    """A row's height without numbers: 10–22 px up to 96 rows, then whatever keeps the axis 600 px long (a
    384-dimension axis gets 1.6 px rows). (Columns fit the page's width instead: ``heatmap``.)"""
    return max(10.0, min(22.0, 600 / max(count, 1))) if count <= 96 else 600 / count


# The widest a heatmap is drawn: beside the open sidebar on a 1024 px screen the page is 564 px wide, and a
# chart there is shrunk to 564 / 660 = 0.85 at worst. A heatmap whose numbers would make it wider is drawn
# without them (its table has them).
MAX_CHART_WIDTH = 660
LABEL_GAP = 1.0  # pixels kept between a bar's label and another label
TITLE_BOTTOM = 26.0  # a chart's title (15 px at y = 16) ends above this


def _every(labels: Sequence[str], step: int) -> list[str]:
    """Every ``step``-th label, the others blank (step 1: all of them)."""
    return [label if k % step == 0 else "" for k, label in enumerate(labels)]


def category_ticks(labels: Sequence[str], *, left: float, step: float, y: float, size: float,
                   slanted: bool) -> list[str]:
    """One label under the middle of each column (heatmap cells, bar slots); slanted at −45° when too
    wide for its column."""
    if slanted:
        return [text(left + (j + 0.5) * step, y, label, size=size, anchor="end", cls="xtick", rotate=-45,
                     baseline="hanging") for j, label in enumerate(labels)]
    return [text(left + (j + 0.5) * step, y, label, size=size, anchor="middle", cls="xtick", baseline="hanging")
            for j, label in enumerate(labels)]


def _cells_image(rgb: np.ndarray, n_rows: int, n_cols: int, left: float, top: float, cw: float, ch: float) -> str:
    """The cells as one PNG inside the SVG (a data: URI, so the image still loads nothing): a 64 × 64
    heatmap is then about 10 KB instead of 320 KB of <rect> elements. A pixel a cell, drawn with sharp edges at any
    size (``image-rendering``; optimizeSpeed for SVG renderers that know only SVG 1.1's word): a real model's
    [576 × 64] W_Q scaled to its 602 × 600 px was 200 KB of a rerun, one pixel a cell is a fraction of that."""
    w, h = round(n_cols * cw), round(n_rows * ch)
    picture = Image.fromarray(rgb.reshape(n_rows, n_cols, 3), "RGB")
    return (f'<image class="cells" x="{_num(left)}" y="{_num(top)}" width="{w}" height="{h}" '
            f'preserveAspectRatio="none" style="image-rendering:optimizeSpeed;image-rendering:pixelated" '
            f'href="{_png_uri(picture)}"/>')


def _png_uri(picture: Image.Image, compress_level: int = 6) -> str:
    """The picture as a data: URI, to be embedded in the SVG (so the image still loads nothing)."""
    png = io.BytesIO()
    picture.save(png, format="PNG", compress_level=compress_level)
    return "data:image/png;base64," + base64.b64encode(png.getvalue()).decode("ascii")


def tiles(
    z: npt.ArrayLike,
    *,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    title: str,
    row_title: str,
    col_title: str,
    zmax: float,
    tile: int = 72,
    gap: int = 6,
    marked: Sequence[tuple[int, int]] = (),
    marked_as: str = "",
    name_of: Callable[[str, str], str] | None = None,
) -> Svg:
    """Small multiples of same-sized matrices, ``z`` [rows, cols, n, m], on one Viridis scale 0 … zmax,
    drawn as one PNG inside the SVG (a model's 6 × 12 heads of 128 × 128 would be a million cells).
    Each tile is ``tile`` pixels wide; labels name the rows and columns of tiles. The tiles in
    ``marked`` (row, col) get a vermillion frame and a cross, and the text alternative names them as
    ``marked_as`` ("Switched off"), each by ``name_of(row label, column label)`` (the caller's words, e.g.
    "layer 3, head 7"; the two labels by default). NaN cells
    (nothing to show) are drawn as 0. The words are the caller's, in the reader's language."""
    z = np.asarray(z, dtype=np.float64)
    n_rows, n_cols, n, m = z.shape
    tile_h = max(8, round(tile * n / m))
    row_label_w = max((text_width(r, 12) for r in row_labels), default=0) + 8
    left, top = row_label_w + 24, 62
    # nearest-neighbour scaling of every tile at once: pixel (y, x) of a tile shows cell (y·n // tile_h, x·m // tile)
    shown = normalise(z[:, :, (np.arange(tile_h) * n) // tile_h][:, :, :, (np.arange(tile) * m) // tile], 0.0, zmax)
    levels = len(_WEIGHTS_LUT) - 1  # colours from a 1,024-step table: a 6 × 12 grid of 72-pixel tiles is 370,000 pixels
    scaled = _WEIGHTS_LUT[(np.clip(np.nan_to_num(shown), 0.0, 1.0) * levels).astype(np.int32)]
    canvas = np.zeros((n_rows, tile_h + gap, n_cols, tile + gap, 4), dtype=np.uint8)  # clear gaps: the page's
    canvas[:, :tile_h, :, :tile, :3] = scaled.transpose(0, 2, 1, 3, 4)  # background, in either theme
    canvas[:, :tile_h, :, :tile, 3] = 255  # [rows, tile_h, cols, tile, RGBA]
    canvas = canvas.reshape(n_rows * (tile_h + gap), n_cols * (tile + gap), 4)
    uri = _png_uri(Image.fromarray(canvas, "RGBA"), compress_level=1)  # fastest; tiles compress well anyway
    w, h = canvas.shape[1], canvas.shape[0]
    out = [text(0, 16, title, size=15, weight="bold", cls="title"),
           f'<image class="cells" x="{left}" y="{top}" width="{w}" height="{h}" href="{uri}"/>']
    out += [text(left + j * (tile + gap) + tile / 2, top - 8, label, size=12, anchor="middle", cls="xtick")
            for j, label in enumerate(col_labels)]
    out += [text(left - 6, top + i * (tile_h + gap) + tile_h / 2, label, size=12, anchor="end", cls="ytick")
            for i, label in enumerate(row_labels)]
    out.append(text(left + w / 2, 32, col_title, anchor="middle", cls="xtitle", fill=AXIS_COLOUR))
    out.append(text(10, top + h / 2, row_title, anchor="middle", cls="ytitle", fill=AXIS_COLOUR, rotate=-90))
    for i, j in marked:
        x0, y0 = left + j * (tile + gap), top + i * (tile_h + gap)
        out.append(f'<g class="marked" stroke="{MARK_COLOUR}" stroke-width="3" fill="none">'
                   f'<rect x="{_num(x0 - 1.5)}" y="{_num(y0 - 1.5)}" width="{tile + 3}" height="{tile_h + 3}"/>'
                   f'<path d="M{_num(x0)} {_num(y0)}L{_num(x0 + tile)} {_num(y0 + tile_h)}M{_num(x0 + tile)} '
                   f'{_num(y0)}L{_num(x0)} {_num(y0 + tile_h)}"/></g>')
    out.append(_colour_bar(ColourBar("weights", 0.0, zmax), left + w + 8, top, max(min(h, 300), 60)))
    alt = t("{title}: small pictures of α in a grid, {rows} ({row_title} {row_labels}) by {columns} ({col_title}: "
            "{col_labels}), coloured from 0 to {top}.", title=title, rows=nt("{n} row", "{n} rows", n_rows),
            row_title=row_title, row_labels=listing(row_labels), columns=nt("{n} column", "{n} columns", n_cols),
            col_title=col_title, col_labels=listing(col_labels), top=_short(zmax))
    if marked:
        alt = sentences(alt, t("{marked}: {tiles}.", marked=marked_as or t("Marked"), tiles=clauses(  # a name may
            [(name_of or "{} {}".format)(row_labels[i], col_labels[j]) for i, j in marked])))  # hold a comma
    return document("".join(out), max(left + w + 60, text_width(title, 15, bold=True) + 10), top + h + 8, alt,
                    Grid(left, top, tile, tile_h, tile + gap, tile_h + gap, n_rows, n_cols), title=title)


def _colour_bar(bar: ColourBar, x: float, y: float, h: float) -> str:
    """A vertical gradient from zmin (bottom) to zmax (top), labelled at both ends and the middle."""
    steps = 24
    fills = colours(bar.scale, np.linspace(1, 0, steps))
    out = [f'<rect x="{_num(x)}" y="{_num(y + k * h / steps)}" width="12" height="{_num(h / steps + 0.5)}" '
           f'fill="{c}"/>' for k, c in enumerate(fills)]
    for frac, value in ((0, bar.zmax), (0.5, (bar.zmin + bar.zmax) / 2), (1, bar.zmin)):
        out.append(text(x + 16, y + frac * h, _short(value), size=11, cls="cbar"))
    return "".join(out)


def _short(value: float) -> str:
    """A colour-bar or axis number: three significant digits, a true minus sign."""
    if value == 0:
        return "0"
    # as the reader's language writes it; 999.6 rounds to a whole 1,000 (".3g" wrote "1e+03")
    text = whole(round(value)) if abs(value) >= 999.5 else decimal(f"{value:.3g}")
    return text.replace("-", "−")


# ---------------------------------------------------------------------------------------------
# Axes


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values (1, 2 or 5 × 10^k apart) covering [lo, hi]."""
    if not hi > lo:
        return [lo]
    raw = (hi - lo) / count
    step = 10 ** math.floor(math.log10(raw))
    step *= next(m for m in (1, 2, 5, 10) if m * step >= raw)
    start = math.ceil(lo / step - 1e-9) * step
    return [round(start + k * step, 12) for k in range(int((hi - start) / step + 1e-9) + 1)]


@dataclass(frozen=True)
class Frame:
    """A plotting area: data (x, y) → pixels. ``log_x`` puts x on a log₂ axis."""

    left: float
    top: float
    width: float
    height: float
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    log_x: bool = False

    def _xt(self, x):
        return np.log2(x) if self.log_x else x

    def px(self, x) -> np.ndarray:
        lo, hi = (self._xt(v) for v in self.x_range)
        return self.left + (self._xt(np.asarray(x, dtype=np.float64)) - lo) / (hi - lo) * self.width

    def py(self, y) -> np.ndarray:
        lo, hi = self.y_range
        return self.top + (1 - (np.asarray(y, dtype=np.float64) - lo) / (hi - lo)) * self.height

    def axes(self, *, x_title: str, y_title: str, x_ticks: Sequence[float] | None = None,
             x_tick_text: Sequence[str] | None = None, y_ticks: Sequence[float] | None = None,
             zero_line: bool = False) -> str:
        """Grid lines, tick labels, axis titles and the frame."""
        out = []
        y_ticks = nice_ticks(*self.y_range) if y_ticks is None else y_ticks
        for v in y_ticks:
            y = float(self.py(v))
            out.append(f'<line x1="{_num(self.left)}" x2="{_num(self.left + self.width)}" y1="{_num(y)}" '
                       f'y2="{_num(y)}" stroke="{GRID_COLOUR}"/>')
            out.append(text(self.left - 5, y, _short(v), size=11, anchor="end", cls="ytick"))
        if x_ticks is None:
            x_ticks = nice_ticks(*self.x_range)
        labels = x_tick_text or [_short(v) for v in x_ticks]
        for v, label in zip(x_ticks, labels, strict=True):
            x = float(self.px(v))
            out.append(text(x, self.top + self.height + 6, label, size=11, anchor="middle", cls="xtick",
                            baseline="hanging"))
        if zero_line and self.x_range[0] < 0 < self.x_range[1]:  # the axis x = 0
            x = float(self.px(0))
            out.append(f'<line x1="{_num(x)}" x2="{_num(x)}" y1="{_num(self.top)}" '
                       f'y2="{_num(self.top + self.height)}" stroke="#888"/>')
        if zero_line and self.y_range[0] < 0 < self.y_range[1]:  # the axis y = 0
            y = float(self.py(0))
            out.append(f'<line x1="{_num(self.left)}" x2="{_num(self.left + self.width)}" '
                       f'y1="{_num(y)}" y2="{_num(y)}" stroke="#888"/>')
        out.append(f'<rect x="{_num(self.left)}" y="{_num(self.top)}" width="{_num(self.width)}" '
                   f'height="{_num(self.height)}" fill="none" stroke="#bbbbbb"/>')
        out.append(text(self.left + self.width / 2, self.top + self.height + 34, x_title, anchor="middle",
                        cls="xtitle", fill=AXIS_COLOUR))
        if y_title:
            out.append(text(12, self.top + self.height / 2, y_title, anchor="middle", cls="ytitle",
                            fill=AXIS_COLOUR, rotate=-90))
        return "".join(out)


LEGEND_GAP = 18  # between a legend's entries


def _legend_entry_width(name: str) -> float:
    """A legend entry's swatch, its gap and its name."""
    return 17 + text_width(name, 12)


Entry = tuple[str, str, str, str | None]  # a legend's: name, colour, kind of swatch, stroke-dasharray
DASH = "6,4"  # the stroke-dasharray of a dashed series (a line, an arrow): told from a solid one without colour


def legend(entries: Sequence[Entry], x: float, y: float) -> str:
    """Swatches with their names, in one row. An entry's kind is "square" (filled, as bars and bins), "outline" (an
    outlined square, as outlined bars and bins), "line" or "marked" (a short line, dashed by the entry's
    stroke-dasharray, with a marker for "marked"), so that the legend shows what tells one series from another
    without its colour (WCAG 1.4.1)."""
    out = []
    for name, colour, kind, dash in entries:
        out.append(_swatch(x, y, colour, kind, dash))
        out.append(text(x + 17, y, name, size=12, cls="legend"))
        x += _legend_entry_width(name) + LEGEND_GAP
    return "".join(out)


def _swatch(x: float, y: float, colour: str, kind: str, dash: str | None) -> str:
    if kind == "outline":
        return (f'<rect class="swatch" x="{_num(x + 0.75)}" y="{_num(y - 5.25)}" width="10.5" height="10.5" '
                f'fill="none" stroke="{colour}" stroke-width="1.5"/>')
    if kind in ("line", "marked"):
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        return (f'<line class="swatch" x1="{_num(x)}" y1="{_num(y)}" x2="{_num(x + 12)}" y2="{_num(y)}" '
                f'stroke="{colour}" stroke-width="2"{dashed}/>'
                + (f'<circle cx="{_num(x + 6)}" cy="{_num(y)}" r="3" fill="{colour}"/>' if kind == "marked" else ""))
    return f'<rect class="swatch" x="{_num(x)}" y="{_num(y - 6)}" width="12" height="12" fill="{colour}"/>'


def legend_rows(entries: Sequence[Entry], room: float) -> list[list[Entry]]:
    """The entries in as many rows (for ``legend``) as it takes for each row to fit ``room``."""
    rows: list[list[Entry]] = [[]]
    used = 0.0
    for entry in entries:
        w = _legend_entry_width(entry[0]) + LEGEND_GAP
        if rows[-1] and used + w - LEGEND_GAP > room:
            rows.append([])
            used = 0.0
        rows[-1].append(entry)
        used += w
    return rows


# ---------------------------------------------------------------------------------------------
# Bar charts over categories


@dataclass(frozen=True)
class Series:
    """One set of bars: a value per category, one colour (or one per bar), a label above each bar."""

    name: str
    values: Sequence[float]
    colour: str | Sequence[str]
    labels: Sequence[str] | None = None
    outline: bool = False  # bars drawn as outlines: told from another series' filled bars without colour (WCAG 1.4.1)


def bars(categories: Sequence[str], series: Sequence[Series], *, title: str, x_title: str, y_title: str,
         y_range: tuple[float, float], show_legend: bool = False, bar_width: float | None = None,
         whole: bool = False) -> Svg:
    """Bars over categories; several series stand side by side in each category. ``whole``: the y axis counts
    (people, say), so its ticks are whole numbers."""
    n, k = len(categories), len(series)
    tick = 12 if n <= 20 else 9
    slot = bar_width or max(36.0, 14.0 * k + 12, min(110.0, max((text_width(c, tick) for c in categories),
                                                               default=0) + 12))
    if not bar_width:  # within the page at 1024 px (a cached step's 28 keys, a real model's 128)
        slot = min(slot, (MAX_CHART_WIDTH - 68) / n)
    longest = max((text_width(c, tick) for c in categories), default=0)
    slanted = longest + 4 > slot
    left, top = 58, 40
    plot_h = 200
    bottom = (longest * 0.72 + 16 if slanted else 24) + 28 + (24 if show_legend else 0)
    width = max(left + n * slot + 10, text_width(title, 15, bold=True) + 10, 300)
    inner = slot * 0.8 / k
    label_size = 11 if k > 1 else 12
    labelled = [(s_idx, j) for s_idx, s in enumerate(series) if s.labels is not None for j in range(n)]

    def layout(top: float) -> tuple[Frame, list[tuple[float, float, float, float]], dict[tuple[int, int], float]]:
        """The frame, each bar's box (x0, y0, x1, y1) and each label's baseline: over its bar, lifted above every
        bar and every label placed before it that its box would touch (issue 47: a pair's two labels, side by
        side at the same height, printed over each other, "0.250.25")."""
        frame = Frame(left, top, n * slot, plot_h, (0, n), y_range)
        boxes = []
        for s_idx, s in enumerate(series):
            for j, v in enumerate(s.values):
                x = left + j * slot + slot * 0.1 + s_idx * inner
                y0, y1 = float(frame.py(max(0.0, min(v, y_range[1])))), float(frame.py(min(0.0, v)))
                boxes.append((x, y0, x + inner, y0 + max(y1 - y0, 0.5)))
        placed: list[tuple[float, float, float, float]] = []
        baselines = {}
        for s_idx, j in labelled:
            x0 = boxes[s_idx * n + j][0]
            w = text_width(series[s_idx].labels[j], label_size)
            lx0, lx1 = x0 + inner / 2 - w / 2 - LABEL_GAP, x0 + inner / 2 + w / 2 + LABEL_GAP
            y = min(b[1] for b in boxes if b[0] < lx1 and lx0 < b[2]) - 4  # over every bar it spans
            while clash := [b for b in placed if _overlap((lx0, y - label_size - LABEL_GAP, lx1, y + LABEL_GAP), b)]:
                y = min(b[1] for b in clash) - LABEL_GAP
            placed.append((lx0, y - label_size, lx1, y))
            baselines[s_idx, j] = y
        return frame, boxes, baselines

    frame, boxes, baselines = layout(top)
    highest = min(baselines.values(), default=top) - label_size  # a lifted label stays under the title
    if highest < TITLE_BOTTOM:
        top += TITLE_BOTTOM - highest
        frame, boxes, baselines = layout(top)
    out = [text(0, 16, title, size=15, weight="bold", cls="title")]
    y_ticks = None
    if whole:  # no "0.5 students"
        y_ticks = [t for t in nice_ticks(*y_range) if float(t).is_integer()] or [0.0]
        if len(y_ticks) < 2:
            y_ticks = [float(t) for t in range(int(y_range[0]), int(y_range[1]) + 1)]
    out.append(frame.axes(x_title="", y_title=y_title, x_ticks=[], x_tick_text=[], y_ticks=y_ticks))
    for s_idx, s in enumerate(series):
        fills = [s.colour] * n if isinstance(s.colour, str) else list(s.colour)
        for j in range(n):
            x, y0, _, y1 = boxes[s_idx * n + j]
            paint = (f'fill="none" stroke="{fills[j]}" stroke-width="2"' if s.outline
                     else f'fill="{fills[j]}" stroke="#444" stroke-width="0.6"')
            out.append(f'<rect class="bar" x="{_num(x)}" y="{_num(y0)}" width="{_num(inner)}" '
                       f'height="{_num(y1 - y0)}" {paint}/>')
            if s.labels is not None:
                out.append(text(x + inner / 2, baselines[s_idx, j], s.labels[j], size=label_size, anchor="middle",
                                cls="barlabel", baseline="auto"))
    out += category_ticks(categories, left=left, step=slot, y=top + plot_h + 6, size=tick, slanted=slanted)
    height = top + plot_h + bottom
    out.append(text(left + n * slot / 2, height - 10 - (24 if show_legend else 0), x_title, anchor="middle",
                    cls="xtitle", fill=AXIS_COLOUR))
    if show_legend:
        out.append(legend([(s.name, s.colour if isinstance(s.colour, str) else s.colour[0],
                            "outline" if s.outline else "square", None) for s in series],
                          left, height - 12))
    alt = t("{title}: a bar chart of {values} for each {category} ({categories}).", title=title, values=y_title,
            category=x_title or t("category"), categories=listing(categories))
    if n <= 20 and all(s.labels is not None for s in series):  # the values too, as the bars' labels say them
        alt = sentences(alt, *(t("{name}: {values}.", name=s.name, values=numbers(
            [f"{c} {v}" for c, v in zip(categories, s.labels, strict=True)])) for s in series))
    return document("".join(out), width, height, alt, title=title)


def rows_of_bars(categories: Sequence[str], values: Sequence[float], colours: Sequence[str], labels: Sequence[str],
                 *, title: str, value_title: str, size: float = 13, width: float = 600) -> Svg:
    """Horizontal bars, a row a category: its name at the left (whole, however long: an option of a question is a
    phrase), its bar, and its label at the bar's end, all at ``size`` px. For a room that reads it from afar: a
    projector's chart is ``width`` wide at ``size`` 28 (issue 47: a 200 px chart with 12 px labels)."""
    n, row = len(categories), 2 * size
    name_w = max((text_width(c, size) for c in categories), default=0) + size
    label_w = max((text_width(lab, size, bold=True) for lab in labels), default=0) + size
    room = max(width - name_w - label_w, 6 * size)
    top, most = 2.4 * size, max([*values, 1])
    out = [text(0, 1.1 * size, title, size=1.15 * size, weight="bold", cls="title")]
    for k, (name, value, colour, label) in enumerate(zip(categories, values, colours, labels, strict=True)):
        y = top + k * row
        out.append(text(name_w - size / 2, y + row / 2, name, size=size, anchor="end", cls="ytick"))
        length = room * max(float(value), 0.0) / most
        if length > 0:
            out.append(f'<rect class="bar" x="{_num(name_w)}" y="{_num(y + 0.15 * row)}" width="{_num(length)}" '
                       f'height="{_num(0.7 * row)}" fill="{colour}" stroke="#444" stroke-width="0.6"/>')
        out.append(text(name_w + length + size / 3, y + row / 2, label, size=size, weight="bold", cls="barlabel"))
    out.append(f'<line x1="{_num(name_w)}" x2="{_num(name_w)}" y1="{_num(top)}" y2="{_num(top + n * row)}" '
               f'stroke="#444"/>')
    answers = clauses([t("{axis}: {labels}", axis=c, labels=lab) for c, lab in zip(categories, labels, strict=True)])
    alt = sentences(t("{title}: a bar chart of {values} for each answer.", title=title, values=value_title),
                    t("{answers}.", answers=answers))
    return document("".join(out), max(name_w + room + label_w, text_width(title, 1.15 * size, bold=True) + 10),
                    top + n * row + size / 2, alt, title=title)


# ---------------------------------------------------------------------------------------------
# x–y plots: lines, histograms, arrows

ARROW_LABEL_SIZE = 12
ARROW_LABEL_HEIGHT = 14.0  # a label's box: its type's height and a pixel either side
LEADER_FROM = 16.0  # a label whose box is further than this from its arrow's tip gets a dotted line to it


def arrow_label_box(x: float, y: float, label: str) -> tuple[float, float, float, float]:
    """The box (x0, y0, x1, y1) of an arrow's label centred at (x, y): its measured width, its type's height."""
    w = text_width(label, ARROW_LABEL_SIZE)
    return (x - w / 2, y - ARROW_LABEL_HEIGHT / 2, x + w / 2, y + ARROW_LABEL_HEIGHT / 2)


def _crosses(box: tuple[float, float, float, float], p0: tuple[float, float], p1: tuple[float, float]) -> bool:
    """Whether the segment p0–p1 passes through the box (Liang–Barsky clipping)."""
    t0, t1 = 0.0, 1.0
    dx, dy = p1[0] - p0[0], p1[1] - p0[1]
    for p, q in ((-dx, p0[0] - box[0]), (dx, box[2] - p0[0]), (-dy, p0[1] - box[1]), (dy, box[3] - p0[1])):
        if p == 0:
            if q < 0:
                return False
        elif p < 0:
            t0 = max(t0, q / p)
        else:
            t1 = min(t1, q / p)
        if t0 > t1:
            return False
    return True


def _arrow_label_spots(arrows: Sequence[Arrow], tips: Sequence[tuple[float, float]], origin: tuple[float, float],
                       bounds: tuple[float, float, float, float]) -> list[tuple[tuple[float, float],
                                                                               tuple[float, float]] | None]:
    """Where each labelled arrow's label goes (its centre, and the point of its box nearest the tip), or None.

    Labels are placed from the last arrow drawn (the one on top, the most important) to the first, each at the
    first spot, going outwards from its tip along the arrow and then to either side, whose box touches no label
    placed before it and no arrow's tip, within ``bounds`` (issue 47: labels of tips near one another printed over
    each other)."""
    taken = [(x - 5, y - 5, x + 5, y + 5) for x, y in tips]  # every arrowhead
    shafts = [tip for a, tip in zip(arrows, tips, strict=True) if a.opacity >= 0.5]  # the arrows not faded
    spots: list = [None] * len(arrows)
    x_min, y_min, x_max, y_max = bounds
    for k in reversed(range(len(arrows))):
        a = arrows[k]
        if not a.labelled:
            continue
        tx, ty = tips[k]
        dx, dy = tx - origin[0], ty - origin[1]
        norm = math.hypot(dx, dy)
        ux, uy = (dx / norm, dy / norm) if norm > 1e-9 else (0.0, -1.0)
        w = text_width(a.label, ARROW_LABEL_SIZE)
        reach = math.hypot(w / 2, ARROW_LABEL_HEIGHT / 2)
        candidates = [(tx + ux * (reach + 4 + step) + -uy * side, ty + uy * (reach + 4 + step) + ux * side)
                      for step in range(0, 241, 12) for side in (0, 16, -16, 32, -32, 56, -56)]
        candidates += [(tx - ux * (reach + 4 + step) + -uy * side, ty - uy * (reach + 4 + step) + ux * side)
                       for step in range(0, 121, 12) for side in (0, 16, -16, 32, -32)]
        # the first free spot off every shaft; else the first free one (over a shaft); else the first spot, moved
        # into the bounds
        chosen = first_free = None
        for c in candidates:
            box = arrow_label_box(*c, a.label)
            # a pixel apart: the written centres are rounded to 0.1 px (``_num``), and two labels placed edge to edge
            # overlapped by 0.04 px as drawn (Hypothesis found it)
            if _off_bounds(box, bounds) or any(_overlap(_grown(box, LABEL_GAP), b) for b in taken):
                continue
            first_free = first_free or c
            if not any(_crosses(box, origin, tip) for tip in shafts):
                chosen = c
                break
        cx, cy = chosen or first_free or candidates[0]
        box = arrow_label_box(cx, cy, a.label)
        cx += max(x_min - box[0], 0.0) - max(box[2] - x_max, 0.0)  # never outside the plot (issue 47's audit:
        cy += max(y_min - box[1], 0.0) - max(box[3] - y_max, 0.0)  # a long label at x = 606-637 of 554 px)
        box = arrow_label_box(cx, cy, a.label)
        taken.append(box)
        spots[k] = ((cx, cy), (min(max(tx, box[0]), box[2]), min(max(ty, box[1]), box[3])))  # box's point nearest
    return spots


LABEL_GAP = 1.0  # px between two arrows' labels, and between a label and an arrowhead's box


def _grown(box: tuple[float, float, float, float], by: float) -> tuple[float, float, float, float]:
    return box[0] - by, box[1] - by, box[2] + by, box[3] + by


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _off_bounds(box: tuple[float, float, float, float], bounds: tuple[float, float, float, float]) -> bool:
    return box[0] < bounds[0] or box[2] > bounds[2] or box[1] < bounds[1] or box[3] > bounds[3]


@dataclass(frozen=True)
class Line:
    name: str
    x: Sequence[float]
    y: Sequence[float]
    colour: str
    markers: bool = True
    dash: str | None = None  # a stroke-dasharray: the line told from another without its colour (WCAG 1.4.1)


@dataclass(frozen=True)
class Columns:
    """A histogram's bins: [edges[b], edges[b + 1]) has height counts[b]."""

    name: str
    edges: Sequence[float]
    counts: Sequence[float]
    colour: str
    opacity: float = 0.6
    outline: bool = False  # bins drawn as outlines: told from filled ones without their colour (WCAG 1.4.1)


@dataclass(frozen=True)
class Arrow:
    """An arrow from the origin to (x, y), labelled at its tip."""

    x: float
    y: float
    colour: str
    label: str
    width: float = 1.8
    opacity: float = 1.0
    labelled: bool = True  # its label drawn at its tip (always named in the text alternative)
    dash: str | None = None  # a stroke-dasharray for its shaft


@dataclass(frozen=True)
class Plot:
    title: str
    x_title: str
    y_title: str
    lines: Sequence[Line] = ()
    columns: Sequence[Columns] = ()
    arrows: Sequence[Arrow] = ()
    x_range: tuple[float, float] | None = None
    y_range: tuple[float, float] | None = None
    x_ticks: Sequence[float] | None = None
    log_x: bool = False
    marks: Sequence[float] = field(default_factory=tuple)  # dotted vertical lines
    square: bool = False


def plot(p: Plot, *, width: float = 420, height: float = 240, show_legend: bool = True) -> Svg:
    """Lines, histogram bins and arrows on numeric axes."""
    xs = [v for line in p.lines for v in line.x] + [v for c in p.columns for v in c.edges] + \
         [a.x for a in p.arrows] + [0.0] * bool(p.arrows)
    ys = [v for line in p.lines for v in line.y] + [v for c in p.columns for v in c.counts] + \
         [a.y for a in p.arrows] + [0.0] * bool(p.arrows or p.columns)
    x_range = p.x_range or (min(xs), max(xs))
    y_range = p.y_range or (min(ys), max(ys) * 1.08 if max(ys) > 0 else 1.0)
    left, top = 62, 32
    plot_w, plot_h = width - left - 14, height - top - 50
    if p.square:
        plot_w = plot_h = min(plot_w, plot_h)
    frame = Frame(left, top, plot_w, plot_h, x_range, y_range, p.log_x)
    out = [text(0, 16, p.title, size=15, weight="bold", cls="title"),
           frame.axes(x_title=p.x_title, y_title=p.y_title, x_ticks=p.x_ticks, zero_line=bool(p.arrows))]
    for c in p.columns:
        x0, x1 = frame.px(c.edges[:-1]), frame.px(c.edges[1:])
        y0 = frame.py(0.0)
        ys_px = frame.py(c.counts)
        for a, b, y in zip(x0, x1, ys_px, strict=True):
            paint = (f'fill="none" stroke="{c.colour}" stroke-width="1.5"' if c.outline
                     else f'fill="{c.colour}" fill-opacity="{c.opacity}"')
            out.append(f'<rect class="bin" x="{_num(a)}" y="{_num(y)}" width="{_num(max(b - a, 0.5))}" '
                       f'height="{_num(float(y0) - y)}" {paint}/>')
    for mark in p.marks:
        x = float(frame.px(mark))
        out.append(f'<line x1="{_num(x)}" x2="{_num(x)}" y1="{_num(top)}" y2="{_num(top + plot_h)}" '
                   'stroke="#555" stroke-dasharray="3,3"/>')
    for line in p.lines:
        px, py = frame.px(line.x), frame.py(line.y)
        points = " ".join(f"{_num(a)},{_num(b)}" for a, b in zip(px, py, strict=True))
        dashed = f' stroke-dasharray="{line.dash}"' if line.dash else ""
        out.append(f'<polyline class="line" points="{points}" fill="none" stroke="{line.colour}" '
                   f'stroke-width="2"{dashed}/>')
        if line.markers:
            out += [f'<circle cx="{_num(a)}" cy="{_num(b)}" r="3" fill="{line.colour}"/>'
                    for a, b in zip(px, py, strict=True)]
    ox, oy = float(frame.px(0.0)) if p.arrows else 0.0, float(frame.py(0.0)) if p.arrows else 0.0
    tips = [(float(frame.px(a.x)), float(frame.py(a.y))) for a in p.arrows]
    spots = _arrow_label_spots(p.arrows, tips, (ox, oy), (left, top, left + plot_w, top + plot_h))
    for a, (tx, ty), spot in zip(p.arrows, tips, spots, strict=True):
        angle = math.atan2(ty - oy, tx - ox)
        head = 9 + a.width
        wing = [(tx - head * math.cos(angle + s), ty - head * math.sin(angle + s)) for s in (0.4, -0.4)]
        label = ""
        if spot is not None:
            (lx, ly), (bx, by) = spot
            if math.hypot(bx - tx, by - ty) > LEADER_FROM:  # a label moved away from its tip points back to it
                label += (f'<line class="leader" x1="{_num(tx)}" y1="{_num(ty)}" x2="{_num(bx)}" y2="{_num(by)}" '
                          f'stroke="{a.colour}" stroke-width="0.8" stroke-dasharray="2,2"/>')
            label += text(lx, ly, a.label, size=ARROW_LABEL_SIZE, anchor="middle", cls="arrowlabel", fill=a.colour)
        out.append(f'<g class="arrow" opacity="{a.opacity}"><line x1="{_num(ox)}" y1="{_num(oy)}" x2="{_num(tx)}" '
                   f'y2="{_num(ty)}" stroke="{a.colour}" stroke-width="{a.width}"'
                   + (f' stroke-dasharray="{a.dash}"' if a.dash else "") + '/>'
                   f'<polygon points="{_num(tx)},{_num(ty)} {_num(wing[0][0])},{_num(wing[0][1])} '
                   f'{_num(wing[1][0])},{_num(wing[1][1])}" fill="{a.colour}"/>' + label + "</g>")
    named = ([(line.name, line.colour, "marked" if line.markers else "line", line.dash) for line in p.lines]
             + [(c.name, c.colour, "outline" if c.outline else "square", None) for c in p.columns])
    total_h = top + plot_h + 50
    if show_legend and named:  # in as many rows as it takes to stay within the chart
        room = max(left + plot_w + 14, text_width(p.title, 15, bold=True) + 10) - left
        for row in legend_rows(named, room):
            out.append(legend(row, left, total_h + 6))
            total_h += 22
    names = listing([entry[0] for entry in named])
    drawn = ("" if not named else t("; lines: {names}", names=names) if p.lines else
             t("; histograms: {names}", names=names))
    arrows = t("; arrows: {names}", names=listing([a.label for a in p.arrows])) if p.arrows else ""
    alt = t("{title}: {values} against {axis}{drawn}{arrows}.", title=p.title, values=p.y_title or t("values"),
            axis=p.x_title, drawn=drawn, arrows=arrows)
    return document("".join(out), max(left + plot_w + 14, text_width(p.title, 15, bold=True) + 10), total_h, alt,
                    title=p.title)
