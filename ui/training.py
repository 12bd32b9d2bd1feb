"""Training runs for "watch a head learn": finished runs kept for every session of this server, and
a run trained under a progress bar.

Not ``st.cache_data``: a cached function may not draw into a progress bar made outside it (its
elements are replayed on a cache hit), and the bar is the point while a run trains. A run is
deterministic in its config, so one shared, bounded store is correct for every learner.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import streamlit as st

from attention.training import Run, TrainingConfig, train

MAX_RUNS = 32  # a run is about 0.3 MB; the least recently shown go first


@st.cache_resource
def _store() -> tuple[OrderedDict[TrainingConfig, Run], threading.Lock]:
    return OrderedDict(), threading.Lock()


def start_training() -> None:
    """The Train button's callback: in the link, so that a shared link trains the same run when opened."""
    st.query_params["lt_run"] = "true"


def finished_run(config: TrainingConfig) -> Run | None:
    runs, lock = _store()
    with lock:
        if config in runs:
            runs.move_to_end(config)
        return runs.get(config)


def train_with_progress(config: TrainingConfig) -> Run:
    """Train ``config`` under a progress bar (updated at every snapshot), keep the run, return it."""
    bar = st.progress(0.0, text=f"Training: step 0 of {config.steps}")
    run = train(config, on_progress=lambda step: bar.progress(
        step / config.steps, text=f"Training: step {step} of {config.steps}"))
    bar.empty()
    runs, lock = _store()
    with lock:
        runs[config] = run
        while len(runs) > MAX_RUNS:
            runs.popitem(last=False)
    return run
