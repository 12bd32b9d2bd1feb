"""Issue 34: the walkthrough's handout, one HTML page with the learner's sentence, settings, each step's text,
figures and tables.

The page is read back as a browser would (the standard library's HTML parser: tags, attributes, the text
shown), and checked against the engine's trace and the lesson texts in assets/: never against the handout
builder's own helpers, so a wrong number or a dropped step shows up here.
"""

from __future__ import annotations

import base64
import re
import xml.etree.ElementTree as ET
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import attention as A
from attention import Projections
from viz import exports as X

ASSETS = Path(__file__).resolve().parents[1] / "assets" / "walkthrough"
HOSTILE = '<script>alert(1)</script> & "x" <img src=x onerror=alert(1)>'
TWENTY = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
          "seventeen eighteen nineteen twenty")
LINK = "http://127.0.0.1:8501/?seed=5&causal=true&query=2"

# the walkthrough's steps, written out here (not read from the code) in the order the lesson teaches them
TITLES = ["Tokens", "Embeddings X", "Projection matrices W_Q, W_K, W_V", "Queries, keys and values", "Scores Q·Kᵀ",
          "Scale by 1/√d_k", "Softmax: attention weights α", "The output for one query"]
TEXTS = ["01_tokens", "02_embeddings", "03_projections", "04_qkv", "05_scores", "06_scale", "07_softmax", "08_output"]


def _edited(d_model: int, d_k: int, seed: int) -> Projections:
    """Hand-edited matrices: any numbers a learner might type (quarters, so some sit on rounding edges)."""
    rng = np.random.default_rng(seed)
    return Projections(*(np.round(rng.normal(size=(d_model, d_k)) * 4) / 4 for _ in range(3)))


# (sentence, trace options, step 8's query, the link the page passes): 24 sentences, the settings varied
CASES = [
    ("Hi", {}, 0, None),  # one token
    (TWENTY, {"causal": True}, 19, LINK),  # twenty tokens, the last one's output
    ("the the the the", {"d_k": 2}, 2, None),  # one word repeated
    ("I ❤️ 🐍 and 👩‍💻 🇨🇿!", {"positional": True, "seed": 3}, 4, LINK),  # emoji, a joined one, a flag
    (HOSTILE, {"causal": True, "positional": True}, 1, LINK),
    ("the cat sat on the mat", {"preset": "identity", "d_k": 8}, 1, None),  # identity, d_k = d_model
    ("the cat sat on the mat", {"preset": "identity", "d_k": 3, "causal": True}, 5, None),  # identity, cut
    ("the cat sat on the mat", {"projections": _edited(8, 4, 1)}, 3, LINK),  # hand-edited
    ("don't stop believin'", {"projections": _edited(6, 5, 2), "d_model": 6, "causal": True}, 0, None),
    ("日本語のテキスト", {"d_model": 12, "d_k": 6, "seed": 42}, 7, None),
    ("</table><tr><td>1</td>", {"d_k": 1}, 3, LINK),  # tries to end the handout's tables
    ("&amp; &lt;b&gt; &#x3c;", {"temperature": 2.0}, 0, None),  # entities must stay literal text
    ("one\ttab  and   spaces", {"temperature": 0.5, "causal": True}, 1, None),
    ("x (2) x", {"seed": 9}, 2, None),  # a token that looks like a numbered label
    ("😀", {"causal": True, "d_k": 16, "d_model": 16}, 0, LINK),  # one emoji, one token
    ("**bold** _em_ `code` [link](http://evil.example)", {"positional": True}, 5, None),  # Markdown and a URL
    ("' \" ` $x$ $$y$$ \\(z\\)", {"d_model": 4, "d_k": 4}, 0, None),  # maths delimiters
    ("Supercalifragilisticexpialidocious antidisestablishmentarianism", {"d_k": 8}, 1, None),  # long labels
    ("The quick brown fox jumps over the lazy dog.", {"causal": True, "seed": 123}, 8, LINK),
    ("=HYPERLINK(1) +cmd -2+3 @SUM", {"d_k": 5, "positional": True, "causal": True}, 2, None),
    ("What? No! Yes...", {"preset": "identity"}, 4, None),
    ("Ünïcödé naïve café", {"d_model": 10, "d_k": 7, "temperature": 5.0}, 2, None),
    ("a b c d e f g h i j k l m n o p q r s t", {"d_k": 3, "seed": 7}, 99, None),  # a query beyond the last: query 1
    ("the bank of the river and the bank of England", {"causal": True, "positional": True, "seed": 31}, 6,
     "javascript:alert(1)"),  # not an http(s) address: left out
]
IDS = [f"{k}-{s[:12]}" for k, (s, *_rest) in enumerate(CASES)]


