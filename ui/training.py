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
TRAINING_WAIT = 120.0  # seconds a session waits for another's training of the same run before its own


@st.cache_resource
def _store() -> tuple[OrderedDict[TrainingConfig, Run], threading.Lock, dict[TrainingConfig, threading.Event]]:
    """The finished runs, their lock, and the runs training now (each with the event set when it ends)."""
    return OrderedDict(), threading.Lock(), {}


def start_training() -> None:
    """The Train button's callback: in the link (ui.links, lt_run), so that a shared link trains the same run
    when opened."""
    st.session_state["lt_run"] = True


def finished_run(config: TrainingConfig) -> Run | None:
    runs, lock, _ = _store()
    with lock:
        if config in runs:
            runs.move_to_end(config)
        return runs.get(config)


def train_with_progress(config: TrainingConfig) -> Run:
    """Train ``config`` under a progress bar (updated at every snapshot), keep the run, return it.

    A run that another session is training already is waited for, not trained again: a class whose
    students' pages follow the teacher's (class mode) opens the same link in every one of them at once,
    and thirty trainings of one run would take the server's core for minutes."""
    runs, lock, training = _store()
    with lock:
        if config in runs:
            return runs[config]
        ends = training.get(config)
        mine = ends is None
        if mine:
            ends = training[config] = threading.Event()
    if not mine:
        with st.spinner("Training: the same run is training for another learner; it is shared when done."):
            ends.wait(timeout=TRAINING_WAIT)
        run = finished_run(config)
        if run is not None:
            return run
        return _train(config)  # that training failed or took too long: train here, on its own
    try:
        return _train(config)
    finally:
        with lock:
            training.pop(config, None)
        ends.set()


def _train(config: TrainingConfig) -> Run:
    bar = st.progress(0.0, text=f"Training: step 0 of {config.steps}")
    run = train(config, on_progress=lambda step: bar.progress(
        step / config.steps, text=f"Training: step {step} of {config.steps}"))
    bar.empty()
    runs, lock, _ = _store()
    with lock:
        runs[config] = run
        while len(runs) > MAX_RUNS:
            runs.popitem(last=False)
    return run
