"""The real models for "A real model": loaded once per server, their results cached per sentence.

These live in a module, not in the page: a function defined in a page script keeps that run's globals
(its trace, α, figures) in a reference cycle (function → its globals → the function), which only a full
garbage collection frees, and Streamlit's collection after each run is off here (.streamlit/config.toml).
With the functions in the page, the server's memory grew by ~2.6 MB for every new sentence (issue 26).

Every cache is bounded by entries and by bytes (Streamlit's pickled size), and a classroom shares them.
"""

from __future__ import annotations

import streamlit as st

from attention.pretrained import MODELS, load
from viz import pretrained as P

LAYERS_PER_PAGE = 6  # the every-head view of the decoder's 30 layers, a page at a time


@st.cache_resource(show_spinner="Loading the model (once per server)…")
def model_named(name: str):
    return load(name)


# SmolLM2's α at 128 tokens is 18 MB and a head's trace at 128 tokens 16 MB (its per-term arrays);
# short sentences take far less, so the byte bounds are what bind in a class typing long ones.
@st.cache_data(max_entries=12, max_size="150MB", show_spinner=False)
def attentions_of(name: str, sentence: str):
    return model_named(name).attentions(sentence)


@st.cache_data(max_entries=8, max_size="100MB", show_spinner=False)
def head_of(name: str, sentence: str, layer: int, head: int):
    return model_named(name).head_trace(sentence, layer, head)


@st.cache_data(max_entries=32, max_size="30MB", show_spinner=False)
def model_view_of(name: str, sentence: str, first: int, stop: int):
    """The every-head picture (30–50 ms to draw): a class on one sentence draws it once."""
    return P.model_view(attentions_of(name, sentence).weights, MODELS[name], range(first, stop))


@st.cache_data(max_entries=64, max_size="2MB", show_spinner=False)
def next_of(name: str, sentence: str):
    return model_named(name).next_tokens(sentence)


def open_head(sentence: str, model: str, layer: int, head: int) -> None:
    """A button's callback: the sentence into the sidebar box, the head (from 0) into the pickers."""
    st.session_state["sentence"] = sentence
    st.session_state["rm_model"] = model
    st.session_state["rm_layer"] = layer + 1
    st.session_state["rm_head"] = head + 1
    st.session_state["rm_layers"] = layer // LAYERS_PER_PAGE  # the every-head view shows the head's layers
