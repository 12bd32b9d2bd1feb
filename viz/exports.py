"""Exports of a trace: CSV per matrix (the tables' labels, tokens or dimensions, as headers), JSON of every step, and
the handout: the walkthrough as one printable HTML page with the learner's numbers.

Pure functions; the page only offers their results as downloads.
"""

from __future__ import annotations

import base64
import json
import unicodedata
from collections.abc import Callable
from html import escape

import numpy as np
import numpy.typing as npt
import pandas as pd
from markdown_it import MarkdownIt

from attention import AttentionTrace
from viz import figures as F
from viz import formulas as L
from viz import tables as T
from viz.i18n import N_, decimal, html_lang, nt, sentences, t
from viz.labels import format_number, query_labels, token_labels
from viz.steps import MASK_CAPTION, SIGNED_CAPTION, STEP_TEXTS, identity_note, lesson_markdown
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


# --- the handout: the walkthrough as one printable, self-contained HTML page (issue 34) ----------------

# The lesson texts' Markdown (bold, italics, code, lists) as HTML: markdown-it-py, CommonMark without raw
# HTML, links or images, so a handout neither runs nor fetches anything from its texts.
_MARKDOWN = MarkdownIt("commonmark", {"html": False}).disable(["link", "image", "autolink"])

PRESET_SHOWN = {"random": N_("seeded random"), "identity": N_("identity"), "custom": N_("hand-edited")}  # trace.preset
_PRESET_MEANS = {
    "random": N_("entries drawn from N(0, 1/d_model), fixed by the seed"),
    "identity": N_("ones on the diagonal: Q = K = V = X when d_k = d_model"),
    "custom": N_("the matrices as edited by hand in step 3"),
}
# Content-Security-Policy of the page itself: no script, no request; only its inline style and data: images
NUMBER_CELL = '<td class="num">'  # right-aligned, as the page aligns numbers
_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
_CSS = """
:root { color-scheme: light; }
body { font: 11pt/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: #1a1a1a; background: #fff; max-width: 62rem; margin: 0 auto; padding: 1.5rem; }
h1 { margin-bottom: 0.2rem; } h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2rem; margin-top: 2rem; }
h3 { font-size: 1rem; margin: 1.2rem 0 0.4rem; }
.sentence { font-size: 1.25rem; border-left: 4px solid #0072B2; margin: 0.5rem 0; padding: 0.3rem 0.8rem;
            background: #f4f8fb; white-space: pre-wrap; overflow-wrap: anywhere; }
.formula { font-family: "Cambria Math", "STIX Two Math", "Latin Modern Math", Georgia, serif; font-size: 1.05rem;
           background: #f7f7f7; padding: 0.3rem 0.6rem; border-radius: 4px; }
.caption, .small { color: #444; font-size: 0.9rem; }
.row { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
.panel { margin: 0.6rem 0; max-width: 100%; overflow-x: auto; }
img { max-width: 100%; height: auto; display: block; }
table { border-collapse: collapse; font-size: 0.85rem; font-variant-numeric: tabular-nums; margin: 0.4rem 0; }
caption { text-align: left; font-weight: 600; padding-bottom: 0.2rem; }
th, td { border: 1px solid #c8c8c8; padding: 0.1rem 0.45rem; white-space: nowrap; }
thead th, tbody th { background: #f2f2f2; font-weight: 600; }
tbody th { text-align: left; }
td.num { text-align: right; }
ol.tokens { display: flex; flex-wrap: wrap; gap: 0.3rem 1.4rem; padding-left: 1.4rem; }
a { color: #0b5394; overflow-wrap: anywhere; }
section.step { break-before: page; page-break-before: always; }
h2, h3, caption { break-after: avoid; page-break-after: avoid; }
img, table, .formula { break-inside: avoid; page-break-inside: avoid; }
@page { margin: 14mm; }
@media print { body { max-width: none; padding: 0; font-size: 10pt; } .panel { overflow: visible; } }
"""


