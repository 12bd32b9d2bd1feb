"""What a click in a view (ui/view.py) chooses, on the pages that let a learner choose by pointing:
a head of the multi-head page, a head of a real model. Callbacks, run before the next run of the page
(and kept out of the pages: see ui/models.py on functions defined in page scripts)."""

from __future__ import annotations

import streamlit as st

from ui import arrival
from ui.models import LAYERS_PER_PAGE


def multihead_head(choice: dict) -> None:
    """A cell of head k's heatmap ("heads-<k>"): open head k in the step-by-step view below."""
    st.session_state["open_head"] = int(choice["panel"].rsplit("-", 1)[1])
    arrival.go("open-head")


def real_model_head(choice: dict) -> None:
    """A tile of the every-head view: open that layer's head below (the view shows a page of layers,
    ``rm_layers``, of LAYERS_PER_PAGE each)."""
    first = int(st.session_state.get("rm_layers") or 0) * LAYERS_PER_PAGE
    st.session_state["rm_layer"] = first + int(choice["row"]) + 1
    st.session_state["rm_head"] = int(choice["col"]) + 1
    arrival.go("one-head")
