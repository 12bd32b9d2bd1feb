"""Sampling SmolLM2's next token on "A real model" (a decoder only): temperature, top-k and top-p, each in the link,
the distribution before and after, and one seeded draw (numbers: ``attention.sampling``, via ``ui.models``).

Not in the page script: a function defined there keeps its run's globals alive (see ``ui.models``)."""

from __future__ import annotations

import streamlit as st

from attention.sampling import Sampling
from ui import components as ui
from ui.links import MAX_TOP_K, SAMPLING_TEMPERATURES, TOP_PS, default
from ui.models import draw_again, sampled_of
from ui.settings import MAX_SEED
from viz import sampling as S
from viz.i18n import bound, decimal, t


def section(sentence: str) -> None:
    """The decoder's next token sampled: temperature, top-k, top-p and a seeded draw (all in the link)."""
    shown = bound(lambda x: decimal(f"{x:g}"))  # a slider's values with the reader's decimal sign
    ui.lesson("real_model/04_sampling")
    with st.container(border=True):
        left, middle, right, far = st.columns(4, vertical_alignment="bottom")
        temperature = left.select_slider(t("Temperature T"), SAMPLING_TEMPERATURES, value=default("rm_temperature"),
                                         key="rm_temperature", persist_state="session", format_func=shown,
                                         help=t("The logits are divided by T before the softmax."))
        top_k = middle.number_input(t("Top-k (0: off)"), 0, MAX_TOP_K, value=default("rm_top_k"), step=1,
                                    key="rm_top_k", persist_state="session",
                                    help=t("Keep the k tokens with the largest logits, and any whose logit ties the "
                                           "k-th."))
        top_p = right.select_slider(t("Top-p (1: off)"), TOP_PS, value=default("rm_top_p"), key="rm_top_p",
                                    persist_state="session", format_func=shown,
                                    help=t("Keep the fewest likeliest tokens whose probabilities add up to at least "
                                           "p, measured on what top-k left."))
        seed = far.number_input(t("The draw's seed"), 0, MAX_SEED, value=default("rm_draw"), step=1, key="rm_draw",
                                persist_state="session")
        st.button(t("Draw again (the next seed)"), key="rm_draw_again", on_click=draw_again,
                  icon=":material/casino:")
    seed = int(seed or 0)
    sampled = sampled_of("smollm2", sentence, Sampling(float(temperature), int(top_k or 0), float(top_p)), seed)
    ui.chart(S.sampling_figure(sampled), "rm-sampling")
    ui.table(S.sampling_frame(sampled), "rm-sampling", decimals=3)  # the cells are text: viz.sampling.probability
    st.caption(t("The model's {count} likeliest next tokens, likeliest first: p is the model's own probability, “p at "
                 "T” the softmax of the logits divided by T over the whole vocabulary, “p sampled from” the one after "
                 "temperature, top-k and top-p (“cut”: that token can't be drawn). Each is written with at least two "
                 "significant digits, and one of 0.5 or more with two of what it leaves to 1, so that no probability "
                 "above 0 reads as 0 and none below 1 reads as 1.", count=S.SHOWN))
    st.markdown(S.kept_text(sampled))
    st.markdown(S.draw_text(sampled, seed))