class Page(HTMLParser):
    """The handout as a browser reads it: every tag with its attributes, the text of each top section,
    the h2 headings, and every table by its name (``data-name``, or ``id``) as rows of cell texts."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.headings: list[str] = []
        self.sections: dict[str, list[str]] = {}  # section id -> its text pieces
        self.tables: dict[str, list[list[str]]] = {}
        self.by_class: dict[str, list[str]] = {}  # the texts of the <p>s of each class
        self.tokens: list[str] = []  # the items of the tokens list
        self._section: str | None = None
        self._table: list[list[str]] | None = None
        self._cell: list[str] | None = None
        self._h2: list[str] | None = None
        self._classed: list[tuple[str, list[str]]] = []  # (tag, text) of open elements with a class
        self._in_style = False
        self._in_tokens = False
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "section":
            self._section = a.get("id")
            self.sections[self._section] = []
        elif tag == "table":
            self._table = self.tables.setdefault(a.get("data-name") or a.get("id"), [])
        elif tag == "tr" and self._table is not None:
            self._table.append([])
        elif tag in ("td", "th") and self._table is not None:
            self._cell = []
        elif tag == "h2":
            self._h2 = []
        elif tag == "style":
            self._in_style = True
        if tag == "p" and a.get("class"):
            self._classed.append((a["class"], []))
        elif tag == "li" and self._in_tokens:
            self._classed.append(("token", []))
        elif tag == "ol":
            self._in_tokens = a.get("class") == "tokens"

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._table[-1].append("".join(self._cell))
            self._cell = None
        elif tag == "table":
            self._table = None
        elif tag == "h2":
            self.headings.append("".join(self._h2))
            self._h2 = None
        elif tag == "section":
            self._section = None
        elif tag == "style":
            self._in_style = False
        elif tag == "ol":
            self._in_tokens = False
        elif tag in ("p", "li") and self._classed:
            cls, text = self._classed.pop()
            if cls == "token":
                self.tokens.append("".join(text))
            else:
                self.by_class.setdefault(cls, []).append("".join(text))

    def handle_data(self, data):
        if self._in_style:
            return
        self.text.append(data)
        for part in (self._cell, self._h2):
            if part is not None:
                part.append(data)
        if self._section is not None:
            self.sections[self._section].append(data)
        for _cls, text in self._classed:
            text.append(data)

    def section_text(self, name: str) -> str:
        return " ".join("".join(self.sections[name]).split())


@cache
def handout(k: int) -> tuple[A.AttentionTrace, int, str, Page]:
    sentence, options, query, link = CASES[k]
    trace = A.trace_self_attention(sentence, **options)
    html = X.handout_html(trace, query=query, link=link)
    return trace, query if query < trace.n else 0, html, Page(html)


def first_sentence(markdown: str) -> str:
    """The lesson text's first sentence as a reader sees it: Markdown marks gone, lines joined."""
    plain = " ".join(re.sub(r"[*`]", "", markdown).replace("\n- ", " ").split())
    return re.match(r".+?[.!?:](?=\s|$)", plain)[0]


def shown_number(text: str) -> tuple[float, int]:
    """A cell's number and its decimals, read as a learner reads them (a true minus sign is a minus)."""
    assert re.fullmatch(r"−?\d+\.\d+", text), text
    return float(text.replace("−", "-")), len(text.split(".")[1])


def assert_cells(rows: list[list[str]], m: np.ndarray, *, decimals: tuple[int, int] = (2, 2),
                 masked: np.ndarray | None = None) -> None:
    """Every shown cell is its engine number rounded to the shown decimals (held at six, so within half a unit
    of the last shown digit, plus a millionth), with as many decimals as the page shows; a masked one is
    "—" (a weight) and −∞ a masked score."""
    assert len(rows) == m.shape[0] and all(len(r) == m.shape[1] for r in rows), (len(rows), m.shape)
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            if masked is not None and masked[r, c]:
                assert text == "—"
            elif np.isneginf(m[r, c]):
                assert text == "−∞"
            else:
                value, places = shown_number(text)
                assert decimals[0] <= places <= decimals[1], (text, decimals)
                assert abs(value - m[r, c]) <= 0.5 * 10.0**-places + 1e-6, (r, c, text, m[r, c])


def body(table: list[list[str]], *, labelled: bool = True) -> list[list[str]]:
    """A table's cells under its header, without its row labels."""
    return [row[1:] if labelled else row for row in table[1:]]


