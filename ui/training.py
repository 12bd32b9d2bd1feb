"""Training runs for "watch a head learn": trained beside the page (ui/background.py), under a progress bar with
Cancel, shared by every session that asks for the same run and kept for the next one.

A run is deterministic in its config, so one shared, bounded store is correct for every learner; and a class whose
students' pages follow the teacher's (class mode) opens the same link in every one of them at once: thirty
trainings of one run would take the server's core for minutes, one is shared.
"""

from __future__ import annotations

import streamlit as st

from attention.training import Run, TrainingConfig, train
from ui import background

RUNS_KEPT = 32  # a run is about 0.3 MB; the oldest go first


def start_training() -> None:
    """The Train button's callback: in the link (ui.links, lt_run), so that a shared link trains the same run
    when opened."""
    st.session_state["lt_run"] = True
    st.session_state.pop("_lt_cancelled", None)


def cancel_training() -> None:
    """Cancel's callback: the page no longer asks for the run (nor does its link), and says it was cancelled."""
    st.session_state["lt_run"] = False
    st.session_state["_lt_cancelled"] = True


def finished_run(config: TrainingConfig) -> Run | None:
    """The run of ``config`` if this server has trained it (for any session), else None."""
    return background.result(("train", config))


def training_job(config: TrainingConfig, who: str | None = None) -> background.Job:
    """``config`` training beside the page, the session ``who`` (this one) waiting for it; its progress is the
    share of the steps trained, reported at every saved state."""
    return background.start(("train", config),
                            lambda job: train(config, on_progress=lambda step: job.progress(step / config.steps)),
                            who=who, kept=RUNS_KEPT)
