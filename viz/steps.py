"""The walkthrough's eight steps as text: each step's title and lesson text (assets/walkthrough/*.md), and
the captions every telling of them shares. Pure: the page draws the steps (ui/walkthrough.py), the
handout prints them (viz/exports.py), from this one list.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from attention import AttentionTrace
from viz.i18n import ENGLISH, N_, PSEUDO, language, pseudo, t

ASSETS = Path(__file__).resolve().parent.parent / "assets"

# (title, lesson text in assets/), in the order of the walkthrough
STEP_TEXTS: list[tuple[str, str]] = [  # the titles in English, as the code names the steps; a page shows t(title)
    (N_("Tokens"), "walkthrough/01_tokens"),
    (N_("Embeddings X"), "walkthrough/02_embeddings"),
    (N_("Projection matrices W_Q, W_K, W_V"), "walkthrough/03_projections"),
    (N_("Queries, keys and values"), "walkthrough/04_qkv"),
    (N_("Scores Q·Kᵀ"), "walkthrough/05_scores"),
    (N_("Scale by 1/√d_k"), "walkthrough/06_scale"),
    (N_("Softmax: attention weights α"), "walkthrough/07_softmax"),
    (N_("The output for one query"), "walkthrough/08_output"),
]

SIGNED_CAPTION = N_("Colours: blue is positive, red is negative, white is zero. The exact numbers are in the tables.")
MASK_CAPTION = N_(
    "Causal mask on: grey cells marked — are masked. A decoder must not look at later tokens, so query i "
    "attends only to tokens 1 … i, and every row still sums to 1. An encoder sees the whole sentence."
)


# A line of its own in a step's text: what comes before it is the step's lead, drawn above its chart; the rest is
# drawn under the step's charts when one step is shown at a time (issue 47: the chart in view on arrival). Every
# other telling (all steps on one page, the handout, the other lessons) prints the whole text, without the line.
MORE = "<!-- more -->"


def lesson_parts(name: str) -> tuple[str, str]:
    """The lead of assets/<name>.md and the rest (empty when the text has no ``MORE`` line), in the running language."""
    lead, _, more = lesson_text(name, language()).partition(f"\n{MORE}\n")
    return lead.strip(), more.strip()


def lesson_markdown(name: str) -> str:
    """The Markdown of assets/<name>.md (our own text, never user input), whole (a ``MORE`` line left out: a lead that
    ends mid-paragraph joins the rest again), in the running language."""
    return lesson_text(name, language()).replace(f"\n{MORE}\n", "\n")


@cache
def lesson_text(name: str, lang: str) -> str:
    """A lesson text as ``lang`` reads it: assets/<lang>/<name>.md where that language has its own, else the English
    assets/<name>.md (in the pseudo-language, every line's words marked: ``pseudo_markdown``). Cached by language:
    one process serves every session's."""
    own = ASSETS / lang / f"{name}.md"
    if lang not in (ENGLISH, PSEUDO) and own.is_file():
        return own.read_text(encoding="utf-8")
    text = (ASSETS / f"{name}.md").read_text(encoding="utf-8")
    return pseudo_markdown(text) if lang == PSEUDO else text


_LINE_START = re.compile(r"^(\s*(?:#{1,6} |[-*+] |\d+\. |> )?)(.*)$")


def pseudo_markdown(text: str) -> str:
    """A Markdown text in the pseudo-language, line by line: a line's words marked (``viz.i18n.pseudo``: maths, links
    and icons kept), its heading, list or quote mark before them; blank lines, display maths ($$) and HTML comments
    as they are."""
    out = []
    for line in text.split("\n"):
        mark, words = _LINE_START.match(line).groups()
        plain = not words.strip() or words.strip().startswith(("$$", "<!--", "|")) or words.strip().endswith("$$")
        out.append(line if plain else mark + pseudo(words))
    return "\n".join(out)


def identity_note(trace: AttentionTrace) -> str | None:
    """What "identity" means when d_k ≠ d_model (step 3), or None where it needs no note."""
    if trace.preset != "identity" or trace.d_k == trace.d_model:
        return None
    sizes = {"d_k": trace.d_k, "d_model": trace.d_model, "kept": min(trace.d_k, trace.d_model)}
    if trace.d_k < trace.d_model:
        return t("With d_k = {d_k} ≠ d_model = {d_model}, “identity” is the {d_model} × {d_k} matrix with ones on its "
                 "diagonal: it keeps the first {kept} coordinates of each embedding. Set d_k = d_model to compare "
                 "whole embeddings.", **sizes)
    return t("With d_k = {d_k} ≠ d_model = {d_model}, “identity” is the {d_model} × {d_k} matrix with ones on its "
             "diagonal: it pads with zeros after the {kept} coordinates of each embedding. Set d_k = d_model to "
             "compare whole embeddings.", **sizes)