@pytest.mark.parametrize("k", range(len(CASES)), ids=IDS)
def test_the_handout_names_the_sentence_and_its_tokens_as_text(k):
    trace, _, html, page = handout(k)
    # the sentence, shown as typed (escaped in the file, so that the parser gives it back as text)
    assert page.by_class["sentence"] == [trace.sentence]
    assert f'<p class="sentence">{_escape(trace.sentence)}</p>' in html
    assert page.tokens == list(trace.tokens)
    assert f"{trace.n} token{'s' if trace.n > 1 else ''}, in reading order" in page.section_text("sentence")
    # the tokens table of step 1: position, token and id, as the engine numbered them
    assert page.tables["tokens"][0] == ["position i", "token", "id"]
    assert page.tables["tokens"][1:] == [[str(p + 1), t, str(i)] for p, (t, i) in
                                         enumerate(zip(trace.tokens, trace.token_ids, strict=True))]


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;") \
        .replace("'", "&#x27;")


@pytest.mark.parametrize("k", range(len(CASES)), ids=IDS)
def test_the_eight_steps_come_in_order_each_with_its_lesson_text(k):
    _, _, _, page = handout(k)
    assert page.headings == ["Your sentence"] + [f"Step {n} of 8 · {t}" for n, t in enumerate(TITLES, start=1)]
    for n, name in enumerate(TEXTS, start=1):
        first = first_sentence((ASSETS / f"{name}.md").read_text(encoding="utf-8"))
        shown = page.section_text(f"step-{n}")
        assert shown.startswith(f"Step {n} of 8 · {TITLES[n - 1]}")
        assert first in shown, (n, first)  # in its own step, not merely somewhere in the page


@pytest.mark.parametrize("k", range(len(CASES)), ids=IDS)
def test_the_settings_are_the_traces_own(k):
    trace, query, _, page = handout(k)
    options = CASES[k][1]
    rows = page.tables["settings"]
    assert rows[0] == ["setting", "value", "what it does"]
    shown = {row[0]: row[1] for row in rows[1:]}
    edited = "projections" in options
    assert shown["d_model"] == str(trace.d_model) == str(options.get("d_model", 8))
    # hand-edited matrices set d_k by their shape, whatever d_k the options name
    d_k = options["projections"][0].shape[1] if edited else options.get("d_k", 4)
    assert shown["d_k"] == str(trace.d_k) == str(d_k)
    assert shown["seed"] == str(trace.seed) == str(options.get("seed", 0))
    assert shown["hand-edited W_Q, W_K, W_V"] == ("yes" if edited else "no")
    assert shown["W_Q, W_K, W_V"] == ("hand-edited" if edited else
                                      {"random": "seeded random", "identity": "identity"}[options.get("preset",
                                                                                                      "random")])
    assert shown["positional encodings (P)"] == ("on" if options.get("positional") else "off")
    assert shown["causal mask"] == ("on" if options.get("causal") else "off")
    assert float(shown["temperature T"]) == options.get("temperature", 1.0) == trace.temperature
    label = shown["step 8's query"]
    assert label.startswith(f"{query + 1} · ") and trace.tokens[query][:13] in label


@pytest.mark.parametrize("k", range(len(CASES)), ids=IDS)
def test_every_table_shows_the_engines_numbers_at_the_pages_decimals(k):
    trace, i, _, page = handout(k)
    t = page.tables
    n, d = trace.n, trace.d_k
    matrices = {"X": trace.x, "W_Q": trace.w_q, "W_K": trace.w_k, "W_V": trace.w_v, "Q": trace.q, "K": trace.k,
                "V": trace.v, "S": trace.scores, "Z": trace.masked_scores, "output": trace.output}
    if trace.positional_encoding is not None:
        matrices |= {"E": trace.embeddings, "P": trace.positional_encoding}
    expected_names = {"settings", "tokens", *matrices, "α", "α row", "weighted sum", "output row"}
    assert set(t) == expected_names
    for name, m in matrices.items():
        if name not in ("S", "Z"):  # columns: dimensions 1 … d (S and Z: keys, below)
            assert t[name][0][1:] == [str(c + 1) for c in range(m.shape[1])], name
        assert_cells(body(t[name]), m)
    for name in ("S", "Z", "α"):
        assert [row[0] for row in t[name][1:]] == t[name][0][1:]  # rows are queries, columns keys: one labelling
    # step 8: the chosen query's weights, each term α_ij·v_j (2 to 6 decimals) and their sum, its output row
    masked = ~trace.mask
    assert_cells(body(t["α"]), trace.weights, masked=masked)
    assert_cells(body(t["α row"]), trace.weights[[i]], masked=masked[[i]])
    terms = np.vstack([trace.weights[i][:, None] * trace.v, trace.output[[i]]])  # [n + 1, d_k]
    assert_cells(body(t["weighted sum"])[:-1], terms[:-1], decimals=(2, 6))
    assert_cells(body(t["weighted sum"])[-1:], terms[-1:])
    assert t["weighted sum"][-1][0] == "Σ = output"
    assert_cells(body(t["output row"]), trace.output[[i]])
    assert len(t["output"]) == n + 1 and len(t["output"][0]) == d + 1
    # the row labels are the tokens (a repeated or a long one numbered or cut, as on the page)
    for label, token in zip([row[0] for row in t["X"][1:]], trace.tokens, strict=True):
        assert label == token or label.startswith(token[:13]) or label.endswith(")")


