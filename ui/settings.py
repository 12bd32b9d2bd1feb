"""The settings every lesson shares, drawn once in the sidebar by app.py and kept in the URL.

Widget keys are also the URL's query-parameter names, so a copied link reproduces the lesson.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import streamlit as st

from attention import MAX_CHARS, MAX_TOKENS, SentenceError, tokenize
from ui.components import text_box
from viz.labels import markdown_text

DEFAULT_SENTENCE = "This forum is awesome"
DEFAULT_SEED = 42
DEFAULT_D_MODEL = 8
MAX_SEED = 999_999
D_MODEL_RANGE = (2, 16)
_LAST_GOOD = "_last_good_sentence"  # not a widget key, so it outlives page switches
T = TypeVar("T")


@dataclass(frozen=True)
class Shared:
    sentence: str
    seed: int
    d_model: int
    positional: bool
    causal: bool


def _new_seed() -> None:
    """"New random": a fresh seed, never the one already shown."""
    current = st.session_state.get("seed", DEFAULT_SEED)
    st.session_state["seed"] = random.choice([s for s in range(10_000) if s != current])


def _seed_from_link() -> None:
    """The seed is kept in the URL by hand, not with bind="query-params": Streamlit seeds a bound
    number_input with int(float(text)), which raises OverflowError for "inf" or "1e400" before any
    of our code can look (Streamlit 1.67). ``ui.links.clean_link`` has already removed a bad value."""
    if "_seed_read" not in st.session_state:
        st.session_state["_seed_read"] = True
        if "seed" in st.query_params:
            st.session_state["seed"] = int(st.query_params["seed"])


def _seed_to_link(seed: int) -> None:
    if int(seed) == DEFAULT_SEED:
        st.query_params.pop("seed", None)
    elif st.query_params.get("seed") != str(int(seed)):
        st.query_params["seed"] = str(int(seed))


def draw_shared_sidebar() -> Shared:
    """The sentence, seed, d_model and positional-encoding controls, bound to the URL."""
    sb = st.sidebar
    sb.title("Attention Lab")
    sentence = text_box(  # longer text could never be shown, and would make links too long to open
        "Sentence", key="sentence", limit=MAX_CHARS, container=sb, value=DEFAULT_SENTENCE, bind="query-params",
        help=f"Words and punctuation become tokens; at most {MAX_TOKENS} tokens and {MAX_CHARS:,} characters.",
    )
    _seed_from_link()
    seed = sb.number_input(
        "Seed", min_value=0, max_value=MAX_SEED, value=DEFAULT_SEED, step=1, key="seed",
        help="The same seed always gives the same embeddings and random matrices.",
    )
    _seed_to_link(seed)
    sb.button("New random seed", key="new_seed", on_click=_new_seed, width="stretch")
    with settings_popover("Sizes, encodings and mask", key="shared_settings"):
        d_model = st.slider(
            "d_model (embedding size)", *D_MODEL_RANGE, value=DEFAULT_D_MODEL, key="d_model", bind="query-params"
        )
        positional = st.toggle(
            "Add positional encodings", value=False, key="positional", bind="query-params",
            help="Sinusoidal encodings from the original Transformer paper, added to the embeddings.",
        )
        causal = st.toggle(
            "Causal mask (decoder)", value=False, key="causal", bind="query-params",
            help="A decoder may not look at later tokens: query i attends only to tokens 1 … i.",
        )
    sb.caption(f"d_model {d_model} · positional encodings {'on' if positional else 'off'} · "
               f"causal mask {'on' if causal else 'off'}")
    return Shared(
        sentence=sentence or "", seed=int(seed), d_model=int(d_model), positional=bool(positional), causal=bool(causal)
    )


def settings_popover(label: str, *, key: str):
    """A sidebar button that opens these settings. Its widgets run on every rerun (their values and
    links stay), but the browser draws them only while it is open: each drawn widget cost a rerun
    10–20 ms, and the sidebar's nine took the walkthrough's interaction from 1.3× to 2× a bare page
    (issue 9). A caption under it shows the current values."""
    return st.sidebar.popover(label, key=key, icon=":material/tune:", width="stretch")


def shared() -> Shared:
    """The shared settings as app.py drew them in this run."""
    return st.session_state["_shared"]


def trace_or_explain(shared: Shared, trace: Callable[..., T], **options) -> T:
    """``trace(sentence, …)`` on the learner's sentence; if it can't be shown, say why and trace the
    last sentence that could.

    ``trace`` is an engine tracer (``trace_self_attention``, ``trace_multi_head``); it gets the
    shared settings and ``options``. The learner's text stays in the box untouched, and the rest of
    the page keeps working.
    """
    sentence = usable_sentence(shared.sentence, memory=_LAST_GOOD, default=DEFAULT_SENTENCE)
    return trace(sentence, d_model=shared.d_model, seed=shared.seed, positional=shared.positional,
                 causal=shared.causal, **options)


def usable_sentence(text: str, *, memory: str, default: str, label: str = "",
                    check: Callable[[str], object] = tokenize) -> str:
    """``text`` if it can be shown; otherwise a message saying why, and the last text that could,
    remembered under the session key ``memory`` (``default`` before there was one). ``label`` names
    the box in the message when a page has more than one; ``check`` raises SentenceError for text it
    can't take (the lessons' tokenizer, or a real model's)."""
    try:
        check(text)
    except SentenceError as error:
        last = st.session_state.get(memory, default)
        prefix = f"{label}: " if label else ""
        st.warning(f"{prefix}{markdown_text(str(error))}\n\nUntil then the lesson shows the last sentence that "
                   f"worked: “{markdown_text(last)}”.", icon="✏️")
        return last
    st.session_state[memory] = text
    return text
