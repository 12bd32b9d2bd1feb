"""The main lesson: Att(Q, K, V) = softmax(Q·Kᵀ / √d_k)·V on the learner's sentence, in eight steps.

Every number shown comes from one engine trace; nothing is recomputed here. One step is drawn at a
time (Previous / Next / a step menu, the step in the link); "All steps on one page" draws all eight.
Step 3 holds the hand editors of W_Q, W_K and W_V, which feed the trace; the other steps read the
same edits without drawing the editor. Presenter mode shows the open step in large type. The flow is
in ui/walkthrough_lesson.py.
"""

import streamlit as st

from attention import PRESETS, preset_projections
from ui import arrival
from ui.links import PRESET_LABELS, default
from ui.matrix_editor import hand_edited
from ui.settings import settings_popover, shared
from ui.walkthrough_lesson import Choice, lesson, present
from viz.exports import PRESET_SHOWN
from viz.i18n import bound, t

settings = shared()
with settings_popover(t("d_k and W_Q, W_K, W_V"), key="walkthrough_settings"):
    d_k = st.slider(t("d_k (query, key and value size)"), 1, 16, value=default("d_k"), key="d_k",
                    persist_state="session")
    preset = st.radio(
        "W_Q, W_K, W_V", PRESETS, format_func=bound(lambda name: t(PRESET_LABELS[name])), key="preset",
        persist_state="session",
        help=t("Seeded random: entries ~ N(0, 1/d_model). Identity: Q = K = V = X when d_k = d_model (when d_k < "
               "d_model, the first d_k coordinates of X; when d_k > d_model, X followed by zeros), pure similarity."),
    )
summary = st.sidebar.empty()  # filled once the steps have run: they say whether hand edits are in use
# switched on or off, the open step's heading takes the focus from the switch (ui.arrival), so that the clicker's
# next PageDown goes to the next step (a focused switch kept the key from the page's shortcuts)
presenting = st.sidebar.toggle(t("Presenter mode"), key="present", persist_state="session",
                               help=t("One step a screen with large type, for a projector."),
                               on_change=arrival.to_step, args=("step",))
if presenting:  # a teacher at the projector: the class can predict along (class mode); the label wraps, whole
    st.sidebar.container(key="class_link").page_link(
        "lessons/classmode.py", label=t("Start a class: students answer on their devices"), icon=":material/groups:")
choice = Choice(settings, d_k, preset, preset_projections(preset, settings.d_model, d_k, settings.seed))

# No st.stop() here: it would also stop app.py, which draws the share-link box after the page.
(present if presenting else lesson)(choice)
how = t(PRESET_SHOWN[preset])  # lower case: it continues a sentence
summary.caption(t("d_k {d_k} · W_Q, W_K, W_V: {how}, edited by hand (step 3)", d_k=d_k, how=how)
                if hand_edited(choice.basis) else t("d_k {d_k} · W_Q, W_K, W_V: {how}", d_k=d_k, how=how))