@pytest.mark.parametrize("k", range(len(CASES)), ids=IDS)
def test_the_handout_runs_nothing_and_fetches_nothing(k):
    trace, _, html, page = handout(k)
    link = CASES[k][3]
    allowed = {"html", "head", "meta", "title", "style", "body", "header", "main", "section", "h1", "h2", "h3", "p",
               "strong", "em", "code", "ul", "ol", "li", "div", "img", "table", "caption", "thead", "tbody", "tr",
               "th", "td", "a"}
    assert {tag for tag, _ in page.tags} <= allowed  # every tag is the handout's: none came from the sentence
    assert "<script" not in html.lower() and "@import" not in html and "url(" not in html
    for tag, attrs in page.tags:
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        for name in ("src", "href", "action", "srcset", "poster"):
            value = attrs.get(name)
            if value is None:
                continue
            if name == "src":
                assert tag == "img" and value.startswith("data:image/svg+xml;base64,")
            else:  # the one link: back to the lesson, when the page passed an http(s) address
                assert (tag, name) == ("a", "href") and value == link and link.startswith("http")
    links = [a for tag, a in page.tags if tag == "a"]
    assert len(links) == (1 if link and link.startswith("http") else 0)
    policy = [a["content"] for tag, a in page.tags if tag == "meta" and a.get("http-equiv")]
    assert policy == ["default-src 'none'; img-src data:; style-src 'unsafe-inline'"]
    # the figures: well-formed SVG images that load nothing and run nothing
    images = [a for tag, a in page.tags if tag == "img"]
    assert len(images) == (16 if trace.positional_encoding is not None else 14)
    for image in images:
        markup = base64.b64decode(image["src"].split(",", 1)[1]).decode("utf-8")
        ET.fromstring(markup)
        assert "<script" not in markup and not re.search(r'href="(?!data:)', markup)
        assert image["alt"]


def test_a_hostile_sentence_stays_text():
    trace, _, html, page = handout(next(k for k, case in enumerate(CASES) if case[0] == HOSTILE))
    assert trace.sentence == HOSTILE
    assert "<script" not in html.lower() and "<img src=x" not in html  # no tag of the sentence's
    assert HOSTILE in "".join(page.text)  # shown to the reader as typed
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot; &lt;img src=x onerror=alert(1)&gt;" in html
    # its tokens in the figures' text alternatives: escaped in the attribute, given back as text
    first = next(a for tag, a in page.tags if tag == "img")
    assert first["alt"].startswith("27 tokens in reading order: < (1), script (2), > (3)")


def test_a_link_is_printed_as_well_as_linked():
    page = handout(1)[3]
    assert [a for tag, a in page.tags if tag == "a"] == [{"id": "lesson-link", "href": LINK}]
    assert LINK in page.section_text("sentence")


def test_the_page_offers_the_handout_of_its_own_trace_query_and_link(monkeypatch):
    """The walkthrough's download builds, when clicked, the handout of the trace the page shows, with step 8's
    chosen query and the share link."""
    from streamlit.runtime.media_file_manager import MediaFileManager
    from streamlit.testing.v1 import AppTest

    from tests.test_pages import APP

    made = {}
    add = MediaFileManager.add_deferred

    def keep(self, data, mimetype, coordinates, file_name=None, **options):
        made[file_name] = data  # the callable the button runs when clicked
        return add(self, data, mimetype, coordinates, file_name, **options)

    monkeypatch.setattr(MediaFileManager, "add_deferred", keep)
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"step": "8", "causal": "true", "seed": "7", "d_k": "3"})
    at.run()
    assert "attention_handout.html" not in made  # the panel is closed: nothing is built
    at.session_state["query"] = 2
    at.session_state["exports"] = True  # the learner opens the downloads
    at = at.run()
    assert not at.exception
    button = next(b for b in at.get("download_button") if b.proto.id.endswith("-export_html"))
    assert button.proto.label == "Handout (HTML): the lesson with your numbers"
    page = Page(made["attention_handout.html"]())
    settings = {row[0]: row[1] for row in page.tables["settings"][1:]}
    assert (settings["seed"], settings["d_k"], settings["causal mask"]) == ("7", "3", "on")
    assert settings["step 8's query"].startswith("3 · ")
    engine = A.trace_self_attention(at.session_state["sentence"], seed=7, d_k=3, causal=True)
    assert_cells(body(page.tables["α"]), engine.weights, masked=~engine.mask)
    href = [a["href"] for tag, a in page.tags if tag == "a"]
    assert len(href) == 1 and "seed=7" in href[0] and "causal=true" in href[0] and "query=3" in href[0]