def handout_html(trace: AttentionTrace, *, query: int = 0, link: str | None = None) -> str:
    """The walkthrough as a printed lesson, in one self-contained HTML file: the sentence and its tokens,
    the settings that made these numbers, then the eight steps, each with its lesson text, its formula in
    plain text, its figures (the SVGs the page draws, as data: images) and its tables (the decimals the
    page shows).

    Parameters
    ----------
    trace : AttentionTrace
        The walkthrough's trace (every token a query, no RoPE step). The settings are read from its own
        fields, so they are the ones that made its numbers.
    query : int
        Step 8's query, a row of the trace (0 for the first token); out of range falls back to the first.
    link : str, optional
        The lesson's share link (``ui.links.lesson_url``), printed and linked under the settings; an
        address that is not http(s) is left out.

    Every text from the learner (the sentence, the tokens) is escaped; the page carries a
    Content-Security-Policy that allows no script and no request.
    """
    if trace.rope is not None or trace.queries is not None:
        raise ValueError("The handout prints the walkthrough's eight steps: a trace without RoPE or a cache.")
    i = query if 0 <= query < trace.n else 0
    steps = [_step1_tokens, _step2_embeddings, _step3_projections, _step4_qkv, _step5_scores, _step6_scale,
             _step7_softmax, lambda t: _step8_output(t, i)]
    sections = []
    for number, ((title, text), draw) in enumerate(zip(STEP_TEXTS, steps, strict=True), start=1):
        heading = t("Step {number} of {steps} · {title}", number=number, steps=len(STEP_TEXTS), title=t(title))
        sections.append(f'<section class="step" id="step-{number}"><h2>{escape(heading)}</h2>\n'
                        f"{_MARKDOWN.render(lesson_markdown(text))}\n"
                        + "\n".join(draw(trace)) + "</section>")
    title = trace.sentence if len(trace.sentence) <= 60 else _cut(trace.sentence, 59) + "…"
    lesson = t("Self-attention, step by step")
    heading = t("{lesson}: {sentence}", lesson=lesson, sentence=title)
    about = t("A handout from Attention Lab: every number below was computed for this sentence with these settings.")
    return (
        f'<!doctype html>\n<html lang="{html_lang()}"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light">'
        f"<title>{escape(heading)}</title><style>{_CSS}</style></head><body>\n"
        f"<header><h1>{escape(lesson)}</h1>"
        f'<p class="small">{escape(about)}</p>'
        f'<p class="formula">{escape("Attention(Q, K, V) = softmax(Q·Kᵀ / √d_k) · V")}</p></header>\n'
        + _about(trace, i, link) + "\n<main>\n" + "\n".join(sections) + "\n</main></body></html>\n"
    )


