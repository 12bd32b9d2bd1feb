"""Play a step (issue 36): under the scores, the softmax and the output of any head (the walkthrough's, a multi-head
page's, a trained or a real one), a switch opens a player that computes the step for one query before the
learner's eyes, in the browser, from the trace's numbers (viz/player.py, static/player.js): no message to the
server while it plays, and it ends on the numbers of the step's table."""

from __future__ import annotations

import streamlit as st

from attention import AttentionTrace
from ui import view
from viz.i18n import N_, t
from viz.player import MAX_TOKENS, player_data

# the player is a static file beside tooltip.js (how numbers are written), which it imports with its own version
_COMPONENT = st.components.v2.component(
    "attention_lab.player",
    js=view.loader("player.js", "player.css", ("tooltip.js", "dom.js")),
    isolate_styles=False)
LABELS = {"scores": N_("Play: the scores of one query, key by key"),
          "softmax": N_("Play: the softmax of one query, stage by stage"),
          "output": N_("Play: the output of one query, α · v key by key")}  # English: t() translates


def offer(trace: AttentionTrace, prefix: str, kind: str, query: int = 0) -> None:
    """A switch that opens the player of ``kind`` for this trace (its state is the session's, not the link's)."""
    if trace.n > MAX_TOKENS:
        return
    if st.toggle(t(LABELS[kind]), key=f"{prefix}play-{kind}", help=t(
            "Runs in your browser, on the numbers above. Wherever the focus is in the player, Space plays or pauses, "
            "← and → go 1 frame back or forward, Home and End go to the start and the end; on the query and speed "
            "menus, ↑ and ↓ change the choice.")):
        _COMPONENT(key=f"{prefix}player-{kind}", data=player_data(trace, kind, query))