def _cut(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text`` or fewer, never inside a character a reader sees as one: an accent,
    a variation selector, a skin tone, an emoji joined by ZWJ (👨‍👩‍👧 cut after 👨 read "man"), a flag's pair."""
    def joined(before: str, after: str) -> bool:
        regional = 0x1F1E6 <= ord(after) < 0x1F200 and 0x1F1E6 <= ord(before) < 0x1F200
        return (unicodedata.category(after).startswith("M") or "\u200d" in (before, after)
                or 0x1F3FB <= ord(after) <= 0x1F3FF or regional)
    cut = limit
    while 0 < cut < len(text) and joined(text[cut - 1], text[cut]):
        cut -= 1
    return text[:cut]


def _about(trace: AttentionTrace, i: int, link: str | None) -> str:
    """The sentence, its tokens, the settings (from the trace's own fields) and the link back."""
    label = token_labels(trace.tokens)[i]
    edited = trace.preset == "custom"
    on, off = t("on"), t("off")
    rows = [
        ("d_model", str(trace.d_model), t("numbers in each token's embedding (a row of X)")),
        ("d_k", str(trace.d_k), t("numbers in each query, key and value")),
        (t("seed"), str(trace.seed), t("fixes the random embeddings and W_Q, W_K, W_V") if trace.preset == "random"
         else t("fixes the random embeddings")),
        ("W_Q, W_K, W_V", t(PRESET_SHOWN[trace.preset]) if trace.preset in PRESET_SHOWN else trace.preset,
         t(_PRESET_MEANS[trace.preset]) if trace.preset in _PRESET_MEANS else ""),
        (t("hand-edited W_Q, W_K, W_V"), t("yes") if edited else t("no"),
         t("edited cell by cell in step 3") if edited else t("as the preset made them")),
        (t("positional encodings (P)"), off if trace.positional_encoding is None else on,
         t("not added: X is the embeddings alone (step 2)") if trace.positional_encoding is None
         else t("sine and cosine waves of the position, added to the embeddings to make X (step 2)")),
        (t("causal mask"), on if trace.causal else off,
         t("a token attends only to itself and the tokens before it") if trace.causal
         else t("every token attends to every token")),
        (t("temperature T"), decimal(f"{trace.temperature:g}"),
         t("divides the scaled scores; 1 is standard attention")),
        (t("step 8's query"), f"{i + 1} · {label}", t("the token whose output step 8 builds")),
    ]
    head = (t("The settings that made these numbers"), t("setting"), t("value"), t("what it does"))
    table = (f'<table id="settings"><caption>{escape(head[0])}</caption><thead><tr>'
             f'<th scope="col">{escape(head[1])}</th><th scope="col">{escape(head[2])}</th>'
             f'<th scope="col">{escape(head[3])}</th></tr></thead>'
             "<tbody>" + "".join(f'<tr><th scope="row">{escape(name)}</th><td>{escape(value)}</td>'
                                 f"<td>{escape(means)}</td></tr>" for name, value, means in rows)
             + "</tbody></table>")
    tokens = "".join(f"<li>{escape(token)}</li>" for token in trace.tokens)
    back = ""
    if link and link.startswith(("http://", "https://")):
        open_here = t("Open this lesson, with these settings, in Attention Lab:")
        back = (f'<p class="small">{escape(open_here)} '
                f'<a id="lesson-link" href="{escape(link, quote=True)}">{escape(link)}</a></p>')
    yours, reading = t("Your sentence"), nt("{n} token, in reading order:", "{n} tokens, in reading order:", trace.n)
    return (f'<section id="sentence"><h2>{escape(yours)}</h2>'
            f'<p class="sentence">{escape(trace.sentence)}</p>'
            f"<p>{escape(reading)}</p>"
            f'<ol class="tokens">{tokens}</ol>{table}{back}</section>')


def _heading(text: str) -> str:
    return f"<h3>{escape(text)}</h3>"


def _escaped(text: str, cls: str) -> str:
    return f'<p class="{cls}">{escape(text)}</p>'


def _image(fig: Svg) -> str:
    # a figure's alt text holds the learner's tokens: escaped for the attribute
    alt = fig.alt or t("figure")
    return (f'<img alt="{escape(alt, quote=True)}" width="{fig.width}" height="{fig.height}" '
            f'src="{data_uri(fig)}">')


def _table(frame: pd.DataFrame, name: str, decimals: int | npt.ArrayLike | None = 2) -> str:
    """The frame as the page's table shows it: ``decimals`` for every number (None: as they are, ids and
    positions) or one a cell (the Σ table; a negative one, a "≈" marker, counts by its size); masked
    cells as "—" (a weight) or "−∞" (a score)."""
    if decimals is None or np.ndim(decimals) == 0:
        shown = T.formatted(frame, decimals, markdown=False).to_numpy().tolist()
    else:
        places = np.abs(np.broadcast_to(np.asarray(decimals), frame.shape)).tolist()
        shown = [[format_number(float(x), d) for x, d in zip(row, drow, strict=True)]
                 for row, drow in zip(frame.to_numpy().tolist(), places, strict=True)]
    numeric = [pd.api.types.is_numeric_dtype(dtype) for dtype in frame.dtypes]
    labelled = not isinstance(frame.index, pd.RangeIndex) or frame.index.name is not None
    head = ([f'<th scope="col">{escape(T.header(frame.index.name or ""))}</th>'] if labelled else []) + [
        f'<th scope="col">{escape(c)}</th>' for c in T.column_names(frame)]
    body = []
    for label, row in zip(T.row_names(frame), shown, strict=True):
        cells = [(NUMBER_CELL if right else "<td>") + f"{escape(str(c))}</td>"
                 for c, right in zip(row, numeric, strict=True)]
        body.append("<tr>" + (f'<th scope="row">{escape(str(label))}</th>' if labelled else "") + "".join(cells)
                    + "</tr>")
    return (f'<table data-name="{escape(name, quote=True)}"><thead><tr>{"".join(head)}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>")


def _panel(fig: Svg, frame: pd.DataFrame, name: str, decimals: int | npt.ArrayLike | None = 2) -> str:
    return f'<div class="panel">{_image(fig)}{_table(frame, name, decimals)}</div>'


def _row(panels: list[str]) -> str:
    return '<div class="row">' + "".join(panels) + "</div>"


def _vectors(trace: AttentionTrace, parts: list[tuple[str, str, np.ndarray]]) -> str:
    """[n, d] matrices side by side, each a compact heatmap over its table, as the page draws them."""
    return _row([_panel(F.token_by_dim_figure(trace, m, title, compact=True), T.token_by_dim_frame(trace, m), name)
                 for title, name, m in parts])


def _step1_tokens(trace: AttentionTrace) -> list[str]:
    return [_panel(F.tokens_figure(trace), T.token_frame(trace), "tokens", decimals=None)]


def _step2_embeddings(trace: AttentionTrace) -> list[str]:
    n, d = trace.n, trace.d_model
    if trace.positional_encoding is None:
        return [_escaped(t("X = Embed(tokens), a matrix of [{n} × {d_model}]", n=n, d_model=d), "formula"),
                _panel(F.token_by_dim_figure(trace, trace.x, "X"), T.token_by_dim_frame(trace, trace.x), "X")]
    return [
        _escaped("X = E + P,   P(i, 2c+1) = sin((i − 1) / 10000^(2c/d_model)),   "
                 "P(i, 2c+2) = cos((i − 1) / 10000^(2c/d_model)),   c = 0, 1, …", "formula"),
        _vectors(trace, [(t("E (token embeddings)"), "E", trace.embeddings), (t("P (positions)"), "P",
                         trace.positional_encoding), ("X = E + P", "X", trace.x)]),
        _escaped(sentences(t("Each cell of X is the sum of the cells at the same place in E and P."),
                           t(SIGNED_CAPTION)), "caption"),
    ]


def _step3_projections(trace: AttentionTrace) -> list[str]:
    out = [_escaped(t("W_Q, W_K, W_V: each a matrix of [d_model × d_k] = [{d_model} × {d_k}]", d_model=trace.d_model,
                      d_k=trace.d_k), "formula")]
    note = identity_note(trace)
    if note:
        out.append(_escaped(note, "caption"))
    out.append(_row([_panel(F.projection_figure(w, name, compact=True), T.projection_frame(w), name)
                     for name, w in (("W_Q", trace.w_q), ("W_K", trace.w_k), ("W_V", trace.w_v))]))
    if trace.b_q is not None:
        out += [_escaped(t("The biases, one number per output dimension, added to every token's row:"), "caption"),
                _table(T.bias_frame(trace), "biases")]
    return [*out, _escaped(t(SIGNED_CAPTION), "caption")]


def _step4_qkv(trace: AttentionTrace) -> list[str]:
    n, d, k = trace.n, trace.d_model, trace.d_k
    formula = (f"Q = X·W_Q, K = X·W_K, V = X·W_V:   [{n} × {d}]·[{d} × {k}] = [{n} × {k}]" if trace.b_q is None else
               f"Q = X·W_Q + b_Q, K = X·W_K + b_K, V = X·W_V + b_V:   [{n} × {d}]·[{d} × {k}] + [{k}] = [{n} × {k}]")
    return [_escaped(formula, "formula"),
            _vectors(trace, [("Q", "Q", trace.q), ("K", "K", trace.k), ("V", "V", trace.v)]),
            _escaped(sentences(t("One row per token."), t(SIGNED_CAPTION)), "caption")]


def _step5_scores(trace: AttentionTrace) -> list[str]:
    n, k = trace.n, trace.d_k
    return [_escaped(f"S = Q·Kᵀ,   s_ij = q_i · k_j:   [{n} × {k}]·[{k} × {n}] = [{n} × {n}]", "formula"),
            _panel(F.query_key_figure(trace, trace.scores, t("scores S = Q·Kᵀ")),
                   T.query_key_frame(trace, trace.scores), "S")]


def _step6_scale(trace: AttentionTrace) -> list[str]:
    # "= 0.5" when exact at 3 decimals, "≈ 0.354"; plain text, not TeX: "≈" and a bare decimal comma ("0{,}5" in TeX)
    factor = L.factor(trace.scale).replace(r"\approx", "≈").replace("{,}", ",")
    if trace.temperature == 1:
        formula = f"Z = S / √d_k,   z_ij = s_ij / √{trace.d_k} {factor} · s_ij"
    else:
        temperature = decimal(f"{trace.temperature:g}")
        formula = f"Z = S / (√d_k · T),   z_ij = s_ij / (√{trace.d_k} · {temperature}) {factor} · s_ij"
    out = [_escaped(formula, "formula")]
    if trace.causal:
        out.append(_escaped(t("masked: z_ij = −∞ for j > i"), "formula"))
    out.append(_panel(F.query_key_figure(trace, trace.masked_scores, t("scaled scores Z = S/√d_k")),
                      T.query_key_frame(trace, trace.masked_scores), "Z"))
    if trace.causal:
        out.append(_escaped(t("Causal mask on: the scaled scores of later tokens are set to −∞, so the softmax "
                              "gives them weight 0."), "caption"))
    return out


def _step7_softmax(trace: AttentionTrace) -> list[str]:
    out = [_escaped("α_ij = softmax_j(z_ij) = e^(z_ij) / Σ_j′ e^(z_ij′),   Σ_j α_ij = 1", "formula"),
           _panel(F.query_key_figure(trace, trace.weights, t("α weights"), weights=True),
                  T.query_key_frame(trace, trace.weights, weights=True), "α"),
           _escaped(T.row_sums_text(trace.weights, query_labels(trace), trace.mask), "caption")]
    return out + ([_escaped(t(MASK_CAPTION), "caption")] if trace.causal else [])


def _step8_output(trace: AttentionTrace, i: int) -> list[str]:
    n, k, label = trace.n, trace.d_k, token_labels(trace.tokens)[i]
    decimals = T.weighted_sum_decimals(trace, i)
    return [
        _escaped(f"Att(q_{i + 1}, K, V) = Σ_j α_{i + 1}j · v_j", "formula"),
        _heading(t("Query {query} (“{token}”): its weights", query=i + 1, token=label)),
        _panel(F.alpha_bars(trace, i), T.query_key_frame(trace, trace.weights, weights=True).iloc[[i]], "α row"),
        _heading(t("Each value scaled by its weight, and their sum")),
        _panel(F.weighted_sum_figure(trace, i), T.weighted_sum_frame(trace, i), "weighted sum", decimals),
        _escaped(T.weighted_sum_caption(decimals), "caption"),
        _heading(nt("Output for query {query} (“{token}”), a vector of d_k = {n} number",
                    "Output for query {query} (“{token}”), a vector of d_k = {n} numbers", k, query=i + 1,
                    token=label)),
        _table(T.token_by_dim_frame(trace, trace.output).iloc[[i]], "output row"),
        _heading(t("Every query at once")),
        _escaped(f"Att(Q, K, V) = α·V:   [{n} × {n}]·[{n} × {k}] = [{n} × {k}]", "formula"),
        _panel(F.token_by_dim_figure(trace, trace.output, t("output αV")), T.token_by_dim_frame(trace, trace.output),
               "output"),
    ]


def data_uri(fig: Svg) -> str:
    """The figure as a data: URI of type image/svg+xml (what st.image makes of an SVG, too)."""
    return "data:image/svg+xml;base64," + base64.b64encode(fig.markup.encode("utf-8")).decode("ascii")
